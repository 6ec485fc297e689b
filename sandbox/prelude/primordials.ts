// Built-ins captured before any program code runs, in the style of Node.js core's
// `primordials`: trusted guest code (the prelude and the modules' guest factories) calls
// only these, so a program that replaces a prototype method, an iterator, a getter on
// Object.prototype or a global (JSON, Math, Reflect, ...) cannot steer it.
//
// Rules for trusted guest code (kept short on purpose; see README "Trusted guest code"):
// - call methods only through the uncurried forms here (`ArrayPrototypePush(list, x)`);
// - no spread, for-of, array destructuring or `new Map(iterable)`: they run iterators;
// - no `instanceof` where it decides anything (use the brand checks here);
// - avoid Array.prototype.map/filter/slice/concat and ArrayBuffer/TypedArray slice: they
//   consult `constructor[Symbol.species]` (use the loop helpers here);
// - avoid String.prototype.split/replace/match and RegExp.prototype.test: they look up
//   Symbol.split/replace or `exec` on patchable objects (use RegExpPrototypeExec);
// - read properties of parsed or program objects with `own()` (a getter on
//   Object.prototype answers for every missing property);
// - create result objects with object literals or `ObjectCreate(null)`, never by assigning
//   into `{}` (a setter on Object.prototype would run), and freeze what the program receives.

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyFunction = (...args: any[]) => any;

const ReflectObject = Reflect;
export const ReflectApply = ReflectObject.apply as <R>(target: (...args: any[]) => R, thisArgument: unknown, argumentsList: ArrayLike<unknown>) => R;
export const ReflectConstruct = ReflectObject.construct;
export const ReflectOwnKeys = ReflectObject.ownKeys;
export const ReflectGetPrototypeOf = ReflectObject.getPrototypeOf;
const nativeReflectDefineProperty = ReflectObject.defineProperty;
const nativeHasOwn = Object.hasOwn;

/**
 * A descriptor's own fields on a null-prototype copy. A descriptor literal inherits from
 * Object.prototype, and the engine looks its fields up through the prototype chain: once the
 * program has run, a `get` (or `value`, ...) it put on Object.prototype would be read, and
 * its getter run, inside trusted code. Every define in trusted code goes through this.
 * Straight-line on purpose: the prelude defines a few hundred properties per context, and as
 * a loop over the field names this was hot enough for V8 to optimise it anew in every fresh
 * context (bench/PROFILE.md, round 16).
 */
function ownFields(descriptor: PropertyDescriptor): PropertyDescriptor {
  const copy = { __proto__: null } as PropertyDescriptor & { __proto__: null };
  if (nativeHasOwn(descriptor, 'value')) copy.value = descriptor.value;
  if (nativeHasOwn(descriptor, 'writable')) copy.writable = descriptor.writable;
  if (nativeHasOwn(descriptor, 'get')) copy.get = descriptor.get;
  if (nativeHasOwn(descriptor, 'set')) copy.set = descriptor.set;
  if (nativeHasOwn(descriptor, 'enumerable')) copy.enumerable = descriptor.enumerable;
  if (nativeHasOwn(descriptor, 'configurable')) copy.configurable = descriptor.configurable;
  return copy;
}

/**
 * True while only the prelude's own top level has run in this context: Object.prototype is
 * still the engine's, so a descriptor literal's inherited fields are the engine's too and
 * need no copy. The prelude defines a few hundred properties per context, and the copies
 * were about a sixth of its evaluation (bench/PROFILE.md, round 39). `programMayRun` ends it,
 * as the prelude's last statement, before any other code runs in the context.
 */
let preludeOnly = true;
/** Every define from now on copies its descriptor's own fields (./entry.ts calls it last). */
export function programMayRun(): void {
  preludeOnly = false;
}

export const ReflectDefineProperty = (target: object, key: PropertyKey, descriptor: PropertyDescriptor): boolean => nativeReflectDefineProperty(target, key, preludeOnly ? descriptor : ownFields(descriptor));
export const ReflectGet = ReflectObject.get;
export const ReflectSet = ReflectObject.set;
export const ReflectHas = ReflectObject.has;
export const ReflectDeleteProperty = ReflectObject.deleteProperty;
export const ReflectGetOwnPropertyDescriptor = ReflectObject.getOwnPropertyDescriptor;

/** `fn.call(self, ...args)` as `uncurried(self, ...args)`, built from the captured Reflect.apply. */
export function uncurryThis<T, A extends unknown[], R>(fn: (this: T, ...args: A) => R): (self: T, ...args: A) => R {
  return (self: T, ...args: A) => ReflectApply(fn as AnyFunction, self, args);
}

/** An accessor's getter, uncurried: `getter(Map.prototype, 'size')(map)`. */
function getter(prototype: object, name: PropertyKey): AnyFunction {
  return uncurryThis(ObjectGetOwnPropertyDescriptor(prototype, name)!.get as AnyFunction);
}

// --- Object ---------------------------------------------------------------------------
export const ObjectPrototype = Object.prototype;
export const ObjectKeys = Object.keys;
export const ObjectFreeze = Object.freeze;
export const ObjectIsFrozen = Object.isFrozen;
export const ObjectCreate = Object.create as (prototype: object | null) => any;
const nativeObjectDefineProperty = Object.defineProperty;
export const ObjectDefineProperty = <T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor & ThisType<any>): T => nativeObjectDefineProperty(target, key, preludeOnly ? descriptor : ownFields(descriptor));
export const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
export const ObjectGetPrototypeOf = Object.getPrototypeOf;
export const ObjectSetPrototypeOf = Object.setPrototypeOf;
export const ObjectIs = Object.is;
export const ObjectPrototypeHasOwnProperty = uncurryThis(Object.prototype.hasOwnProperty) as (self: unknown, key: PropertyKey) => boolean;
export const ObjectPrototypeToString = uncurryThis(Object.prototype.toString) as (self: unknown) => string;
/**
 * The engine's own Object.defineProperty and Object.prototype.hasOwnProperty as values, for
 * guest code that is handed them (./commonjs.ts: esbuild's `__defProp` and `__hasOwnProp`).
 * Trusted code calls ObjectDefineProperty and ObjectPrototypeHasOwnProperty instead, or this
 * define with a descriptor of null prototype.
 */
export const ObjectDefinePropertyIntrinsic = nativeObjectDefineProperty;
export const ObjectPrototypeHasOwnPropertyIntrinsic = Object.prototype.hasOwnProperty;

/** `obj[key]` if it is the object's own property, else undefined (never a prototype's getter). */
export function own(object: unknown, key: PropertyKey): any {
  if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return undefined;
  return ObjectPrototypeHasOwnProperty(object, key) ? (object as any)[key] : undefined;
}

// --- Function -------------------------------------------------------------------------
/** `fn.call(self, ...args)` without reading Function.prototype.call at call time. */
export function FunctionPrototypeCall<R>(fn: (...args: any[]) => R, self: unknown, ...args: unknown[]): R {
  return ReflectApply(fn, self, args);
}
export const FunctionPrototypeBind = uncurryThis(Function.prototype.bind) as (fn: AnyFunction, self: unknown, ...args: unknown[]) => AnyFunction;

// --- Array ----------------------------------------------------------------------------
export const ArrayIsArray = Array.isArray;
export const ArrayPrototypePush = uncurryThis(Array.prototype.push) as <T>(list: T[], ...items: T[]) => number;
export const ArrayPrototypePop = uncurryThis(Array.prototype.pop) as <T>(list: T[]) => T | undefined;
export const ArrayPrototypeJoin = uncurryThis(Array.prototype.join) as (list: readonly unknown[], separator?: string) => string;
export const ArrayPrototypeIndexOf = uncurryThis(Array.prototype.indexOf) as <T>(list: readonly T[], item: T, from?: number) => number;
export const ArrayPrototypeIncludes = uncurryThis(Array.prototype.includes) as <T>(list: readonly T[], item: T) => boolean;
export const ArrayPrototypeSort = uncurryThis(Array.prototype.sort) as <T>(list: T[], compare?: (a: T, b: T) => number) => T[];

/** A fresh array of `list[i]` for i < length (no species, no iterator). */
export function arrayCopy<T>(list: ArrayLike<T>, from = 0, to = list.length): T[] {
  const out: T[] = [];
  for (let i = from < 0 ? 0 : from; i < to && i < list.length; i++) ArrayPrototypePush(out, list[i]);
  return out;
}
export function arrayMap<T, U>(list: ArrayLike<T>, fn: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < list.length; i++) ArrayPrototypePush(out, fn(list[i], i));
  return out;
}
export function arrayFilter<T>(list: ArrayLike<T>, keep: (item: T, index: number) => boolean): T[] {
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) if (keep(list[i], i)) ArrayPrototypePush(out, list[i]);
  return out;
}
export function arrayFindIndex<T>(list: ArrayLike<T>, match: (item: T, index: number) => boolean): number {
  for (let i = 0; i < list.length; i++) if (match(list[i], i)) return i;
  return -1;
}

// --- String and RegExp ----------------------------------------------------------------
export const String_ = String;
export const StringFromCharCode = String.fromCharCode;
export const StringFromCodePoint = String.fromCodePoint;
export const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const StringPrototypeCodePointAt = uncurryThis(String.prototype.codePointAt);
export const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);
export const StringPrototypeLastIndexOf = uncurryThis(String.prototype.lastIndexOf);
export const StringPrototypeSlice = uncurryThis(String.prototype.slice);
export const StringPrototypeStartsWith = uncurryThis(String.prototype.startsWith);
export const StringPrototypeEndsWith = uncurryThis(String.prototype.endsWith);
export const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase);
export const StringPrototypeToUpperCase = uncurryThis(String.prototype.toUpperCase);
export const StringPrototypePadStart = uncurryThis(String.prototype.padStart);
export const StringPrototypeRepeat = uncurryThis(String.prototype.repeat);
export const StringPrototypeTrim = uncurryThis(String.prototype.trim);
export const NumberPrototypeToString = uncurryThis(Number.prototype.toString) as (n: number, radix?: number) => string;
export const SymbolPrototypeToString = uncurryThis(Symbol.prototype.toString) as (s: symbol) => string;
export const BigIntPrototypeToString = uncurryThis(BigInt.prototype.toString) as (n: bigint) => string;
/** Builtin exec on a regexp we created: reads no patchable property (unlike test/replace/split). */
export const RegExpPrototypeExec = uncurryThis(RegExp.prototype.exec);
export function regExpTest(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return RegExpPrototypeExec(pattern, text) !== null;
}

/** `text.split(separator)` for a string separator, without Symbol.split. */
export function stringSplit(text: string, separator: string): string[] {
  const out: string[] = [];
  if (separator === '') {
    for (let i = 0; i < text.length; i++) ArrayPrototypePush(out, StringPrototypeSlice(text, i, i + 1));
    return out;
  }
  let at = 0;
  for (;;) {
    const next = StringPrototypeIndexOf(text, separator, at);
    if (next === -1) break;
    ArrayPrototypePush(out, StringPrototypeSlice(text, at, next));
    at = next + separator.length;
  }
  ArrayPrototypePush(out, StringPrototypeSlice(text, at));
  return out;
}

/** Every match of a global regexp replaced by `replace(match)`, without Symbol.replace. */
export function stringReplaceAll(text: string, pattern: RegExp, replace: (match: string) => string): string {
  // `pattern` must carry the g flag (its own literal, never a program's regexp).
  pattern.lastIndex = 0;
  let out = '';
  let at = 0;
  for (;;) {
    const match = RegExpPrototypeExec(pattern, text);
    if (match === null) break;
    const found = match[0];
    out += StringPrototypeSlice(text, at, match.index) + replace(found);
    at = match.index + found.length;
    if (found.length === 0) pattern.lastIndex++;
  }
  pattern.lastIndex = 0;
  return out + StringPrototypeSlice(text, at);
}

export const EncodeURIComponent = encodeURIComponent;
export const DecodeURIComponent = decodeURIComponent;
const NativeDateNow = Date.now;
let clockSource: () => number = NativeDateNow;
/** The run's clock: the runner's journalled one once the prelude has wired it (./clock.ts). */
export const DateNow = (): number => clockSource();
export function setClockSource(source: () => number): void {
  clockSource = source;
}

// --- Numbers and Math -----------------------------------------------------------------
export const NumberIsFinite = Number.isFinite;
export const NumberIsInteger = Number.isInteger;
export const NumberIsNaN = Number.isNaN;
export const MathCeil = Math.ceil;
export const MathFloor = Math.floor;
export const MathImul = Math.imul;
export const MathMax = Math.max;
export const MathMin = Math.min;
export const MathAbs = Math.abs;

/** A whole, non-negative, finite fuel amount (anything else counts as `fallback`). */
export function fuelUnits(value: unknown, fallback = 0): number {
  if (typeof value !== 'number' || !NumberIsFinite(value) || value < 0) return fallback;
  return MathCeil(value);
}

// --- JSON -----------------------------------------------------------------------------
export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
/** A JSON string literal; for strings only (a string has no toJSON to consult). */
export function jsonQuote(text: string): string {
  return JSONStringify(text);
}

// --- Errors, promises -----------------------------------------------------------------
export const Error_ = Error;
export const TypeError_ = TypeError;
export const RangeError_ = RangeError;
export const PromiseCtor = Promise;
export const PromiseResolve = FunctionPrototypeBind(Promise.resolve, Promise) as <T>(value: T) => Promise<Awaited<T>>;
export const PromisePrototypeThen = uncurryThis(Promise.prototype.then) as <T>(promise: Promise<T>, onFulfilled: (value: T) => unknown, onRejected: (reason: unknown) => unknown) => Promise<unknown>;

// --- Collections with their methods copied onto frozen prototypes ----------------------
// Each class copies its built-in's methods when it is first constructed: most contexts
// construct none or one of them, and the copies were about 7 % of the prelude
// (bench/PROFILE.md). The first construction may come after a program replaced those
// methods, so what is copied is captured here, before any program ran (one call each).

/**
 * A built-in prototype's own keys and their descriptors, side by side, until they are copied
 * (then null). Not one object keyed by property (Object.getOwnPropertyDescriptors): that
 * object, with its `constructor` deleted, was a dictionary built anew in every context, its
 * map transitions too, for four prototypes most runs never copy (bench/PROFILE.md, round 65).
 */
interface PendingCopy {
  keys: PropertyKey[];
  descriptors: PropertyDescriptor[] | null;
}

function captureMethods(unsafe: { prototype: object }): PendingCopy {
  const prototype = unsafe.prototype;
  const keys = ReflectOwnKeys(prototype);
  const descriptors: PropertyDescriptor[] = [];
  for (let i = 0; i < keys.length; i++) descriptors[i] = ObjectGetOwnPropertyDescriptor(prototype, keys[i])!;
  return { keys, descriptors };
}

/** Copies the captured methods (not `constructor`) onto `safe`'s prototype and freezes both, on the first call. */
function copyOnce(safe: { prototype: object }, pending: PendingCopy): void {
  const { keys, descriptors } = pending;
  if (descriptors === null) return;
  pending.descriptors = null;
  // ReflectDefineProperty copies each descriptor's own fields once a program may have run.
  for (let i = 0; i < keys.length; i++) if (keys[i] !== 'constructor') ReflectDefineProperty(safe.prototype, keys[i], descriptors[i]);
  ObjectFreeze(safe.prototype);
  ObjectFreeze(safe);
}

const mapMethods = captureMethods(Map);
const setMethods = captureMethods(Set);
const weakMapMethods = captureMethods(WeakMap);
const weakSetMethods = captureMethods(WeakSet);
// Explicit empty constructors: V8's default derived constructor spreads its arguments
// through the (patchable) array iterator. These collections always start empty.
export const SafeMap = class SafeMap<K, V> extends Map<K, V> {
  constructor() {
    super();
    copyOnce(SafeMap, mapMethods);
  }
};
export const SafeSet = class SafeSet<T> extends Set<T> {
  constructor() {
    super();
    copyOnce(SafeSet, setMethods);
  }
};
export const SafeWeakMap = class SafeWeakMap<K extends object, V> extends WeakMap<K, V> {
  constructor() {
    super();
    copyOnce(SafeWeakMap, weakMapMethods);
  }
};
export const SafeWeakSet = class SafeWeakSet<T extends object> extends WeakSet<T> {
  constructor() {
    super();
    copyOnce(SafeWeakSet, weakSetMethods);
  }
};

/** A value made by `make` on the first call, then the same one (a collection most contexts never use). */
export function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made === undefined ? (made = make()) : made);
}
export type SafeMap<K, V> = Map<K, V>;
export type SafeSet<T> = Set<T>;
export type SafeWeakMap<K extends object, V> = WeakMap<K, V>;
export type SafeWeakSet<T extends object> = WeakSet<T>;
export const MapPrototypeGet = uncurryThis(Map.prototype.get);
export const MapPrototypeHas = uncurryThis(Map.prototype.has);
export const MapPrototypeSet = uncurryThis(Map.prototype.set);
export const MapPrototypeForEach = uncurryThis(Map.prototype.forEach);
export const MapPrototypeGetSize = getter(Map.prototype, 'size') as (map: Map<unknown, unknown>) => number;
export const SetPrototypeHas = uncurryThis(Set.prototype.has);
export const SetPrototypeForEach = uncurryThis(Set.prototype.forEach);
export const Map_ = Map;
export const Set_ = Set;
export const WeakMap_ = WeakMap;
export const WeakSet_ = WeakSet;

/** Brand checks that a program cannot fake with Symbol.hasInstance or a prototype swap. */
export function isMap(value: unknown): value is Map<unknown, unknown> {
  try {
    MapPrototypeGetSize(value as Map<unknown, unknown>);
    return true;
  } catch {
    return false;
  }
}
const SetPrototypeGetSize = getter(Set.prototype, 'size') as (set: Set<unknown>) => number;
export function isSet(value: unknown): value is Set<unknown> {
  try {
    SetPrototypeGetSize(value as Set<unknown>);
    return true;
  } catch {
    return false;
  }
}
const WeakMapPrototypeHas = uncurryThis(WeakMap.prototype.has);
const WeakSetPrototypeHas = uncurryThis(WeakSet.prototype.has);
export function isWeakMap(value: unknown): boolean {
  try {
    WeakMapPrototypeHas(value as WeakMap<object, unknown>, {});
    return true;
  } catch {
    return false;
  }
}
export function isWeakSet(value: unknown): boolean {
  try {
    WeakSetPrototypeHas(value as WeakSet<object>, {});
    return true;
  } catch {
    return false;
  }
}
/** A promise by its tag (calling `then` to test would run the program's species lookup). */
export function isPromise(value: unknown): boolean {
  return value !== null && typeof value === 'object' && ObjectPrototypeToString(value) === '[object Promise]';
}
export const Date_ = Date;
export const DatePrototypeGetTime = uncurryThis(Date.prototype.getTime);
export const DatePrototypeToISOString = uncurryThis(Date.prototype.toISOString);
export function isDate(value: unknown): value is Date {
  try {
    DatePrototypeGetTime(value as Date);
    return true;
  } catch {
    return false;
  }
}
const ErrorPrototype = Error.prototype;
/** V8 marks real errors (`[object Error]` without a forged Symbol.toStringTag). */
export function isErrorLike(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  let proto = ObjectGetPrototypeOf(value);
  for (let depth = 0; proto !== null && depth < 64; depth++) {
    if (proto === ErrorPrototype) return true;
    proto = ObjectGetPrototypeOf(proto);
  }
  return false;
}

// --- What lazily evaluated modules read at their top level -----------------------------
// The web classes (./web/platform.ts) are evaluated the first time a program touches one,
// after the program may have replaced any built-in: whatever their module bodies read
// when they are evaluated comes from here, captured before the program runs.
export const SymbolCtor = Symbol;
export const SymbolToStringTag: typeof Symbol.toStringTag = Symbol.toStringTag;
export const ObjectGetOwnPropertyDescriptors = Object.getOwnPropertyDescriptors;
export const Object_ = Object;
export const Array_ = Array;
export const RegExp_ = RegExp;
export const BooleanPrototypeValueOf = uncurryThis(Boolean.prototype.valueOf);
export const NumberPrototypeValueOf = uncurryThis(Number.prototype.valueOf);
export const StringPrototypeValueOf = uncurryThis(String.prototype.valueOf);
export const BigIntPrototypeValueOf = uncurryThis(BigInt.prototype.valueOf);
export const SymbolPrototypeValueOf = uncurryThis(Symbol.prototype.valueOf);
export const RegExpPrototypeGetSource = uncurryThis(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')!.get!) as (regexp: RegExp) => string;
export const RegExpPrototypeGetFlags = uncurryThis(Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags')!.get!) as (regexp: RegExp) => string;
export const SetPrototypeAdd = uncurryThis(Set.prototype.add) as <T>(set: Set<T>, value: T) => Set<T>;
/** The error classes structuredClone recreates, by name. */
export const ErrorClasses: Readonly<Record<string, ErrorConstructor>> = Object.freeze({ Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError });
/** The typed array classes, by name (a view's kind). */
export const TypedArrayConstructors: Readonly<Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView>> = Object.freeze({
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array,
});
/** %IteratorPrototype% and %AsyncIteratorPrototype%, reached through syntax only. */
export const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(function* () {}).prototype) as object;
export const AsyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype) as object;
/** %ArrayIteratorPrototype% (taken from an iterator made here, before any program ran). */
export const ArrayIteratorPrototype = Object.getPrototypeOf([][Symbol.iterator]()) as object;

// --- Proxy ----------------------------------------------------------------------------
export const Proxy_ = Proxy;
export const ObjectPreventExtensions = Object.preventExtensions;

// --- Bytes ----------------------------------------------------------------------------
export const Uint8Array_ = Uint8Array;
export const ArrayBuffer_ = ArrayBuffer;
export const DataView_ = DataView;
const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype) as object;
export const TypedArrayPrototypeGetLength = getter(TypedArrayPrototype, 'length') as (view: ArrayBufferView) => number;
export const TypedArrayPrototypeGetByteLength = getter(TypedArrayPrototype, 'byteLength') as (view: ArrayBufferView) => number;
export const TypedArrayPrototypeGetByteOffset = getter(TypedArrayPrototype, 'byteOffset') as (view: ArrayBufferView) => number;
export const TypedArrayPrototypeGetBuffer = getter(TypedArrayPrototype, 'buffer') as (view: ArrayBufferView) => ArrayBuffer;
export const TypedArrayPrototypeGetSymbolToStringTag = getter(TypedArrayPrototype, Symbol.toStringTag) as (value: unknown) => string | undefined;
export const TypedArrayPrototypeSet = uncurryThis(Uint8Array.prototype.set) as (target: Uint8Array, source: ArrayLike<number>, offset?: number) => void;
export const DataViewPrototypeGetBuffer = getter(DataView.prototype, 'buffer') as (view: DataView) => ArrayBuffer;
export const DataViewPrototypeGetByteLength = getter(DataView.prototype, 'byteLength') as (view: DataView) => number;
export const DataViewPrototypeGetByteOffset = getter(DataView.prototype, 'byteOffset') as (view: DataView) => number;
export const ArrayBufferPrototypeGetByteLength = getter(ArrayBuffer.prototype, 'byteLength') as (buffer: ArrayBuffer) => number;
export const ArrayBufferIsView = ArrayBuffer.isView;

/** A real Uint8Array (not a look-alike, not another typed array). */
export function isUint8Array(value: unknown): value is Uint8Array {
  return TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8Array';
}
/** Any real typed array: its kind (`Float64Array`, ...) or undefined. */
export function typedArrayKind(value: unknown): string | undefined {
  return TypedArrayPrototypeGetSymbolToStringTag(value);
}
export function isDataView(value: unknown): value is DataView {
  try {
    DataViewPrototypeGetByteLength(value as DataView);
    return true;
  } catch {
    return false;
  }
}
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  try {
    ArrayBufferPrototypeGetByteLength(value as ArrayBuffer);
    return true;
  } catch {
    return false;
  }
}
/** An independent copy of a Uint8Array's bytes (no species, no iterator). */
export function bytesCopy(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array_(TypedArrayPrototypeGetLength(bytes));
  TypedArrayPrototypeSet(copy, bytes);
  return copy;
}
/** One Uint8Array holding the parts in order. */
export function bytesConcat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (let i = 0; i < parts.length; i++) size += TypedArrayPrototypeGetLength(parts[i]);
  const all = new Uint8Array_(size);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    TypedArrayPrototypeSet(all, parts[i], at);
    at += TypedArrayPrototypeGetLength(parts[i]);
  }
  return all;
}
