// Loading a run's Packages and the boundary between them and their callers. Each
// Package's unit is evaluated once, in dependency order, after lockdown; what it exports
// is hardened (frozen, with everything reachable from it) and every exported function or
// class is reached through a guard that copies the arguments into fresh plain data before
// the Package sees them. A caller's getter, Proxy or toJSON runs once, during the copy,
// never between a Package's check and its effect; a callback the caller passes is guarded
// the same way in the other direction (its result is copied).
import {
  ArrayIsArray,
  ArrayPrototypePush,
  ArrayBuffer_,
  bytesCopy,
  Date_,
  DatePrototypeGetTime,
  isArrayBuffer,
  isDate,
  isMap,
  isSet,
  isUint8Array,
  Map_,
  MapPrototypeForEach,
  MapPrototypeSet,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectKeys,
  ObjectPrototype,
  ObjectPrototypeToString,
  own,
  PromisePrototypeThen,
  Proxy_,
  RangeError_,
  ReflectApply,
  ReflectConstruct,
  SafeMap,
  SafeWeakMap,
  SafeWeakSet,
  Set_,
  SetPrototypeForEach,
  String_,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeSet,
  Uint8Array_,
} from './primordials';
import { frozenIntrinsics, isObject, pushNeighbours } from './lockdown';
import { attribute, callbackBoundary } from './attribution';

type Unit = (require: (name: string) => unknown, module: { exports: Record<string, unknown> }, exports: Record<string, unknown>) => void;

/** What the runner's spec says of one Package. */
export interface PackageSpec {
  name: string;
  filename: string;
  imports: string[];
}

const MAX_COPY_DEPTH = 256;
const hardened = new SafeWeakSet<object>();

/** Freezes `root` and everything reachable from it (own properties, accessors, prototypes). */
export function harden(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!isObject(value) || hardened.has(value) || frozenIntrinsics.has(value)) continue;
    hardened.add(value);
    ObjectFreeze(value);
    pushNeighbours(value, stack);
  }
}

/**
 * A caller's value as fresh data owned by nobody else: primitives as they are; arrays and
 * plain objects (own enumerable string keys, each read once) rebuilt; Date, Map, Set,
 * Uint8Array and ArrayBuffer copied; functions guarded; cycles kept. Prototypes of other
 * objects are not kept (a class instance arrives as its own data).
 */
export function copyIn(value: unknown, charge: (units: number) => void, supplier: () => string): unknown {
  const copies = new SafeMap<object, unknown>();
  const copy = (v: unknown, depth: number): unknown => {
    if (!isObject(v)) return v;
    const known = copies.get(v);
    if (known !== undefined) return known;
    if (depth > MAX_COPY_DEPTH) throw new RangeError_(`a value passed to a Package is nested more than ${MAX_COPY_DEPTH} levels deep`);
    charge(1);
    if (typeof v === 'function') {
      const guarded = guardCallback(v as (...args: unknown[]) => unknown, charge, supplier());
      copies.set(v, guarded);
      return guarded;
    }
    if (ObjectPrototypeToString(v) === '[object Promise]') {
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

/** Who called an export: the principal of the innermost code frame ('' when none). Asked only when a function is passed. */
function exportCaller(): () => string {
  let known: string | null = null;
  return () => {
    if (known === null) known = attribute().caller ?? '';
    return known;
  };
}

function copyArguments(args: readonly unknown[], charge: (units: number) => void): unknown[] {
  const out: unknown[] = [];
  const supplier = exportCaller();
  for (let i = 0; i < args.length; i++) ArrayPrototypePush(out, copyIn(args[i], charge, supplier));
  return out;
}

const guards = new SafeWeakMap<object, unknown>();

/**
 * A caller's function as a Package receives it: it runs as its supplier's (see
 * callbackBoundary), and what it returns is copied.
 */
function guardCallback(fn: (...args: unknown[]) => unknown, charge: (units: number) => void, supplier: string): unknown {
  const handler = ObjectCreate(null) as ProxyHandler<(...args: unknown[]) => unknown>;
  const from = () => supplier;
  handler.apply = (target, self, args) => callbackBoundary(supplier, () => copyIn(ReflectApply(target, self, args), charge, from));
  let guarded: unknown;
  handler.construct = (target, args, newTarget) =>
    callbackBoundary(supplier, () => ReflectConstruct(target as unknown as new (...a: unknown[]) => object, args, newTarget === guarded ? target : newTarget)) as object;
  guarded = new Proxy_(fn, ObjectFreeze(handler));
  return guarded;
}

/** An exported function or class as callers reach it: arguments copied in, `this` dropped for calls. */
function guardExport(fn: (...args: unknown[]) => unknown, charge: (units: number) => void): unknown {
  const existing = guards.get(fn);
  if (existing !== undefined) return existing;
  const handler = ObjectCreate(null) as ProxyHandler<(...args: unknown[]) => unknown>;
  let guarded: unknown;
  handler.apply = (target, _self, args) => ReflectApply(target, undefined, copyArguments(args, charge));
  handler.construct = (target, args, newTarget) => ReflectConstruct(target as unknown as new (...a: unknown[]) => object, copyArguments(args, charge), newTarget === guarded ? target : newTarget);
  guarded = new Proxy_(fn, ObjectFreeze(handler));
  guards.set(fn, guarded);
  return guarded;
}

/** A frozen, prototype-less namespace of a Package's exports, each function guarded. */
function namespaceOf(exports: Record<string, unknown>, charge: (units: number) => void): Record<string, unknown> {
  const namespace = ObjectCreate(null) as Record<string, unknown>;
  const keys = ObjectKeys(exports);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__esModule') continue;
    const value = exports[key];
    harden(value);
    ObjectDefineProperty(namespace, key, { value: typeof value === 'function' ? guardExport(value as (...args: unknown[]) => unknown, charge) : value, enumerable: true });
  }
  return ObjectFreeze(namespace);
}

/**
 * Evaluates the Packages in order (dependencies first) and returns their namespaces by
 * name. `units` are the compiled Packages' unit functions; `hostModule` answers `svc:`
 * imports. A Package may import only the Packages its spec lists.
 */
export function loadPackages(
  specs: readonly PackageSpec[],
  units: readonly Unit[],
  hostModule: (name: string, owner: string) => unknown,
  charge: (units: number) => void,
): Map<string, Record<string, unknown>> {
  const loaded = new SafeMap<string, Record<string, unknown>>();
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i];
    const imports = spec.imports;
    const require = (name: string) => {
      if (typeof name === 'string' && name.length > 4 && name[0] === 's' && name[1] === 'v' && name[2] === 'c' && name[3] === ':') return hostModule(name, spec.name);
      for (let k = 0; k < imports.length; k++) {
        if (imports[k] === name) {
          const namespace = loaded.get(name);
          if (namespace !== undefined) return namespace;
        }
      }
      throw new Error(`module ${String_(name)} is not available to ${spec.name}`);
    };
    const module = { exports: ObjectCreate(ObjectPrototype) as Record<string, unknown> };
    ReflectApply(units[i], undefined, [require, module, module.exports]);
    loaded.set(spec.name, namespaceOf(own(module, 'exports') ?? {}, charge));
  }
  return loaded;
}
