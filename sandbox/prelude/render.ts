// Text rendering shared by console lines and messages: strings as is, errors as
// `Name: message`, objects as JSON from a safe encoder (Map, Set, BigInt, cycles,
// functions handled). Built on the primordials: whatever the program patched, the
// output is a string.
import {
  ArrayIsArray,
  BigIntPrototypeToString,
  FunctionPrototypeCall,
  isErrorLike,
  isMap,
  isSet,
  JSONStringify,
  MapPrototypeForEach,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectKeys,
  own,
  SafeSet,
  SetPrototypeForEach,
  String_,
  SymbolPrototypeToString,
} from './primordials';

function functionLabel(fn: Function): string {
  let name: unknown;
  try {
    name = own(fn, 'name');
  } catch {
    name = undefined;
  }
  return typeof name === 'string' && name !== '' ? `[Function ${name}]` : '[Function (anonymous)]';
}

/** `Name: message` of an error-like object; fields that are not strings are shown with String(). */
function errorLabel(error: object): string {
  try {
    const name = (error as { name?: unknown }).name;
    const message = (error as { message?: unknown }).message;
    return `${typeof name === 'string' ? name : String_(name)}: ${typeof message === 'string' ? message : String_(message)}`;
  } catch {
    return 'Error: (unreadable error)';
  }
}

function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

export function safeJson(value: unknown): string {
  const seen = new SafeSet<unknown>();
  // `viaToJSON`: the value a toJSON returned is not asked again (JSON applies it once).
  const convert = (v: unknown, viaToJSON = false): unknown => {
    if (typeof v === 'bigint') return BigIntPrototypeToString(v);
    if (typeof v === 'function') return functionLabel(v);
    if (typeof v === 'symbol') return SymbolPrototypeToString(v);
    if (v === undefined) return null;
    if (v === null || typeof v !== 'object') return v;
    if (seen.has(v)) return '[Circular]';
    seen.add(v);
    try {
      if (isErrorLike(v)) return errorLabel(v);
      // Null-prototype objects: a toJSON on Object.prototype cannot reach the encoder.
      const out = ObjectCreate(null) as Record<string, unknown>;
      if (isMap(v)) {
        MapPrototypeForEach(v, (item: unknown, key: unknown) => setField(out, String_(key), convert(item)));
        return out;
      }
      if (isSet(v)) {
        const list: unknown[] = [];
        let index = 0;
        SetPrototypeForEach(v, (item: unknown) => setField(list as unknown as Record<string, unknown>, String_(index++), convert(item)));
        return list;
      }
      if (ArrayIsArray(v)) {
        const list: unknown[] = [];
        const length = (v as unknown[]).length;
        for (let i = 0; i < length; i++) setField(list as unknown as Record<string, unknown>, String_(i), convert((v as unknown[])[i]));
        return list;
      }
      const toJSON = viaToJSON ? undefined : (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return convert(FunctionPrototypeCall(toJSON as () => unknown, v), true);
      const keys = ObjectKeys(v);
      for (let i = 0; i < keys.length; i++) setField(out, keys[i], convert((v as Record<string, unknown>)[keys[i]]));
      return out;
    } finally {
      seen.delete(v);
    }
  };
  try {
    const text: unknown = JSONStringify(convert(value), ownValueReplacer);
    return typeof text === 'string' ? text : String_(value);
  } catch (error) {
    return '[unrenderable value]';
  }
}

/**
 * Arrays built here still have Array.prototype, and JSON.stringify consults a toJSON found
 * there before the replacer runs; the replacer hands back the holder's own value instead.
 */
export function ownValueReplacer(this: unknown, key: string): unknown {
  return own(this, key);
}

export function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  if (typeof value === 'bigint') return BigIntPrototypeToString(value);
  if (typeof value === 'symbol') return SymbolPrototypeToString(value);
  if (typeof value === 'function') return functionLabel(value);
  if (isErrorLike(value)) return errorLabel(value as object);
  return safeJson(value);
}
