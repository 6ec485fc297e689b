// The ECMAScript built-ins newer than the engine: programs run on V8 11.3 (Node 20's
// isolated-vm), which lacks what ES2024/ES2025 added and agents use (Object.groupBy,
// Promise.withResolvers, the Set methods, iterator helpers, Array.fromAsync). They come
// from core-js (maintained, spec-tested), bundled into the prelude.
//
// Evaluating those core-js modules costs about 1.4 ms of CPU per context, four times the
// rest of the prelude, and the prelude is evaluated for every run. So each missing
// built-in starts as a small stand-in with the right name and length; the first call of any
// stand-in (or the first read of the global Iterator) evaluates core-js, which installs the
// real ones in their place, and the call goes on to the real one. A newer engine that has a
// built-in keeps its own. In runs that load Packages, core-js is evaluated before lockdown
// (materializeBuiltins), so what lockdown freezes is the real thing.
//
// Trusted guest code never calls these (it uses the primordials captured before them): a
// program that replaces one changes only what its own calls do. core-js keeps its shared
// state on a global of the context (`__core-js_shared__`), which is per run like all else.
//
// The core-js modules (./core-js-modules.ts) are bundled as one function, evaluateCoreJs
// (scripts/build.mjs): bundled with the prelude, each of their ~160 module wrappers was made
// in every fresh context, used or not (a quarter of what the prelude allocated, and about
// a fifth of a prepared context's CPU with the collections that garbage cost; bench/PROFILE.md).
import { evaluateCoreJs } from 'svc-build:core-js';
import { ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf, ReflectApply, ReflectDeleteProperty, ArrayPrototypePush } from './primordials';

interface Stand {
  owner: object;
  name: string;
  value: unknown;
}
const stands: Stand[] = [];
let materialized = false;

/** Evaluates core-js (once): the stand-ins still in place give way to the real built-ins. */
export function materializeBuiltins(): void {
  if (materialized) return;
  materialized = true;
  for (let i = 0; i < stands.length; i++) {
    const { owner, name, value } = stands[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(owner, name);
    // A program that put its own value there keeps it.
    if (descriptor && (descriptor.value === value || descriptor.get === value)) ReflectDeleteProperty(owner, name);
  }
  evaluateCoreJs();
}

/** A stand-in for `owner[name]` where the engine has none: materializes, then calls the real one. */
function stand(owner: object, name: string, length: number): void {
  if (ObjectGetOwnPropertyDescriptor(owner, name) !== undefined) return;
  const real = (self: unknown, args: IArguments): unknown => {
    materializeBuiltins();
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
  ArrayPrototypePush(stands, { owner, name, value });
}

export function installBuiltinStandIns(): void {
  stand(Object, 'groupBy', 2);
  stand(Map, 'groupBy', 2);
  stand(Promise, 'withResolvers', 0);
  stand(Promise, 'try', 1);
  stand(Array, 'fromAsync', 1);
  stand(RegExp, 'escape', 1);
  const setMethods = ['union', 'intersection', 'difference', 'symmetricDifference', 'isSubsetOf', 'isSupersetOf', 'isDisjointFrom'];
  for (let i = 0; i < setMethods.length; i++) stand(Set.prototype, setMethods[i], 1);
  const iteratorPrototype = ObjectGetPrototypeOf(ObjectGetPrototypeOf([][Symbol.iterator]())) as object;
  const iteratorMethods = ['drop', 'every', 'filter', 'find', 'flatMap', 'forEach', 'map', 'reduce', 'some', 'take'];
  for (let i = 0; i < iteratorMethods.length; i++) stand(iteratorPrototype, iteratorMethods[i], 1);
  stand(iteratorPrototype, 'toArray', 0);
  // The global Iterator (for Iterator.from and `extends Iterator`): read once, it is core-js's.
  if (ObjectGetOwnPropertyDescriptor(globalThis, 'Iterator') === undefined) {
    const get = () => {
      materializeBuiltins();
      return (globalThis as { Iterator?: unknown }).Iterator;
    };
    const set = (value: unknown) => ObjectDefineProperty(globalThis, 'Iterator', { value, writable: true, enumerable: false, configurable: true });
    ObjectDefineProperty(globalThis, 'Iterator', { get, set, enumerable: false, configurable: true });
    ArrayPrototypePush(stands, { owner: globalThis, name: 'Iterator', value: get });
  }
}
