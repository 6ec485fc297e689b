// The guest prelude: evaluated once in every pre-warmed isolate, before any program. It
// installs the globals programs may use, removes what they must not have, and leaves
// two entry points the runner takes (and deletes) right after: `run` links and starts
// a compiled program, `collect` reports how it ended once the microtasks have drained.
import { jsonParse, jsonStringify } from './intrinsics';
import { native } from './native';
import { guestError, installErrorGlobals, isRuntimeDenial, type HostErrorShape } from './errors';
import { atob, base64ToBytes, btoa, bytesToBase64, TextDecoder, TextEncoder } from './encoding';
import { URL, URLSearchParams } from './url';
import { structuredClone } from './clone';
import { makeConsole } from './console';
import { resultText } from './result';
import { renderValue } from './render';

interface Linked {
  units: Record<string, (require: (name: string) => unknown, module: { exports: Record<string, unknown> }, exports: Record<string, unknown>) => void>;
  takeFuel(n: number): void;
  fuelLeft(): number;
}

interface RunSpec {
  fuelBudget: number;
  maxDepth: number;
  hostModules: Record<string, string[]>;
}

type Outcome = { ok: true; result: string | null } | { ok: false; name: string; message: string; headline?: string; stack?: string; denied?: { caller: string; capability: string; source: string } };

const global = globalThis as Record<string, unknown>;
const define = (name: string, value: unknown) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });

// --- globals -------------------------------------------------------------------------
installErrorGlobals();
define('console', makeConsole());
define('TextEncoder', TextEncoder);
define('TextDecoder', TextDecoder);
define('atob', atob);
define('btoa', btoa);
define('URL', URL);
define('URLSearchParams', URLSearchParams);
define('structuredClone', structuredClone);
define('assert', (condition: unknown, message?: string) => {
  if (!condition) throw new Error(message === undefined || message === null ? 'assertion failed' : String(message));
});
define('crypto', {
  getRandomValues<T extends ArrayBufferView>(array: T): T {
    if (!ArrayBuffer.isView(array) || array instanceof DataView || array instanceof Float32Array || array instanceof Float64Array) {
      throw new TypeError('crypto.getRandomValues needs an integer typed array');
    }
    if (array.byteLength > 65536) throw new RangeError('crypto.getRandomValues can fill at most 65536 bytes at once');
    const bytes = base64ToBytes(native.random.applySync(undefined, [array.byteLength]) as string);
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
    return array;
  },
  randomUUID(): string {
    const b = base64ToBytes(native.random.applySync(undefined, [16]) as string);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
});
// No WebAssembly and no code generation from strings: both would escape fuel metering.
delete global.WebAssembly;
delete global.SharedArrayBuffer;
delete global.Atomics;
disableCodeGeneration();
flattenRepeat();

function disableCodeGeneration(): void {
  const refuse = (what: string) =>
    function () {
      throw new EvalError(`${what} is not available in svc programs: code generation from strings is disabled (it would escape fuel metering); write the code directly`);
    };
  const blockedFunction = refuse('the Function constructor');
  const intrinsics = [
    Function,
    Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(function* () {}).constructor,
    Object.getPrototypeOf(async function* () {}).constructor,
  ] as Array<{ prototype: object }>;
  for (const constructor of intrinsics) {
    Object.defineProperty(constructor.prototype, 'constructor', { value: blockedFunction, writable: false, configurable: false });
  }
  Object.defineProperty(blockedFunction, 'prototype', { value: Function.prototype });
  define('Function', blockedFunction);
  define('eval', refuse('eval'));
}

/**
 * V8 builds `repeat` results as ropes that take almost no memory until read; flatten
 * them so a large string counts against the memory limit when it is made.
 */
function flattenRepeat(): void {
  const repeat = String.prototype.repeat;
  Object.defineProperty(String.prototype, 'repeat', {
    value: function (this: string, count: number) {
      const result = repeat.call(this, count);
      if (result.length > 4096) result.charCodeAt(result.length >> 1);
      return result;
    },
    writable: true,
    configurable: true,
  });
}

// --- host calls ----------------------------------------------------------------------
const BYTES_TAG = '__svc_bytes';

function toWire(args: unknown[]): string {
  return jsonStringify(args, (_key, value) => (value instanceof Uint8Array ? { [BYTES_TAG]: bytesToBase64(value) } : value));
}

function fromWire(text: string): unknown {
  return jsonParse(text, (_key, value) =>
    value && typeof value === 'object' && typeof value[BYTES_TAG] === 'string' && Object.keys(value).length === 1 ? base64ToBytes(value[BYTES_TAG]) : value,
  );
}

function hostFunction(linked: Linked, module: string, op: string) {
  return function (...args: unknown[]): unknown {
    const wire = toWire(args);
    // COPY: one unit per 8 bytes each way (two bytes per UTF-16 unit).
    linked.takeFuel(Math.ceil((wire.length * 2) / 8));
    const replyText = native.hostCall.applySyncPromise(undefined, [module, op, wire, linked.fuelLeft()]) as string;
    linked.takeFuel(Math.ceil((replyText.length * 2) / 8));
    const reply = fromWire(replyText) as { ok: boolean; value?: unknown; error?: HostErrorShape; fuel: number };
    linked.takeFuel(reply.fuel);
    if (reply.ok) return reply.value;
    throw guestError(reply.error!);
  };
}

function namespaceOf(linked: Linked, module: string, functions: string[]): Record<string, unknown> {
  const namespace: Record<string, unknown> = Object.create(null);
  for (const op of functions) namespace[op] = hostFunction(linked, module, op);
  return Object.freeze(namespace);
}

// --- running -------------------------------------------------------------------------
let outcome: Outcome | undefined;
let current: Linked | undefined;

function isStackOverflow(value: unknown): boolean {
  return value instanceof RangeError && value.message === 'Maximum call stack size exceeded';
}

/** isolated-vm refuses an array buffer past the isolate's memory limit with this RangeError. */
function isAllocationFailure(value: unknown): boolean {
  return value instanceof RangeError && value.message === 'Array buffer allocation failed';
}

function failure(error: unknown): Outcome {
  if (isStackOverflow(error)) native.limit.applySync(undefined, ['stack_exhausted']);
  if (isAllocationFailure(error)) native.limit.applySync(undefined, ['memory_exhausted']);
  if (isErrorValue(error)) {
    const e = error as Error;
    let name = 'Error';
    let message = '';
    let stack: string | undefined;
    try {
      name = String(e.name ?? 'Error');
      message = String(e.message ?? '');
      stack = typeof e.stack === 'string' ? e.stack : undefined;
    } catch {
      message = 'an error whose fields could not be read';
    }
    const out: Outcome = { ok: false, name, message, stack };
    if (isRuntimeDenial(error)) out.denied = { caller: error.caller, capability: error.capability, source: error.source ?? 'policy' };
    return out;
  }
  // A thrown non-Error value renders as `Uncaught <value>` (strings JSON-quoted).
  let text: string;
  try {
    text = typeof error === 'string' ? jsonStringify(error) : renderValue(error);
  } catch {
    text = typeof error;
  }
  return { ok: false, name: 'Error', message: text, headline: `Uncaught ${text}` };
}

function isErrorValue(value: unknown): boolean {
  try {
    return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
  } catch {
    return false;
  }
}

function settle(value: unknown): void {
  try {
    outcome = { ok: true, result: resultText(value) };
  } catch (error) {
    outcome = failure(error);
  }
}

function run(link: (rt: unknown) => Linked, specJson: string): void {
  const spec = jsonParse(specJson) as RunSpec;
  const rt = {
    fuelBudget: spec.fuelBudget,
    maxDepth: spec.maxDepth,
    fuelOut() {
      // The stack names where the run stopped; the pool maps it to program.ts.
      let where = '';
      try {
        where = String(new Error('fuel').stack);
      } catch {
        where = '';
      }
      native.limit.applySync(undefined, ['fuel_exhausted', 0, where]);
    },
    stackOut(fuelLeft: number) {
      native.limit.applySync(undefined, ['stack_exhausted', fuelLeft]);
    },
    checkCaught(value: unknown) {
      if (isStackOverflow(value)) native.limit.applySync(undefined, ['stack_exhausted']);
      if (isAllocationFailure(value)) native.limit.applySync(undefined, ['memory_exhausted']);
    },
  };
  try {
    const linked = link(rt);
    current = linked;
    const namespaces: Record<string, unknown> = {};
    const factories = (global.__svc_guest_modules ?? {}) as Record<string, (call: (op: string, ...args: unknown[]) => unknown) => Record<string, unknown>>;
    delete global.__svc_guest_modules;
    for (const [module, functions] of Object.entries(spec.hostModules)) namespaces[module] = namespaceOf(linked, module, functions);
    for (const [module, factory] of Object.entries(factories)) {
      const call = (op: string, ...args: unknown[]) => hostFunction(linked, module, op)(...args);
      namespaces[module] = Object.freeze(factory(call));
    }
    const require = (name: string) => {
      if (name in namespaces) return namespaces[name];
      throw new Error(`module ${name} is not available`);
    };
    const module = { exports: {} as Record<string, unknown> };
    linked.units.main(require, module, module.exports);
    const main = module.exports.main;
    if (typeof main !== 'function') {
      outcome = { ok: false, name: 'TypeError', message: `main is not a function (it is ${main === null ? 'null' : typeof main})` };
      return;
    }
    const value = (main as () => unknown)();
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function') {
      (value as PromiseLike<unknown>).then(settle, (error) => {
        outcome = failure(error);
      });
    } else settle(value);
  } catch (error) {
    outcome = failure(error);
  }
}

function collect(): string {
  const fuelLeft = current ? current.fuelLeft() : null;
  if (outcome === undefined) {
    return jsonStringify({
      ok: false,
      name: 'Error',
      message: 'main returned a promise that can never settle: nothing is left that could resolve it (there are no timers, and host calls are synchronous)',
      fuelLeft,
    });
  }
  return jsonStringify({ ...outcome, fuelLeft });
}

define('__svc_entry', { run, collect });
