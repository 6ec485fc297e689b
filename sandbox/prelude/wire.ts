// The guest end of the host-call wire: arguments out as JSON text, replies back. Both
// directions are built on the primordials: a program's toJSON on a prototype, a patched
// JSON, Object.keys or a getter on Object.prototype cannot change what the host receives
// or what the trusted code reads back. Arguments carry bytes as `{ [BYTES_TAG]: base64 }`;
// replies as `{ [BYTES_TAG]: n }`, n the index of an ArrayBuffer the runner copied in beside
// the text (binary all the way from the server).
import { BYTES_TAG } from '../contract';
import { base64ToBytes, bytesToBase64 } from './encoding';
import {
  ArrayBufferPrototypeGetByteLength,
  ArrayIsArray,
  isArrayBuffer,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  DatePrototypeToISOString,
  isDate,
  isMap,
  isUint8Array,
  jsonQuote,
  JSONParse,
  MapPrototypeForEach,
  NumberIsFinite,
  ObjectKeys,
  own,
  SafeSet,
  String_,
  Uint8Array_,
} from './primordials';

const MAX_DEPTH = 256;

function encodeNumber(value: number): string {
  return NumberIsFinite(value) ? `${value}` : 'null';
}

/**
 * JSON text of plain data: strings, finite numbers, booleans, null, arrays, objects (own
 * enumerable string keys), Uint8Array as tagged bytes, Map as an object of its entries,
 * Date as its ISO text. `undefined`, functions and symbols are left out (null in arrays).
 * A program's `toJSON` is not consulted: the host sees the data itself.
 */
export function encodeValue(value: unknown, what: string): string | undefined {
  const active = new SafeSet<object>();
  const encode = (v: unknown, depth: number): string | undefined => {
    switch (typeof v) {
      case 'string':
        return jsonQuote(v);
      case 'number':
        return encodeNumber(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'bigint':
        throw new TypeError(`${what}: a BigInt cannot be sent to the host; convert it with String(value)`);
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return 'null';
    const object = v as object;
    if (depth > MAX_DEPTH) throw new RangeError(`${what}: the value is nested more than ${MAX_DEPTH} levels deep`);
    if (active.has(object)) throw new TypeError(`${what}: the value contains a cycle`);
    if (isUint8Array(object)) return `{${jsonQuote(BYTES_TAG)}:${jsonQuote(bytesToBase64(object))}}`;
    if (isDate(object)) {
      try {
        return jsonQuote(DatePrototypeToISOString(object));
      } catch {
        return 'null';
      }
    }
    active.add(object);
    const parts: string[] = [];
    if (ArrayIsArray(object)) {
      const list = object as unknown[];
      const length = list.length;
      for (let i = 0; i < length; i++) ArrayPrototypePush(parts, encode(list[i], depth + 1) ?? 'null');
      active.delete(object);
      return `[${ArrayPrototypeJoin(parts, ',')}]`;
    }
    if (isMap(object)) {
      MapPrototypeForEach(object, (item: unknown, key: unknown) => {
        const text = encode(item, depth + 1);
        if (text !== undefined) ArrayPrototypePush(parts, `${jsonQuote(String_(key))}:${text}`);
      });
    } else {
      const keys = ObjectKeys(object);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i];
        const text = encode((object as Record<string, unknown>)[key], depth + 1);
        if (text !== undefined) ArrayPrototypePush(parts, `${jsonQuote(key)}:${text}`);
      }
    }
    active.delete(object);
    return `{${ArrayPrototypeJoin(parts, ',')}}`;
  };
  return encode(value, 0);
}

/** The argument list of one host call as JSON text. */
export function encodeArgs(args: readonly unknown[], what: string): string {
  const parts: string[] = [];
  for (let i = 0; i < args.length; i++) ArrayPrototypePush(parts, encodeValue(args[i], what) ?? 'null');
  return `[${ArrayPrototypeJoin(parts, ',')}]`;
}

/**
 * Parses reply JSON, turning tagged bytes back into Uint8Array (own fields only): base64
 * text, or an index into `blobs` (the reply's ArrayBuffers, each used once).
 */
export function decodeWire(text: string, blobs: readonly unknown[] = []): unknown {
  return JSONParse(text, (_key, value) => {
    if (value === null || typeof value !== 'object' || ArrayIsArray(value)) return value;
    const tagged = own(value, BYTES_TAG);
    if (ObjectKeys(value).length !== 1) return value;
    if (typeof tagged === 'string') return base64ToBytes(tagged);
    if (typeof tagged === 'number') {
      const buffer = own(blobs, tagged);
      if (!isArrayBuffer(buffer)) throw new TypeError('the host reply refers to bytes it did not send');
      return new Uint8Array_(buffer, 0, ArrayBufferPrototypeGetByteLength(buffer));
    }
    return value;
  });
}
