// The ECMAScript built-ins newer than the engine: programs run on V8 11.3 (Node 20's
// isolated-vm), which lacks what ES2024/ES2025 added and agents use (Object.groupBy,
// Promise.withResolvers, the Set methods, iterator helpers, Array.fromAsync). They come
// from core-js (maintained, spec-tested), bundled into the prelude.
//
// Evaluating all of those core-js modules costs about 1.5 ms of CPU per context, more than
// the rest of the prelude, and the prelude is evaluated for every run. So each missing
// built-in starts as a small stand-in with the right name and length; the first call of a
// stand-in (or the first read of the global Iterator) evaluates its own core-js module (the
// iterator helpers the Iterator constructor's and `from`'s first), which installs the real
// built-in in its place, and the call goes on to the real one; the other stand-ins wait for
// their own first call. A newer engine that has a built-in keeps its own. In runs that load
// Packages, every module is evaluated before lockdown (materializeBuiltins), so what lockdown
// freezes is the real thing.
//
// Trusted guest code never calls these (it uses the primordials captured before them): a
// program that replaces one changes only what its own calls do. core-js keeps its shared
// state on a global of the context (`__core-js_shared__`), which is per run like all else.
//
// The core-js modules (./core-js-modules.cts) are bundled as one function, evaluateCoreJs
// (scripts/build/prelude.mjs), whose value is the modules by name: bundled with the prelude, each of
// their ~160 module wrappers was made in every fresh context, used or not (a quarter of what
// the prelude allocated, and about a fifth of a prepared context's CPU with the collections
// that garbage cost; bench/PROFILE.md).
import { evaluateCoreJs } from 'svc-build:core-js';
import { ObjectCreate, ObjectKeys, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf, ReflectApply, ReflectDeleteProperty, ArrayPrototypePush, own, StringPrototypeStartsWith } from './primordials';

interface Stand {
  owner: object;
  name: string;
  value: unknown;
  /** The core-js module that replaces it. */
  module: string;
}
const stands: Stand[] = [];
/** core-js's modules by name, once evaluateCoreJs has run. */
let modules: Record<string, () => unknown> | null = null;
/** Modules evaluated (or being evaluated) in this context. */
const evaluated = ObjectCreate(null) as Record<string, true>;


/** Evaluates one core-js module, once: the stand-ins it replaces give way first. */
function evaluateModule(name: string): void {
  if (evaluated[name] === true) return;
  evaluated[name] = true;
  for (let i = 0; i < stands.length; i++) {
    const { owner, name: key, value, module } = stands[i];
    if (module !== name) continue;
    const descriptor = ObjectGetOwnPropertyDescriptor(owner, key);
    // A program that put its own value there keeps it.
    if (descriptor && (descriptor.value === value || descriptor.get === value)) ReflectDeleteProperty(owner, key);
  }
  modules ??= evaluateCoreJs();
  (own(modules, name) as () => unknown)();
}

/**
 * A stand-in's module, after what it needs: the iterator helpers' modules read the global
 * Iterator (a plain object would be made in its place), so the Iterator constructor and
 * `Iterator.from` (the global's stand-in replaces both) come first.
 */
function evaluateFor(module: string): void {
  if (StringPrototypeStartsWith(module, 'es.iterator.')) {
    evaluateModule('es.iterator.constructor');
    evaluateModule('es.iterator.from');
  }
  evaluateModule(module);
}

/** Evaluates all of core-js (runs with Packages, before lockdown): no stand-in is left. */
export function materializeBuiltins(): void {
  modules ??= evaluateCoreJs();
  const all = ObjectKeys(modules);
  for (let i = 0; i < all.length; i++) evaluateFor(all[i]);
}

/** A stand-in for `owner[name]` where the engine has none: evaluates its core-js module, then calls the real one. */
function stand(owner: object, name: string, length: number, module: string): void {
  if (ObjectGetOwnPropertyDescriptor(owner, name) !== undefined) return;
  const real = (self: unknown, args: IArguments): unknown => {
    evaluateFor(module);
    return ReflectApply((owner as Record<string, (...a: unknown[]) => unknown>)[name], self, args);
  };
  // The method's own parameters give it its length (a define per stand-in less in every fresh context).
  const value =
    length === 0
      ? { [name](this: unknown) { return real(this, arguments); } }[name]
      : length === 1
        ? { [name](this: unknown, _first: unknown) { return real(this, arguments); } }[name]
        : { [name](this: unknown, _first: unknown, _second: unknown) { return real(this, arguments); } }[name];
  ObjectDefineProperty(owner, name, { value, writable: true, enumerable: false, configurable: true });
  ArrayPrototypePush(stands, { owner, name, value, module });
}

export function installBuiltinStandIns(): void {
  stand(Object, 'groupBy', 2, 'es.object.group-by');
  stand(Map, 'groupBy', 2, 'es.map.group-by');
  stand(Promise, 'withResolvers', 0, 'es.promise.with-resolvers');
  stand(Promise, 'try', 1, 'es.promise.try');
  stand(Array, 'fromAsync', 1, 'es.array.from-async');
  stand(RegExp, 'escape', 1, 'es.regexp.escape');
  const setMethods = ['union', 'intersection', 'difference', 'symmetricDifference', 'isSubsetOf', 'isSupersetOf', 'isDisjointFrom'];
  const setModules = ['es.set.union.v2', 'es.set.intersection.v2', 'es.set.difference.v2', 'es.set.symmetric-difference.v2', 'es.set.is-subset-of.v2', 'es.set.is-superset-of.v2', 'es.set.is-disjoint-from.v2'];
  for (let i = 0; i < setMethods.length; i++) stand(Set.prototype, setMethods[i], 1, setModules[i]);
  const iteratorPrototype = ObjectGetPrototypeOf(ObjectGetPrototypeOf([][Symbol.iterator]())) as object;
  const iteratorMethods = ['drop', 'every', 'filter', 'find', 'flatMap', 'forEach', 'map', 'reduce', 'some', 'take'];
  const iteratorModules = ['es.iterator.drop', 'es.iterator.every', 'es.iterator.filter', 'es.iterator.find', 'es.iterator.flat-map', 'es.iterator.for-each', 'es.iterator.map', 'es.iterator.reduce', 'es.iterator.some', 'es.iterator.take'];
  for (let i = 0; i < iteratorMethods.length; i++) stand(iteratorPrototype, iteratorMethods[i], 1, iteratorModules[i]);
  stand(iteratorPrototype, 'toArray', 0, 'es.iterator.to-array');
  // The global Iterator (for Iterator.from and `extends Iterator`): read once, it is core-js's.
  if (ObjectGetOwnPropertyDescriptor(globalThis, 'Iterator') === undefined) {
    const get = () => {
      evaluateFor('es.iterator.from');
      return (globalThis as { Iterator?: unknown }).Iterator;
    };
    const set = (value: unknown) => ObjectDefineProperty(globalThis, 'Iterator', { value, writable: true, enumerable: false, configurable: true });
    ObjectDefineProperty(globalThis, 'Iterator', { get, set, enumerable: false, configurable: true });
    ArrayPrototypePush(stands, { owner: globalThis, name: 'Iterator', value: get, module: 'es.iterator.constructor' });
  }
}
