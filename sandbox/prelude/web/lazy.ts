// The web classes most runs never touch are not evaluated in every fresh context: their
// globals start as accessors, and the first read of any of them evaluates their group's
// module (once per context), which puts the real values in place of every accessor still
// there. Evaluating them on each run was most of the prelude's cost.
//
// Two groups. The platform (./platform.ts: streams, fetch and its classes, Blob, FormData,
// FileReader, aborts, crypto.subtle, structuredClone) is trusted code evaluated after the
// program may have replaced any built-in, so its module bodies read only intrinsics
// captured when the prelude ran (../primordials.ts, ./primordials.ts). The encoding classes
// (./text.ts) are a library that uses the built-ins as it finds them; trusted code never uses
// them, so a program that patched a built-in first only changes what its own TextDecoder
// answers. One thing it could do beyond that: the library's module bodies iterate arrays,
// and an array iterator whose `next` never says done would loop them until the run's fuel
// ran out. So that group is evaluated with the array iteration protocol as the prelude
// found it, and the program's own put back afterwards (`withArrayIteration`).
// test/integration/web-lazy.test.ts holds both groups to this.
import { ArrayIteratorPrototype, ArrayPrototypePush, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectSetPrototypeOf, ReflectDefineProperty, SymbolIterator, TypeErrorCtor as TypeError_ } from './primordials';
import type { fetchFor } from './fetch';
import type { structuredClone } from '../clone';

interface Pending {
  owner: object;
  name: string;
  get: () => unknown;
  value: () => unknown;
  enumerable: boolean;
  writable: boolean;
  configurable: boolean;
}

/** Globals made by one module the first time a program reads any of them. */
export interface LazyGroup<T> {
  made: T | null;
  evaluating: boolean;
  readonly evaluate: () => void;
  readonly pending: Pending[];
}

/** A group whose `evaluate` calls `provide` with what it made. */
export function lazyGroup<T>(evaluate: () => void): LazyGroup<T> {
  return { made: null, evaluating: false, evaluate, pending: [] };
}

/** What ./platform.ts hands over when it is evaluated. */
export interface WebPlatform {
  /** The lazily made globals by name (classes already frozen). */
  globals: Record<string, unknown>;
  subtle: object;
  fetchFor: typeof fetchFor;
  structuredClone: typeof structuredClone;
}

/**
 * What ./text.ts hands over: the encoding classes by name, and the decoder FileReader uses
 * (typed here by shape: ./text.ts imports this module, so this one does not import it back).
 */
export interface TextClasses {
  globals: Record<string, unknown>;
  TextDecoder: new (label?: string) => object;
  // The decoder's own parameter types live in ./text.ts.
  decode: (...args: any[]) => string;
}

// `require` as a statement: as a value the bundler would build a namespace object for it,
// with a for-of a program could have hooked. Declared here: the guest code checked without
// Node's types (tsconfig.guest.json) reaches this module through ../dom-exception.ts.
declare const require: (id: string) => unknown;
export const platformGroup = lazyGroup<WebPlatform>(() => {
  require('./platform');
});
export const textGroup = lazyGroup<TextClasses>(() => {
  withArrayIteration(() => {
    require('./text');
  });
});

/**
 * `owner[key]`'s descriptor with no prototype: defining a property reads the descriptor's
 * absent fields (get, set) through its prototype, where a program may have put a getter.
 */
function ownDescriptor(owner: object, key: PropertyKey): PropertyDescriptor | undefined {
  const descriptor = ObjectGetOwnPropertyDescriptor(owner, key);
  return descriptor === undefined ? undefined : ObjectSetPrototypeOf(descriptor, null);
}

/** Where arrays are iterated from, and how each place held it when the prelude ran. */
const ARRAY_ITERATION: ReadonlyArray<{ owner: object; key: PropertyKey; original: PropertyDescriptor }> = [
  { owner: Array.prototype, key: SymbolIterator, original: ownDescriptor(Array.prototype, SymbolIterator)! },
  { owner: ArrayIteratorPrototype, key: 'next', original: ownDescriptor(ArrayIteratorPrototype, 'next')! },
];

/**
 * Runs `evaluate` with arrays iterating as they did when the prelude ran, then puts back
 * what the program had made of `Array.prototype[Symbol.iterator]` and the array iterator's
 * `next`. Reflect.defineProperty: a property the program froze stays as it is.
 */
function withArrayIteration(evaluate: () => void): void {
  const replaced: Array<{ owner: object; key: PropertyKey; descriptor: PropertyDescriptor | undefined }> = [];
  for (let i = 0; i < ARRAY_ITERATION.length; i++) {
    const { owner, key, original } = ARRAY_ITERATION[i];
    const descriptor = ownDescriptor(owner, key);
    if (descriptor !== undefined && descriptor.value === original.value && descriptor.get === undefined && descriptor.set === undefined) continue;
    if (ReflectDefineProperty(owner, key, original)) ArrayPrototypePush(replaced, { owner, key, descriptor });
  }
  try {
    evaluate();
  } finally {
    for (let i = replaced.length - 1; i >= 0; i--) {
      const { owner, key, descriptor } = replaced[i];
      if (descriptor === undefined) delete (owner as Record<PropertyKey, unknown>)[key];
      else ReflectDefineProperty(owner, key, descriptor);
    }
  }
}

/** Called once per context, by the group's module body. */
export function provide<T>(group: LazyGroup<T>, made: T): void {
  group.made = made;
}

/** Evaluates the group (once) and fills every accessor of it the program left in place. */
export function materialize<T>(group: LazyGroup<T>): T {
  if (group.made !== null) return group.made;
  if (group.evaluating) throw new TypeError_('a lazily evaluated web module read one of its own globals while it was being evaluated');
  group.evaluating = true;
  try {
    group.evaluate();
  } finally {
    group.evaluating = false;
  }
  const { pending } = group;
  for (let i = 0; i < pending.length; i++) {
    const { owner, name, get, value, enumerable, writable, configurable } = pending[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(owner, name);
    // A program that deleted or replaced the global keeps what it did.
    if (descriptor !== undefined && descriptor.get === get) ObjectDefineProperty(owner, name, { value: value(), writable, enumerable, configurable });
  }
  pending.length = 0;
  return group.made!;
}

/**
 * `owner[name]` as an accessor until its group is evaluated: a read evaluates it, a write
 * (a program's own value) replaces the accessor with a plain property. Afterwards the property
 * has the given attributes, as if it had been defined eagerly.
 */
export function defineLazy<T>(group: LazyGroup<T>, owner: object, name: string, value: (made: T) => unknown, attributes: { enumerable: boolean; writable: boolean; configurable: boolean }): void {
  const get = function () {
    // While a group is being evaluated its globals are not there yet, as when it was
    // evaluated before them (the encoding classes look for native ones, for instance).
    if (group.evaluating) return undefined;
    const made = materialize(group);
    const descriptor = ObjectGetOwnPropertyDescriptor(owner, name);
    return descriptor === undefined ? undefined : 'value' in descriptor ? descriptor.value : value(made);
  };
  // A read-only property gets no setter: assigning to it fails as it would on the value.
  const set = attributes.writable
    ? function (this: unknown, next: unknown) {
        if (this !== owner) return;
        ObjectDefineProperty(owner, name, { value: next, writable: true, enumerable: attributes.enumerable, configurable: true });
      }
    : undefined;
  ObjectDefineProperty(owner, name, { get, set, enumerable: attributes.enumerable, configurable: true });
  ArrayPrototypePush(group.pending, { owner, name, get, value: () => value(group.made!), ...attributes });
}
