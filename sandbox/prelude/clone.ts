// structuredClone per the HTML standard's serialisable types that exist in the isolate:
// primitives and their wrapper objects, Date, RegExp, ArrayBuffer and the views on it
// (views of one buffer stay views of one copied buffer), Map, Set, errors, Blob and File,
// arrays and plain objects, cycles kept. Functions, symbols and the platform's other
// objects throw a DataCloneError. Brand checks and loops over the primordials, so patched
// prototypes do not change what is copied.
import {
  ArrayIsArray,
  ArrayBufferPrototypeGetByteLength,
  DataView_,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  isArrayBuffer,
  isDataView,
  isDate,
  isErrorLike,
  isMap,
  isPromise,
  isSet,
  isWeakMap,
  isWeakSet,
  MapPrototypeForEach,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ObjectPrototypeToString,
  ObjectPrototypeHasOwnProperty,
  Date_,
  Map_,
  Set_,
  ReflectConstruct,
  SafeMap,
  SetPrototypeForEach,
  String_,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetLength,
  TypedArrayPrototypeSet,
  typedArrayKind,
  Uint8Array_,
  uncurryThis,
  DatePrototypeGetTime as DateGetTime,
  ErrorClasses as errorClasses,
  RegExpPrototypeGetSource as RegExpGetSource,
  RegExpPrototypeGetFlags as RegExpGetFlags,
  BooleanPrototypeValueOf as BooleanValueOf,
  NumberPrototypeValueOf as NumberValueOf,
  StringPrototypeValueOf as StringValueOf,
  BigIntPrototypeValueOf as BigIntValueOf,
  SymbolPrototypeValueOf as SymbolValueOf,
  SetPrototypeAdd as SetAdd,
  TypedArrayConstructors as typedArrays,
  Object_,
  Array_,
  RegExp_,
} from './primordials';
import { newDOMException, type DOMException } from './dom-exception';
import { blobBytes, isBlob, isFile, makeBlob, makeFile } from './web/blob';
import { listOf } from './web/headers';

/** Platform objects that are not serialisable (by their tag: a forged tag only spoils the program's own copy). */
const UNCLONABLE_TAGS = ['Request', 'Response', 'Headers', 'FormData', 'ReadableStream', 'WritableStream', 'TransformStream', 'EventTarget', 'AbortSignal', 'AbortController', 'Event', 'CustomEvent', 'ErrorEvent', 'WeakRef', 'FinalizationRegistry', 'CryptoKey', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder'];

function cloneError(what: string): DOMException {
  return newDOMException(`structuredClone: ${what} could not be cloned`, 'DataCloneError');
}

/** The value inside a Boolean/Number/String/BigInt wrapper (`{ ok: false }` when not one). */
function unwrap(value: object): { ok: boolean; value?: unknown } {
  const tries: Array<(v: object) => unknown> = [BooleanValueOf as (v: object) => unknown, NumberValueOf as (v: object) => unknown, StringValueOf as (v: object) => unknown, BigIntValueOf as (v: object) => unknown];
  for (let i = 0; i < tries.length; i++) {
    try {
      return { ok: true, value: tries[i](value) };
    } catch {
      // not this kind of wrapper
    }
  }
  return { ok: false };
}
function isSymbolWrapper(value: object): boolean {
  try {
    SymbolValueOf(value as unknown as symbol);
    return true;
  } catch {
    return false;
  }
}

function isRegExp(value: object): value is RegExp {
  try {
    RegExpGetSource(value as RegExp);
    return true;
  } catch {
    return false;
  }
}

function define(target: object, key: string, value: unknown): void {
  ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** An own data property's value, or undefined (getters are not run for error fields). */
function ownData(object: object, key: string): unknown {
  const descriptor = ObjectGetOwnPropertyDescriptor(object, key);
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
}

function copyError(error: object, seen: Map<unknown, unknown>, copy: (v: unknown) => unknown): object {
  let name = 'Error';
  for (let proto = ObjectGetPrototypeOf(error), depth = 0; proto !== null && depth < 64; proto = ObjectGetPrototypeOf(proto), depth++) {
    const candidate = ownData(proto, 'name');
    if (typeof candidate === 'string' && ObjectPrototypeHasOwnProperty(errorClasses, candidate)) {
      name = candidate;
      break;
    }
  }
  const ownName = ownData(error, 'name');
  if (typeof ownName === 'string' && ObjectPrototypeHasOwnProperty(errorClasses, ownName)) name = ownName;
  const message = ownData(error, 'message');
  const out = ReflectConstruct(errorClasses[name], message === undefined ? [] : [String_(message)]) as Error;
  MapPrototypeSet(seen, error, out);
  const stack = ownData(error, 'stack');
  if (typeof stack === 'string') ObjectDefineProperty(out, 'stack', { value: stack, writable: true, configurable: true, enumerable: false });
  const descriptor = ObjectGetOwnPropertyDescriptor(error, 'cause');
  if (descriptor !== undefined && 'value' in descriptor) ObjectDefineProperty(out, 'cause', { value: copy(descriptor.value), writable: true, configurable: true, enumerable: false });
  return out;
}

export function structuredClone<T>(value: T, options?: { transfer?: unknown }): T {
  if (arguments.length === 0) throw new TypeError("structuredClone: the 'value' argument is required");
  const seen = new SafeMap<unknown, unknown>();
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw new TypeError('structuredClone: options must be an object');
    const transfer = (options as { transfer?: unknown }).transfer;
    if (transfer !== undefined) {
      // Transferred buffers are copied (this engine cannot detach the originals); the list is still checked.
      const list = listOf(transfer, 'structuredClone: options.transfer');
      const listed = new SafeMap<unknown, boolean>();
      for (let i = 0; i < list.length; i++) {
        if (!isArrayBuffer(list[i])) throw cloneError(`transfer list item ${i} (only ArrayBuffers can be transferred)`);
        if (MapPrototypeHas(listed, list[i])) throw cloneError('an ArrayBuffer listed twice in transfer');
        MapPrototypeSet(listed, list[i], true);
      }
    }
  }
  const buffer = (original: ArrayBuffer): ArrayBuffer => {
    if (MapPrototypeHas(seen, original)) return MapPrototypeGet(seen, original) as ArrayBuffer;
    const length = ArrayBufferPrototypeGetByteLength(original);
    const bytes = new Uint8Array_(length);
    TypedArrayPrototypeSet(bytes, new Uint8Array_(original, 0, length));
    const out = TypedArrayPrototypeGetBuffer(bytes);
    MapPrototypeSet(seen, original, out);
    return out;
  };
  const copy = (v: unknown): unknown => {
    if (typeof v === 'function') throw cloneError('a function');
    if (typeof v === 'symbol') throw cloneError('a symbol');
    if (v === null || typeof v !== 'object') return v;
    if (MapPrototypeHas(seen, v)) return MapPrototypeGet(seen, v);
    let out: unknown;
    const wrapped = unwrap(v);
    if (wrapped.ok) out = Object_(wrapped.value);
    else if (isSymbolWrapper(v)) throw cloneError('a Symbol object');
    else if (isDate(v)) out = new Date_(DateGetTime(v));
    else if (isRegExp(v)) out = new RegExp_(RegExpGetSource(v), RegExpGetFlags(v));
    else if (isArrayBuffer(v)) return buffer(v);
    else if (typedArrayKind(v) !== undefined) {
      const view = v as ArrayBufferView;
      out = ReflectConstruct(typedArrays[typedArrayKind(v)!], [buffer(TypedArrayPrototypeGetBuffer(view)), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetLength(view)]);
    } else if (isDataView(v)) out = new DataView_(buffer(DataViewPrototypeGetBuffer(v)), DataViewPrototypeGetByteOffset(v), DataViewPrototypeGetByteLength(v));
    else if (isFile(v)) out = makeFile(blobBytes(v), v.name, v.type, v.lastModified);
    else if (isBlob(v)) out = makeBlob(blobBytes(v), v.type);
    else if (isMap(v)) {
      const map = new Map_();
      MapPrototypeSet(seen, v, map);
      MapPrototypeForEach(v, (item: unknown, key: unknown) => MapPrototypeSet(map, copy(key), copy(item)));
      return map;
    } else if (isSet(v)) {
      const set = new Set_();
      MapPrototypeSet(seen, v, set);
      SetPrototypeForEach(v, (item: unknown) => SetAdd(set, copy(item)));
      return set;
    } else if (isErrorLike(v)) return copyError(v as object, seen, copy);
    else if (isPromise(v) || isWeakMap(v) || isWeakSet(v)) throw cloneError(`a ${ObjectPrototypeToString(v)}`);
    else {
      const tag = ObjectPrototypeToString(v);
      for (let i = 0; i < UNCLONABLE_TAGS.length; i++) if (tag === `[object ${UNCLONABLE_TAGS[i]}]`) throw cloneError(`a ${UNCLONABLE_TAGS[i]}`);
      const isArray = ArrayIsArray(v);
      const target: Record<string, unknown> = isArray ? (new Array_((v as unknown[]).length) as unknown as Record<string, unknown>) : {};
      MapPrototypeSet(seen, v, target);
      const keys = ObjectKeys(v);
      for (let i = 0; i < keys.length; i++) define(target, keys[i], copy((v as Record<string, unknown>)[keys[i]]));
      return target;
    }
    MapPrototypeSet(seen, v, out);
    return out;
  };
  return copy(value) as T;
}
