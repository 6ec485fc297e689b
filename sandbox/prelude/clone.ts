// structuredClone for the value types a program can build in the isolate (brand checks
// and loops over the primordials, so patched prototypes do not change what is copied).
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
  isSet,
  MapPrototypeForEach,
  ObjectDefineProperty,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ReflectConstruct,
  SafeMap,
  SetPrototypeForEach,
  String_,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetLength,
  TypedArrayPrototypeSet,
  typedArrayKind,
  Uint8Array_,
  uncurryThis,
} from './primordials';

const DateGetTime = uncurryThis(Date.prototype.getTime);
const errorClasses: Array<[object, ErrorConstructor]> = [
  [TypeError.prototype, TypeError], [RangeError.prototype, RangeError], [SyntaxError.prototype, SyntaxError],
  [ReferenceError.prototype, ReferenceError], [EvalError.prototype, EvalError], [URIError.prototype, URIError],
];

/** The built-in error class an error belongs to (Error when none of the others). */
function errorClassOf(error: object): ErrorConstructor {
  const proto = ObjectGetPrototypeOf(error);
  for (let i = 0; i < errorClasses.length; i++) if (errorClasses[i][0] === proto) return errorClasses[i][1];
  return Error;
}
const RegExpGetSource = uncurryThis(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')!.get!);
const RegExpGetFlags = uncurryThis(Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags')!.get!);
const MapSet = uncurryThis(Map.prototype.set);
const SetAdd = uncurryThis(Set.prototype.add);
const typedArrays: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
};

function copyBytes(buffer: ArrayBuffer, offset: number, length: number): ArrayBuffer {
  const copy = new Uint8Array_(length);
  TypedArrayPrototypeSet(copy, new Uint8Array_(buffer, offset, length));
  return TypedArrayPrototypeGetBuffer(copy);
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

export function structuredClone<T>(value: T): T {
  const seen = new SafeMap<unknown, unknown>();
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol') throw new TypeError(`structuredClone: ${typeof v} values cannot be cloned`);
      return v;
    }
    if (seen.has(v)) return seen.get(v);
    if (isDate(v)) return new Date(DateGetTime(v));
    if (isRegExp(v)) return new RegExp(RegExpGetSource(v), RegExpGetFlags(v));
    if (isArrayBuffer(v)) return copyBytes(v, 0, ArrayBufferPrototypeGetByteLength(v));
    const kind = typedArrayKind(v);
    if (kind !== undefined) {
      const view = v as ArrayBufferView;
      const buffer = copyBytes(TypedArrayPrototypeGetBuffer(view), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
      return ReflectConstruct(typedArrays[kind], [buffer, 0, TypedArrayPrototypeGetLength(view)]);
    }
    if (isDataView(v)) return new DataView_(copyBytes(DataViewPrototypeGetBuffer(v), DataViewPrototypeGetByteOffset(v), DataViewPrototypeGetByteLength(v)));
    if (isMap(v)) {
      const out = new Map();
      seen.set(v, out);
      MapPrototypeForEach(v, (item: unknown, key: unknown) => MapSet(out, copy(key), copy(item)));
      return out;
    }
    if (isSet(v)) {
      const out = new Set();
      seen.set(v, out);
      SetPrototypeForEach(v, (item: unknown) => SetAdd(out, copy(item)));
      return out;
    }
    if (isErrorLike(v)) {
      const message = (v as Error).message;
      const out = ReflectConstruct(errorClassOf(v as object), [typeof message === 'string' ? message : String_(message)]);
      seen.set(v, out);
      return out;
    }
    if (ArrayIsArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      const length = (v as unknown[]).length;
      for (let i = 0; i < length; i++) define(out, String_(i), copy((v as unknown[])[i]));
      return out;
    }
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    const keys = ObjectKeys(v);
    for (let i = 0; i < keys.length; i++) define(out, keys[i], copy((v as Record<string, unknown>)[keys[i]]));
    return out;
  };
  return copy(value) as T;
}
