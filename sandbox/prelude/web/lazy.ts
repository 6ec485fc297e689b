// The web classes most runs never touch are not evaluated in every fresh context: their
// globals start as accessors, and the first read of any of them evaluates their group's
// module (once per context), which puts the real values in place of every accessor still
// there. Evaluating them on each run was most of the prelude's cost.
//
// Four groups. URL and URLSearchParams (./url-globals.ts, its group in ./url-group.ts) are trusted code like the
// platform, which uses them, as does svc:url's guest code. The events (./event-globals.ts: Event and its kin, the global scope's
// addEventListener and friends, `performance`) are trusted code like the platform. The platform (./platform.ts: streams, fetch and its classes, Blob, FormData,
// FileReader, aborts, crypto.subtle, structuredClone) is trusted code evaluated after the
// program may have replaced any built-in, so its module bodies read only intrinsics
// captured when the prelude ran (../primordials.ts, ./primordials.ts). The encoding classes
// (./text.ts) are a library that uses the built-ins as it finds them; trusted code never uses
// them, so a program that patched a built-in first only changes what its own TextDecoder
// answers. One thing it could do beyond that: the library's module bodies iterate arrays,
// and an array iterator whose `next` never says done would loop them until the run's fuel
// ran out. So that group is evaluated with the array iteration protocol as the prelude
// found it, and the program's own put back afterwards (`withArrayIteration`).
// The machinery (accessors, materializing) is ../lazy-group.ts, shared with DOMException.
// test/integration/web-lazy.test.ts holds both groups to this.
import { ArrayIteratorPrototype, ArrayPrototypePush, ReflectDefineProperty, SymbolIterator } from './primordials';
import { lazyGroup, ownDescriptor } from '../lazy-group';
import { lazyWebModules } from './lazy-web';
import type { fetchFor } from './fetch';
import type { structuredClone } from '../clone';

/** What ./platform.ts hands over when it is evaluated. */
export interface WebPlatform {
  /** The lazily made globals by name (classes already frozen). */
  globals: Record<string, unknown>;
  subtle: object;
  fetchFor: typeof fetchFor;
  structuredClone: typeof structuredClone;
}

/** What ./event-globals.ts hands over when it is evaluated. */
export interface EventGlobals {
  /** The event classes (frozen), the global scope's event functions and `performance` with its classes, by name. */
  globals: Record<string, unknown>;
  /** Starts the run's clock over (a run that started before the group was made needs nothing). */
  resetTimeOrigin: () => void;
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

export const platformGroup = lazyGroup<WebPlatform>(() => lazyWebModules().platform());
export const eventGroup = lazyGroup<EventGlobals>(() => lazyWebModules().events());
export const textGroup = lazyGroup<TextClasses>(() => withArrayIteration(() => lazyWebModules().text()));

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
