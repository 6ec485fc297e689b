// The boundary between principals (the program and each Package) sharing one isolate.
//
// Values cross it in two directions, and each direction has one rule:
// - Into a Package (arguments of any call through a handle, values a holder stores into a
//   Package's object, `this` a holder forges for a method, what a callback returns) a value is
//   copied into fresh plain data: a caller's getter, Proxy or toJSON runs once, during the
//   copy, inside the caller's boundary frame, never between a Package's check and its effect;
//   a function becomes a guarded callback that runs as its supplier's (callbackBoundary).
// - Out of a Package, to a holder (namespace values, results, a callback's arguments) a
//   function or object becomes a handle: a view that holder owns. Calling a handle, however it
//   is reached (a direct call, `bind`, `call`/`apply`, a getter, a coercion through
//   `toString`/`valueOf`/`Symbol.toPrimitive`, a sort comparator, a promise reaction, a
//   thenable, a Proxy trap, a JSON replacer), runs the Package inside an entry boundary frame
//   that names the holder (attribution.ts), so the Package's `check()` speaks for whoever
//   obtained the handle, weighed against whoever invoked it. Reading a handle's properties
//   gives handles again (methods bound to the object they were read from), so the holder never
//   holds a Package function itself: there is nothing it can hand to another Package that
//   would run without its name on it.
//
// Views are Proxies over fresh shadow targets (never the Package's frozen objects), so a
// view can answer handles where the object itself holds frozen functions; each view is
// made once per (value, holder). Data without code (dates, regular expressions, byte
// buffers) and the frozen built-ins pass as they are.
import {
  ArrayIsArray,
  ArrayPrototypePush,
  ArrayBuffer_,
  ArrayBufferIsView,
  bytesCopy,
  Date_,
  DatePrototypeGetTime,
  isArrayBuffer,
  isDate,
  isMap,
  isPromise,
  isSet,
  isUint8Array,
  isWeakMap,
  isWeakSet,
  Map_,
  MapPrototypeForEach,
  MapPrototypeSet,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyNames,
  ObjectKeys,
  ObjectPrototype,
  ObjectPrototypeHasOwnProperty,
  ObjectPrototypeToString,
  PromisePrototypeThen,
  Proxy_,
  RangeError_,
  ReflectApply,
  ReflectConstruct,
  ReflectDefineProperty,
  ReflectDeleteProperty,
  ReflectGet,
  ReflectGetOwnPropertyDescriptor,
  ReflectGetPrototypeOf,
  ReflectHas,
  ReflectOwnKeys,
  ReflectSet,
  SafeMap,
  onFirstUse,
  SafeWeakMap,
  Set_,
  SetPrototypeForEach,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeSet,
  TypeError_,
  Uint8Array_,
} from './primordials';
import { frozenIntrinsics, isObject } from './lockdown';
import { callbackBoundary, entryBoundary } from './attribution';

/** Charges the run's fuel for work done at the boundary. */
export type Charge = (units: number) => void;
type AnyFunction = (...args: unknown[]) => unknown;

const MAX_COPY_DEPTH = 256;
const SymbolHasInstance = Symbol.hasInstance;
const FunctionPrototypeHasInstance = Function.prototype[Symbol.hasInstance] as (this: unknown, value: unknown) => boolean;

/**
 * A caller's value as fresh data owned by nobody else: primitives as they are; arrays and
 * plain objects (own enumerable string keys, each read once) rebuilt; Date, Map, Set,
 * Uint8Array and ArrayBuffer copied; functions guarded as `supplier`'s callbacks; cycles
 * kept. Prototypes of other objects are not kept (a class instance arrives as its own data).
 */
export function copyIn(value: unknown, charge: Charge, supplier: string): unknown {
  const copies = new SafeMap<object, unknown>();
  const copy = (value: unknown, depth: number): unknown => {
    if (!isObject(value)) return value;
    // A handle of a Package's object is copied from the object itself (a Map stays a Map); a handle of a function stays a handle.
    const behind = typeof value === 'function' ? undefined : viewed().get(value);
    const v = behind === undefined ? value : behind.real;
    const known = copies.get(v);
    if (known !== undefined) return known;
    if (depth > MAX_COPY_DEPTH) throw new RangeError_(`a value passed to a Package is nested more than ${MAX_COPY_DEPTH} levels deep`);
    charge(1);
    if (typeof v === 'function') {
      const guarded = guardCallback(v as AnyFunction, charge, supplier);
      copies.set(v, guarded);
      return guarded;
    }
    if (isPromise(v)) {
      // An async callback's promise: the Package awaits a copy of what it settles with.
      let settled: unknown;
      try {
        settled = PromisePrototypeThen(v as Promise<unknown>, (value: unknown) => copyIn(value, charge, supplier), (reason: unknown) => {
          throw reason;
        });
      } catch {
        settled = undefined;
      }
      if (settled !== undefined) {
        copies.set(v, settled);
        return settled;
      }
    }
    if (isDate(v)) {
      const date = new Date_(DatePrototypeGetTime(v));
      copies.set(v, date);
      return date;
    }
    if (isUint8Array(v)) {
      const bytes = bytesCopy(v);
      copies.set(v, bytes);
      return bytes;
    }
    if (isArrayBuffer(v)) {
      const view = new Uint8Array_(v);
      const buffer = new ArrayBuffer_(TypedArrayPrototypeGetByteLength(view));
      TypedArrayPrototypeSet(new Uint8Array_(buffer), view);
      copies.set(v, buffer);
      return buffer;
    }
    if (isMap(v)) {
      const map = new Map_();
      copies.set(v, map);
      MapPrototypeForEach(v as Map<unknown, unknown>, (item: unknown, key: unknown) => MapPrototypeSet(map, copy(key, depth + 1), copy(item, depth + 1)));
      return map;
    }
    if (isSet(v)) {
      const set = new Set_();
      copies.set(v, set);
      SetPrototypeForEach(v as Set<unknown>, (item: unknown) => set.add(copy(item, depth + 1)));
      return set;
    }
    if (ArrayIsArray(v)) {
      const list: unknown[] = [];
      copies.set(v, list);
      const length = (v as unknown[]).length;
      for (let i = 0; i < length; i++) {
        charge(1);
        ArrayPrototypePush(list, copy((v as unknown[])[i], depth + 1));
      }
      return list;
    }
    const object = ObjectCreate(ObjectPrototype) as Record<string, unknown>;
    copies.set(v, object);
    const keys = ObjectKeys(v);
    for (let i = 0; i < keys.length; i++) {
      charge(1);
      ObjectDefineProperty(object, keys[i], { value: copy((v as Record<string, unknown>)[keys[i]], depth + 1), writable: true, enumerable: true, configurable: true });
    }
    return object;
  };
  return copy(value, 0);
}

function copyArguments(args: readonly unknown[], charge: Charge, supplier: string): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < args.length; i++) ArrayPrototypePush(out, copyIn(args[i], charge, supplier));
  return out;
}

/**
 * A caller's function as a Package receives it: it runs as its supplier's (see
 * callbackBoundary), what the Package passes it arrives as the supplier's handles, and what
 * it returns is copied.
 */
function guardCallback(fn: AnyFunction, charge: Charge, supplier: string): unknown {
  const handler = ObjectCreate(null) as ProxyHandler<AnyFunction>;
  handler.apply = (target, self, args) =>
    callbackBoundary(supplier, () => copyIn(ReflectApply(target, expose(self, supplier, charge), exposeAll(args, supplier, charge)), charge, supplier));
  let guarded: unknown;
  handler.construct = (target, args, newTarget) =>
    callbackBoundary(supplier, () =>
      ReflectConstruct(target as unknown as new (...a: unknown[]) => object, exposeAll(args, supplier, charge), newTarget === guarded ? target : newTarget),
    ) as object;
  guarded = new Proxy_(fn, ObjectFreeze(handler));
  return guarded;
}

// --- handles ---------------------------------------------------------------------------

/** What a view stands for. */
interface Viewed {
  real: object;
  /** A method's object (its `this` unless the call names another of the holder's views). */
  self: object | undefined;
}

const viewed = onFirstUse(() => new SafeWeakMap<object, Viewed>());
/** True for a handle made here (already as frozen as it can be: hardening skips it). */
export function isView(value: object): boolean {
  return viewed().has(value);
}

/** One holder's views: of each value, and of each method per object it was read from. */
interface HolderViews {
  values: SafeWeakMap<object, object>;
  methods: SafeWeakMap<object, SafeWeakMap<object, object>>;
}
const viewsByHolder = onFirstUse(() => new SafeMap<string, HolderViews>());

/** Tags of built-in objects whose methods need the real object as `this`. */
const SLOTTED_TAGS = ['[object Map Iterator]', '[object Set Iterator]', '[object Array Iterator]', '[object String Iterator]', '[object RegExp String Iterator]', '[object Generator]', '[object AsyncGenerator]'];

function cacheOf(holder: string): HolderViews {
  let cache = viewsByHolder().get(holder);
  if (cache === undefined) {
    cache = { values: new SafeWeakMap<object, object>(), methods: new SafeWeakMap<object, SafeWeakMap<object, object>>() };
    viewsByHolder().set(holder, cache);
  }
  return cache;
}

/** Data that holds no code and whose methods need the real object: passed as it is. */
function isPlainData(value: object): boolean {
  return isDate(value) || ArrayBufferIsView(value) || isArrayBuffer(value) || ObjectPrototypeToString(value) === '[object RegExp]';
}

function needsRealThis(value: object): boolean {
  if (isMap(value) || isSet(value) || isWeakMap(value) || isWeakSet(value)) return true;
  const tag = ObjectPrototypeToString(value);
  for (let i = 0; i < SLOTTED_TAGS.length; i++) if (SLOTTED_TAGS[i] === tag) return true;
  return false;
}

function exposeAll(args: readonly unknown[], holder: string, charge: Charge): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < args.length; i++) ArrayPrototypePush(out, expose(args[i], holder, charge));
  return out;
}

/**
 * A Package's value as `holder` receives it: primitives, frozen built-ins and plain data as
 * they are; a promise as a promise of the exposed value; any other function or object as
 * the holder's view (another holder's view is re-made for this one).
 */
export function expose(value: unknown, holder: string, charge: Charge): unknown {
  if (!isObject(value) || frozenIntrinsics().has(value)) return value;
  const known = viewed().get(value);
  if (known !== undefined) {
    if (known.self !== undefined) return methodView(known.real as AnyFunction, known.self, holder, charge);
    return expose(known.real, holder, charge);
  }
  const cache = cacheOf(holder);
  const existing = cache.values.get(value);
  if (existing !== undefined) return existing;
  if (isPromise(value))
    return PromisePrototypeThen(
      value as Promise<unknown>,
      (settled: unknown) => expose(settled, holder, charge),
      (reason: unknown) => {
        throw reason;
      },
    );
  if (typeof value !== 'function' && isPlainData(value)) return value;
  const view = makeView(value, undefined, holder, charge);
  cache.values.set(value, view);
  return view;
}

/** `fn` read from `self` (an object or a class), as the holder's handle. */
function methodView(fn: AnyFunction, self: object, holder: string, charge: Charge): unknown {
  const cache = cacheOf(holder);
  let perObject = cache.methods.get(self);
  if (perObject === undefined) {
    perObject = new SafeWeakMap<object, object>();
    cache.methods.set(self, perObject);
  }
  const existing = perObject.get(fn);
  if (existing !== undefined) return existing;
  const view = makeView(fn, self, holder, charge);
  perObject.set(fn, view);
  return view;
}

/** A property value read through a view of `real`. */
function exposeProperty(value: unknown, real: object, holder: string, charge: Charge): unknown {
  // Not a function, or one of another holder's handles (re-made for this holder as it stands).
  if (typeof value !== 'function' || viewed().has(value)) return expose(value, holder, charge);
  // A built-in's method reads the real object's internal slots; others are generic (a view as `this` works).
  if (frozenIntrinsics().has(value)) return needsRealThis(real) ? methodView(value as AnyFunction, real, holder, charge) : value;
  return methodView(value as AnyFunction, real, holder, charge);
}

/** A descriptor of `real` as the view reports it: configurable (the shadow does not hold it), values exposed. */
function exposeDescriptor(descriptor: PropertyDescriptor, real: object, holder: string, charge: Charge): PropertyDescriptor {
  const out = ObjectCreate(null) as PropertyDescriptor;
  if (ObjectPrototypeHasOwnProperty(descriptor, 'value')) {
    out.value = exposeProperty(descriptor.value, real, holder, charge);
    out.writable = descriptor.writable;
  } else {
    out.get = descriptor.get === undefined ? undefined : (methodView(descriptor.get as AnyFunction, real, holder, charge) as () => unknown);
    out.set = descriptor.set === undefined ? undefined : (methodView(descriptor.set as AnyFunction, real, holder, charge) as (v: unknown) => void);
  }
  out.enumerable = descriptor.enumerable;
  out.configurable = true;
  return out;
}

/** What the holder stores into a Package's object: copied, functions as its callbacks. */
function copyDescriptor(descriptor: PropertyDescriptor, holder: string, charge: Charge): PropertyDescriptor {
  const out = ObjectCreate(null) as PropertyDescriptor;
  if (ObjectPrototypeHasOwnProperty(descriptor, 'value')) out.value = copyIn(descriptor.value, charge, holder);
  if (ObjectPrototypeHasOwnProperty(descriptor, 'get')) out.get = copyIn(descriptor.get, charge, holder) as () => unknown;
  if (ObjectPrototypeHasOwnProperty(descriptor, 'set')) out.set = copyIn(descriptor.set, charge, holder) as (v: unknown) => void;
  if (ObjectPrototypeHasOwnProperty(descriptor, 'writable')) out.writable = descriptor.writable;
  if (ObjectPrototypeHasOwnProperty(descriptor, 'enumerable')) out.enumerable = descriptor.enumerable;
  if (ObjectPrototypeHasOwnProperty(descriptor, 'configurable')) out.configurable = descriptor.configurable;
  return out;
}

/**
 * A `this` the holder forged for a Package's method, as fresh data: every own string-keyed
 * property (enumerable or not: a method reads what it likes) read once, inside the holder's
 * entry boundary, and copied.
 */
function copyThis(given: unknown, charge: Charge, holder: string): unknown {
  if (!isObject(given) || typeof given === 'function' || ArrayIsArray(given)) return copyIn(given, charge, holder);
  const out = ObjectCreate(ObjectPrototype) as Record<string, unknown>;
  const names = ObjectGetOwnPropertyNames(given);
  for (let i = 0; i < names.length; i++) {
    charge(1);
    ObjectDefineProperty(out, names[i], { value: copyIn((given as Record<string, unknown>)[names[i]], charge, holder), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/** True when `ancestor` is `object` or on its prototype chain (a bounded walk). */
function inherits(object: object, ancestor: object): boolean {
  let at: unknown = object;
  for (let i = 0; i < 64 && isObject(at); i++) {
    if (at === ancestor) return true;
    at = ReflectGetPrototypeOf(at);
  }
  return false;
}

/** `x instanceof view`: answered for the real function, with a view's real object (a Package's error, thrown as it is, passes too). */
function hasInstanceOf(real: object): (value: unknown) => boolean {
  return ObjectFreeze((value: unknown) => {
    const behind = isObject(value) ? viewed().get(value) : undefined;
    return ReflectApply(FunctionPrototypeHasInstance, real, [behind === undefined ? value : behind.real]) as boolean;
  });
}

/** A fresh, empty, extensible target of the right kind (callable and constructible, an array, or an object). */
function shadowOf(real: object): object {
  if (typeof real === 'function') {
    // Strict, so the shadow has no own `arguments` or `caller` (non-configurable slots a view could not report).
    if (ObjectPrototypeHasOwnProperty(real, 'prototype'))
      return function () {
        'use strict';
      };
    // eslint-disable-next-line @typescript-eslint/no-empty-function
    return () => {};
  }
  return ArrayIsArray(real) ? [] : ObjectCreate(null);
}

function makeView(real: object, self: object | undefined, holder: string, charge: Charge): object {
  const shadow = shadowOf(real);
  const handler = ObjectCreate(null) as ProxyHandler<object>;
  let view: object;
  /** `this` of a call through the view: the real object behind one of the holder's views, a method's own object, or a forged one copied. */
  const thisFor = (given: unknown): unknown => {
    if (self === undefined) return undefined;
    if (given === undefined || given === view) return self;
    if (isObject(given)) {
      // The real object behind the holder's view, when the method is its own or inherited:
      // another object (another Package's) reaches the method only as a copy.
      const behind = viewed().get(given);
      if (behind !== undefined && behind.self === undefined && inherits(behind.real, self)) return behind.real;
    }
    return copyThis(given, charge, holder);
  };
  if (typeof real === 'function') {
    handler.apply = (_shadow, given, args) =>
      entryBoundary(holder, () => {
        const copied = copyArguments(args, charge, holder);
        return expose(ReflectApply(real as AnyFunction, thisFor(given), copied), holder, charge);
      });
    handler.construct = (_shadow, args, newTarget) =>
      entryBoundary(holder, () => {
        // A subclass would see the Package's object itself as its `this`, with whatever functions it holds.
        if (newTarget !== view) throw new TypeError_(`a class of a Package cannot be extended by another principal (${holder}): use an instance instead`);
        return expose(ReflectConstruct(real as new (...a: unknown[]) => object, copyArguments(args, charge, holder), real), holder, charge);
      }) as object;
  }
  let hasInstance: ((value: unknown) => boolean) | null = null;
  handler.get = (_shadow, key) => {
    if (key === SymbolHasInstance && typeof real === 'function') {
      if (hasInstance === null) hasInstance = hasInstanceOf(real);
      return hasInstance;
    }
    // A getter is the Package's code run for the holder, like a call.
    return entryBoundary(holder, () => exposeProperty(ReflectGet(real, key, real), real, holder, charge));
  };
  handler.getOwnPropertyDescriptor = (target, key) => {
    const descriptor = ReflectGetOwnPropertyDescriptor(real, key);
    const pinned = ReflectGetOwnPropertyDescriptor(target, key);
    if (pinned !== undefined && pinned.configurable === false) {
      // The shadow's own non-configurable slot (a function's prototype, an array's length): reported as the shadow holds it, with the real value.
      const out = ObjectCreate(null) as PropertyDescriptor;
      out.value = descriptor !== undefined && ObjectPrototypeHasOwnProperty(descriptor, 'value') ? exposeProperty(descriptor.value, real, holder, charge) : undefined;
      out.writable = true;
      out.enumerable = pinned.enumerable;
      out.configurable = false;
      return out;
    }
    return descriptor === undefined ? undefined : exposeDescriptor(descriptor, real, holder, charge);
  };
  handler.ownKeys = () => ReflectOwnKeys(real);
  handler.has = (_shadow, key) => ReflectHas(real, key);
  handler.getPrototypeOf = () => expose(ReflectGetPrototypeOf(real), holder, charge) as object | null;
  handler.set = (_shadow, key, value) => entryBoundary(holder, () => ReflectSet(real, key, copyIn(value, charge, holder), real)) as boolean;
  handler.defineProperty = (_shadow, key, descriptor) => ReflectDefineProperty(real, key, copyDescriptor(descriptor, holder, charge));
  handler.deleteProperty = (_shadow, key) => ReflectDeleteProperty(real, key);
  // The shadow stays extensible and prototype-less: the view cannot be frozen or re-parented.
  handler.preventExtensions = () => false;
  handler.setPrototypeOf = () => false;
  view = new Proxy_(shadow, ObjectFreeze(handler));
  viewed().set(view, { real, self });
  return view;
}
