// The web globals' view of the prelude's primordials (../primordials.ts): the same
// captured built-ins, under the names this folder uses, plus the few it adds.
import {
  ArrayBuffer_,
  bytesCopy,
  DataView_,
  Error_,
  regExpTest,
  stringSplit,
  String_,
  TypeError_,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetLength,
  Uint8Array_,
  uncurryThis,
  Map_,
  arrayCopy,
  PromisePrototypeThen as BasePromiseThen,
} from '../primordials';

export {
  ArrayIteratorPrototype,
  AsyncIteratorPrototype,
  IteratorPrototype,
  ObjectGetOwnPropertyDescriptors,
  SymbolCtor,
  SymbolToStringTag,
  TypedArrayConstructors,
  ArrayBufferIsView,
  ArrayBufferPrototypeGetByteLength,
  ArrayIsArray,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  ArrayPrototypeSort,
  bytesConcat,
  bytesCopy,
  DateNow,
  JSONParse,
  JSONStringify,
  MapPrototypeForEach,
  MapPrototypeGet,
  MapPrototypeGetSize,
  MapPrototypeHas,
  MapPrototypeSet,
  MathFloor,
  MathMax,
  MathMin,
  NumberIsFinite,
  NumberIsNaN,
  ObjectCreate,
  ObjectSetPrototypeOf,
  ReflectDefineProperty,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ObjectPrototypeHasOwnProperty,
  PromiseResolve,
  ReflectApply,
  RegExpPrototypeExec,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  StringPrototypeToLowerCase,
  StringPrototypeToUpperCase,
  StringPrototypeTrim,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetLength,
  TypedArrayPrototypeSet,
} from '../primordials';

// A plain Map with the uncurried methods: the prelude's SafeMap subclass constructor spreads
// its arguments, which runs the (program-patchable) array iterator on every `new`.
export const SafeMap = Map_;
export const StringCtor = String_;
export const NumberCtor = Number;
export const ErrorCtor = Error_;
export const TypeErrorCtor = TypeError_;
export const Uint8ArrayCtor = Uint8Array_;
export const ArrayBufferCtor = ArrayBuffer_;
export const DataViewCtor = DataView_;
export const PromiseCtor = Promise;
export const PromiseReject = Promise.reject.bind(Promise) as (reason: unknown) => Promise<never>;
export const MathTrunc = Math.trunc;
export const SymbolIterator: typeof Symbol.iterator = Symbol.iterator;
export const SymbolAsyncIterator: typeof Symbol.asyncIterator = Symbol.asyncIterator;
export const MapPrototypeDelete = uncurryThis(Map.prototype.delete) as <K, V>(map: Map<K, V>, key: K) => boolean;
export const ArrayPrototypeSplice = uncurryThis(Array.prototype.splice as (start: number, count: number) => unknown[]) as (list: unknown[], start: number, count: number) => unknown[];
export const RegExpPrototypeTest = regExpTest;
export const StringPrototypeSplit = stringSplit;

/** A copy of `bytes[start, end)` (no species lookup, unlike TypedArray slice). */
export function TypedArrayPrototypeSlice(bytes: Uint8Array, start = 0, end = TypedArrayPrototypeGetLength(bytes)): Uint8Array {
  const from = start < 0 ? 0 : start;
  const to = end < from ? from : end;
  return bytesCopy(new Uint8Array_(TypedArrayPrototypeGetBuffer(bytes), TypedArrayPrototypeGetByteOffset(bytes) + from, to - from));
}

/** `promise.then(ok, fail)` through the captured method, typed by its callbacks. */
export function PromisePrototypeThen<T, R>(promise: Promise<T>, onFulfilled: (value: T) => R | PromiseLike<R>, onRejected?: (reason: unknown) => R | PromiseLike<R>): Promise<R> {
  return BasePromiseThen(promise, onFulfilled as (value: T) => unknown, onRejected as (reason: unknown) => unknown) as Promise<R>;
}

/** A copy of a whole array (no species, no iterator). */
export function ArrayPrototypeSlice<T>(list: readonly T[]): T[] {
  return arrayCopy(list as T[]);
}
