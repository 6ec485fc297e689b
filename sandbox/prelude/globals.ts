// The globals every program has: installed once per isolate, before any program, with the
// built-ins that would escape fuel metering (WebAssembly, code from strings) taken away.
import { ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf, String_, StringPrototypeCharCodeAt, StringPrototypeRepeat } from './primordials';
import { installBuiltinStandIns } from './builtins';
import { installErrorGlobals } from './errors';
import { atob, btoa } from './encoding';
import { consoleGroup } from './console';
import { defineLazy } from './lazy-group';
import { installWeb } from './web';
import { urlGroup } from './web/url-group';
import { getRandomValues, randomUUID } from './random';
import { installClock } from './clock';

export const define = (name: string, value: unknown) => {
  // The bundler renames classes whose names collide (TextEncoder2) or that name themselves (_URL): a global constructor answers to its own name.
  const capital = StringPrototypeCharCodeAt(name, 0) >= 65 && StringPrototypeCharCodeAt(name, 0) <= 90;
  if (capital && typeof value === 'function' && value.name !== name && ObjectGetOwnPropertyDescriptor(value, 'name')?.configurable) ObjectDefineProperty(value, 'name', { value: name, configurable: true });
  ObjectDefineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
};

/** The attributes `define` gives a global, for the ones made on first read. */
const GLOBAL_ATTRIBUTES = { enumerable: false, writable: true, configurable: true };

export function installGlobals(): void {
  installBuiltinStandIns();
  installErrorGlobals();
  installClock(define);
  defineLazy(consoleGroup, globalThis, 'console', (made) => made, GLOBAL_ATTRIBUTES);
  define('atob', atob);
  define('btoa', btoa);
  defineLazy(urlGroup, globalThis, 'URL', (made) => made.URL, GLOBAL_ATTRIBUTES);
  defineLazy(urlGroup, globalThis, 'URLSearchParams', (made) => made.URLSearchParams, GLOBAL_ATTRIBUTES);
  define('assert', (condition: unknown, message?: string) => {
    if (!condition) throw new Error(message === undefined || message === null ? 'assertion failed' : String_(message));
  });
  define('crypto', { getRandomValues, randomUUID });
  installWeb(define);
  // No WebAssembly and no code generation from strings: both would escape fuel metering.
  const global = globalThis as Record<string, unknown>;
  delete global.WebAssembly;
  delete global.SharedArrayBuffer;
  delete global.Atomics;
  disableCodeGeneration();
  flattenRepeat();
}

function disableCodeGeneration(): void {
  const refuse = (what: string) =>
    function () {
      throw new EvalError(`${what} is not available in svc programs: code generation from strings is disabled (it would escape fuel metering); write the code directly`);
    };
  const blockedFunction = refuse('the Function constructor');
  const constructors = [
    Function,
    ObjectGetPrototypeOf(async function () {}).constructor,
    ObjectGetPrototypeOf(function* () {}).constructor,
    ObjectGetPrototypeOf(async function* () {}).constructor,
  ] as Array<{ prototype: object }>;
  for (let i = 0; i < constructors.length; i++) {
    ObjectDefineProperty(constructors[i].prototype, 'constructor', { value: blockedFunction, writable: false, configurable: false });
  }
  ObjectDefineProperty(blockedFunction, 'prototype', { value: Function.prototype });
  define('Function', blockedFunction);
  define('eval', refuse('eval'));
}

/**
 * V8 builds `repeat` results as ropes that take almost no memory until read; flatten
 * them so a large string counts against the memory limit when it is made.
 */
function flattenRepeat(): void {
  ObjectDefineProperty(String.prototype, 'repeat', {
    value: function (this: string, count: number) {
      const result = StringPrototypeRepeat(this, count);
      if (result.length > 4096) StringPrototypeCharCodeAt(result, result.length >> 1);
      return result;
    },
    writable: true,
    configurable: true,
  });
}
