// The guest prelude: evaluated once in every pre-warmed isolate, before any program. It
// installs the globals programs may use, removes what they must not have, and leaves
// two entry points the runner takes (and deletes) right after: `run` links and starts
// a compiled program, `collect` reports how it ended once the microtasks have drained.
// Everything here runs on the primordials (./primordials.ts): the program may patch any
// built-in, but not the host calls, the fuel arithmetic or the report.
import { primordialTable } from 'svc-build:primordial-table';
import {
  arrayFilter,
  ArrayIsArray,
  ArrayPrototypeIncludes,
  ArrayPrototypeIndexOf,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  FunctionPrototypeCall,
  fuelUnits,
  isErrorLike,
  jsonQuote,
  JSONParse,
  MathCeil,
  NumberIsFinite,
  NumberPrototypeToString,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ObjectKeys,
  ObjectPrototypeHasOwnProperty,
  ObjectPrototypeToString,
  own,
  PromiseCtor,
  ReflectApply,
  PromisePrototypeThen,
  PromiseResolve,
  SafeMap,
  String_,
  StringPrototypeCharCodeAt,
  StringPrototypePadStart,
  StringPrototypeRepeat,
  StringPrototypeSlice,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeSet,
  typedArrayKind,
  Uint8Array_,
} from './primordials';
import { native } from './native';
import { guestError, installErrorGlobals, runtimeDenial } from './errors';
import { atob, base64ToBytes, btoa, TextDecoder, TextEncoder, utf8Decode, utf8Encode } from './encoding';
import { URL, URLSearchParams } from './url';
import { structuredClone } from './clone';
import { makeConsole } from './console';
import { resultText } from './result';
import { renderValue } from './render';
import { decodeWire, encodeArgs, encodeValue } from './wire';
import { fetchFor, installWeb, startWebRun, webTimers, type StartedCall } from './web';
import { attribute, attributeAs, installAttribution } from './attribution';
import { lockdown } from './lockdown';
import { harden, loadPackages, type PackageSpec } from './packages';
import { SCRIPT_FILENAME } from '../contract';

interface Linked {
  units: Record<string, (require: (name: string) => unknown, module: { exports: Record<string, unknown> }, exports: Record<string, unknown>) => void>;
  takeFuel(n: number): void;
  fuelLeft(): number;
}

/** The compiled program's fuel functions, taken once (the program never sees this object). */
interface Meter {
  take(units: number): void;
  left(): number;
}

type Outcome =
  | { ok: true; result: string | null }
  | { ok: false; name: string; message: string; headline?: string; stack?: string; denied?: { caller: string; capability: string; source: string } };

const define = (name: string, value: unknown) => ObjectDefineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });

// --- randomness ----------------------------------------------------------------------
function randomBytes(count: number): Uint8Array {
  const text = native.random(count);
  return base64ToBytes(typeof text === 'string' ? text : '');
}

function randomUUID(): string {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const digits: string[] = [];
  for (let i = 0; i < 16; i++) ArrayPrototypePush(digits, StringPrototypePadStart(NumberPrototypeToString(b[i], 16), 2, '0'));
  const hex = ArrayPrototypeJoin(digits, '');
  return `${StringPrototypeSlice(hex, 0, 8)}-${StringPrototypeSlice(hex, 8, 12)}-${StringPrototypeSlice(hex, 12, 16)}-${StringPrototypeSlice(hex, 16, 20)}-${StringPrototypeSlice(hex, 20)}`;
}

const INTEGER_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];

function getRandomValues<T extends ArrayBufferView>(array: T): T {
  const kind = typedArrayKind(array);
  if (kind === undefined || ArrayPrototypeIndexOf(INTEGER_ARRAYS, kind) === -1) throw new TypeError('crypto.getRandomValues needs an integer typed array');
  const byteLength = TypedArrayPrototypeGetByteLength(array);
  if (byteLength > 65536) throw new RangeError('crypto.getRandomValues can fill at most 65536 bytes at once');
  TypedArrayPrototypeSet(new Uint8Array_(TypedArrayPrototypeGetBuffer(array), TypedArrayPrototypeGetByteOffset(array), byteLength), randomBytes(byteLength));
  return array;
}

// --- globals -------------------------------------------------------------------------
installErrorGlobals();
define('console', makeConsole());
define('TextEncoder', TextEncoder);
define('TextDecoder', TextDecoder);
define('atob', atob);
define('btoa', btoa);
// Trusted guest code (svc:url) uses these classes: their methods must stay ours.
ObjectFreeze(URL.prototype);
ObjectFreeze(URLSearchParams.prototype);
define('URL', URL);
define('URLSearchParams', URLSearchParams);
define('structuredClone', structuredClone);
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

// --- host calls ----------------------------------------------------------------------
/** True once the run loads Packages: every host call then says who made it. */
let attributing = false;

/** Who makes a call, when the run attributes calls: a namespace function is its owner's; a global (fetch, timers) is whoever's code runs. */
type CallMaker = { caller: unknown; consumer: unknown } | null;

/** A call's arguments encoded from the data itself and charged (one unit per 8 bytes, two bytes per UTF-16 unit). */
function startCall(meter: Meter, module: string, op: string, args: readonly unknown[], owner: string | null): { what: string; wire: string; who: CallMaker } {
  const what = `${StringPrototypeSlice(module, 4)}.${op}`;
  // Nothing has left the isolate yet: the runner discards this attempt and runs the program again where it may call out.
  if (native.mayBlock() !== true) throw new Error(`${what}: the run is being restarted so that it can call the host`);
  const wire = encodeArgs(args, what);
  meter.take(MathCeil((wire.length * 2) / 8));
  return { what, wire, who: attributing ? (owner === null ? attribute() : attributeAs(owner)) : null };
}

/** A reply's value, charged with captured arithmetic; a refusal or failure is thrown as the guest sees it. */
function replyValue(meter: Meter, replyText: string): unknown {
  meter.take(MathCeil((replyText.length * 2) / 8));
  const reply = decodeWire(replyText);
  meter.take(fuelUnits(own(reply, 'fuel')));
  if (own(reply, 'ok') === true) return own(reply, 'value');
  throw guestError(own(reply, 'error'));
}

/** One host call, blocking the isolate until the reply. */
function hostCall(meter: Meter, module: string, op: string, args: readonly unknown[], owner: string | null = null): unknown {
  const { what, wire, who } = startCall(meter, module, op, args, owner);
  const replyText = who === null ? native.hostCall(module, op, wire, meter.left()) : native.hostCall(module, op, wire, meter.left(), who.caller, who.consumer);
  if (typeof replyText !== 'string') throw new Error(`${what}: the host sent no reply`);
  return replyValue(meter, replyText);
}

/** Asynchronous host calls in flight: settled by `deliver` when the runner has the reply. */
interface PendingCall {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  meter: Meter;
}
const pendingCalls = new SafeMap<number, PendingCall>();

/**
 * One host call that does not block the isolate: started now (arguments encoded and charged
 * as for a synchronous call), settled when the runner delivers the reply (the reply charged
 * then). Waiting costs no fuel; the same calls charge the same fuel in any order.
 */
function hostCallAsync(meter: Meter, module: string, op: string, args: readonly unknown[], owner: string | null = null): StartedCall {
  const { what, wire, who } = startCall(meter, module, op, args, owner);
  const id = who === null ? native.hostStart(module, op, wire, meter.left()) : native.hostStart(module, op, wire, meter.left(), who.caller, who.consumer);
  if (typeof id !== 'number') throw new Error(`${what}: ${typeof id === 'string' ? id : 'the host did not start the call'}`);
  const callId = id;
  let settle: PendingCall | undefined;
  const promise = new PromiseCtor<unknown>((resolve, reject) => {
    settle = { resolve, reject, meter };
  });
  pendingCalls.set(callId, settle!);
  return {
    promise,
    cancel() {
      if (pendingCalls.delete(callId)) native.hostCancel(callId);
    },
  };
}

/** The runner delivers a reply (microtasks drain after this call, on the isolate's thread). */
function deliver(callId: number, replyText: string): void {
  const pending = pendingCalls.get(callId);
  if (pending === undefined) return;
  pendingCalls.delete(callId);
  try {
    pending.resolve(replyValue(pending.meter, replyText));
  } catch (error) {
    pending.reject(error);
  }
}

/** The suffix of a module's asynchronous form (`svc:http/async`): same operations, promises instead of values. */
const ASYNC_SUFFIX = '/async';
/** Thrown inside a replay when the namespace function needs a host reply not yet received. */
const NEEDS_REPLY = ObjectFreeze({ needsReply: true });

interface Replay {
  replies: Array<{ ok: boolean; value: unknown }>;
  index: number;
  needed: { op: string; args: unknown[] } | null;
}

function isAsyncForm(module: string): boolean {
  return module.length > ASYNC_SUFFIX.length && StringPrototypeSlice(module, module.length - ASYNC_SUFFIX.length) === ASYNC_SUFFIX;
}

/**
 * The namespace of a module's asynchronous form. Its functions are the synchronous form's
 * (the same guest factory, so the same argument handling and result objects), replayed:
 * each call of a function runs it with the replies received so far; when it needs one
 * more, that host call starts asynchronously (the same operation of the same module, so
 * the same gate, record, fuel and audit) and the function runs again once the reply is in.
 * Guest factories are trusted, unmetered and deterministic, so a replay repeats exactly.
 */
function asyncNamespaceOf(meter: Meter, module: string, functions: readonly string[], factory: GuestFactory | undefined, owner: string | null): Record<string, unknown> {
  const base = StringPrototypeSlice(module, 0, module.length - ASYNC_SUFFIX.length);
  let replay: Replay | null = null;
  const callWith = (op: string, args: unknown[]): unknown => {
    const current = replay;
    if (current === null) throw new Error(`${module}: its functions return promises; call them, then await the result`);
    if (current.index < current.replies.length) {
      const reply = current.replies[current.index++];
      if (reply.ok) return reply.value;
      throw reply.value;
    }
    current.needed = { op, args };
    throw NEEDS_REPLY;
  };
  const call = (op: string, ...args: unknown[]): unknown => callWith(op, args);
  const raw = ObjectCreate(null) as Record<string, unknown>;
  for (let i = 0; i < functions.length; i++) {
    const op = functions[i];
    if (typeof op === 'string') ObjectDefineProperty(raw, op, { value: (...args: unknown[]) => callWith(op, args), enumerable: true });
  }
  const sync = (factory === undefined ? raw : FunctionPrototypeCall(factory, undefined, call, guestPrimordials(), ObjectFreeze(raw))) as Record<string, unknown>;
  const run = (fn: (...args: unknown[]) => unknown, args: unknown[]): Promise<unknown> =>
    new PromiseCtor<unknown>((resolve, reject) => {
      const replies: Replay['replies'] = [];
      const step = (): void => {
        const state: Replay = { replies, index: 0, needed: null };
        replay = state;
        let value: unknown;
        let failed = false;
        try {
          value = ReflectApply(fn, undefined, args);
        } catch (error) {
          failed = true;
          value = error;
        }
        replay = null;
        const needed = state.needed as Replay['needed'];
        if (needed === null) {
          if (failed) reject(value);
          else resolve(value);
          return;
        }
        let started: StartedCall;
        try {
          started = hostCallAsync(meter, base, needed.op, needed.args, owner);
        } catch (error) {
          reject(error);
          return;
        }
        PromisePrototypeThen(
          started.promise,
          (reply) => {
            ArrayPrototypePush(replies, { ok: true, value: reply });
            step();
          },
          (error) => {
            ArrayPrototypePush(replies, { ok: false, value: error });
            step();
          },
        );
      };
      step();
    });
  const namespace = ObjectCreate(null) as Record<string, unknown>;
  const names = ObjectKeys(sync);
  for (let i = 0; i < names.length; i++) {
    const member = sync[names[i]];
    const value = typeof member === 'function' ? (...args: unknown[]) => run(member as (...args: unknown[]) => unknown, args) : member;
    ObjectDefineProperty(namespace, names[i], { value, enumerable: true });
  }
  return ObjectFreeze(namespace);
}

/** The module's operations as plain functions (frozen, no prototype). */
function namespaceOf(meter: Meter, module: string, functions: readonly string[], owner: string | null): Record<string, unknown> {
  const namespace = ObjectCreate(null) as Record<string, unknown>;
  for (let i = 0; i < functions.length; i++) {
    const op = functions[i];
    if (typeof op !== 'string') continue;
    ObjectDefineProperty(namespace, op, { value: (...args: unknown[]) => hostCall(meter, module, op, args, owner), enumerable: true });
  }
  return ObjectFreeze(namespace);
}

/**
 * What guest factories receive as their second argument: every primordial plus the
 * trusted helpers they need (UTF-8, randomness). Frozen, no prototype.
 */
let guestPrimordialsTable: Readonly<Record<string, unknown>> | undefined;
/** Built on first use: most runs load no module with guest-side code. */
function guestPrimordials(): Readonly<Record<string, unknown>> {
  if (guestPrimordialsTable !== undefined) return guestPrimordialsTable;
  const table = ObjectCreate(null) as Record<string, unknown>;
  const sources = [primordialTable(), { utf8Encode, utf8Decode, randomBytes, randomUUID, renderValue, encodeJson: encodeValue, URL }] as Record<string, unknown>[];
  for (let s = 0; s < sources.length; s++) {
    const names = ObjectKeys(sources[s]);
    for (let i = 0; i < names.length; i++) ObjectDefineProperty(table, names[i], { value: sources[s][names[i]], enumerable: true });
  }
  guestPrimordialsTable = ObjectFreeze(table);
  return guestPrimordialsTable;
}

/**
 * A guest factory builds a module's namespace: `factory(call, primordials, raw)`, where
 * `call(op, ...args)` is one host call and `raw` the module's operations as functions.
 */
type GuestFactory = (call: (op: string, ...args: unknown[]) => unknown, primordialsTable: Readonly<Record<string, unknown>>, raw: Record<string, unknown>) => unknown;

// --- running -------------------------------------------------------------------------
let outcome: Outcome | undefined;
let meter: Meter | undefined;

const RangeErrorPrototype = RangeError.prototype;
function isStackOverflow(value: unknown): boolean {
  return value !== null && typeof value === 'object' && ObjectGetPrototypeOf(value) === RangeErrorPrototype && own(value, 'message') === 'Maximum call stack size exceeded';
}

function readText(read: () => unknown): string | undefined {
  try {
    const value = read();
    if (value === undefined) return undefined;
    return typeof value === 'string' ? value : String_(value);
  } catch {
    return undefined;
  }
}

/**
 * Stack text a failure keeps: the runner maps at most this much, whatever the program made
 * its `stack`. (The runner cuts again: this text is the program's, this code only tries.)
 */
const MAX_STACK_CHARS = 64 * 1024;
/** V8's own `stack` getter, where the engine defines `stack` as an accessor (newer V8). */
/** Captured before the program runs: a replaced global `Error` never runs here. */
const ErrorConstructor = Error;
const ErrorPrototype = Error.prototype;
const engineStackGetter: unknown = own(ObjectGetOwnPropertyDescriptor(new Error('probe'), 'stack'), 'get') ?? own(ObjectGetOwnPropertyDescriptor(ErrorPrototype, 'stack'), 'get');

/**
 * An error's `stack` as text, cut to MAX_STACK_CHARS. Only a data property or the engine's
 * own getter is read: a getter the program defined (or a Proxy's `get` trap) is never run.
 */
function stackText(error: object): string | undefined {
  let text: unknown;
  try {
    const descriptor = ObjectGetOwnPropertyDescriptor(error, 'stack') ?? ObjectGetOwnPropertyDescriptor(ErrorPrototype, 'stack');
    if (descriptor === undefined) return undefined;
    const getter: unknown = own(descriptor, 'get');
    if (ObjectPrototypeHasOwnProperty(descriptor, 'value')) text = own(descriptor, 'value');
    else if (engineStackGetter !== undefined && getter === engineStackGetter) text = FunctionPrototypeCall(getter as () => unknown, error);
  } catch {
    return undefined;
  }
  if (typeof text !== 'string') return undefined;
  return text.length > MAX_STACK_CHARS ? StringPrototypeSlice(text, 0, MAX_STACK_CHARS) : text;
}

/** isolated-vm refuses an array buffer past the isolate's memory limit with this RangeError. */
function isAllocationFailure(value: unknown): boolean {
  return value !== null && typeof value === 'object' && ObjectGetPrototypeOf(value) === RangeErrorPrototype && own(value, 'message') === 'Array buffer allocation failed';
}

function failure(error: unknown): Outcome {
  if (isStackOverflow(error)) native.limit('stack_exhausted');
  if (isAllocationFailure(error)) native.limit('memory_exhausted');
  if (isErrorLike(error) || (error !== null && typeof error === 'object' && ObjectPrototypeToString(error) === '[object Error]')) {
    const e = error as Error;
    const name = readText(() => e.name) ?? 'Error';
    const message = readText(() => e.message) ?? '';
    const out: Outcome = { ok: false, name, message, stack: stackText(e) };
    // The host's facts, not the (editable) fields of the object that escaped.
    const denied = runtimeDenial(error);
    if (denied) out.denied = { caller: denied.caller, capability: denied.capability, source: denied.source };
    return out;
  }
  // A thrown non-Error value renders as `Uncaught <value>` (strings JSON-quoted).
  let text: string;
  try {
    text = typeof error === 'string' ? jsonQuote(error) : renderValue(error);
  } catch {
    text = typeof error;
  }
  return { ok: false, name: 'Error', message: text, headline: `Uncaught ${text}` };
}

function settle(value: unknown): void {
  if (outcome !== undefined) return;
  try {
    outcome = { ok: true, result: resultText(value) };
  } catch (error) {
    outcome = failure(error);
  }
}

function fail(error: unknown): void {
  if (outcome === undefined) outcome = failure(error);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && NumberIsFinite(value) ? value : fallback;
}

/** A frozen, prototype-less object of these fields (what a compiled script links with). */
function frozenFields(fields: Record<string, unknown>): object {
  const table = ObjectCreate(null) as Record<string, unknown>;
  const names = ObjectKeys(fields);
  for (let i = 0; i < names.length; i++) ObjectDefineProperty(table, names[i], { value: fields[names[i]], enumerable: true });
  return ObjectFreeze(table);
}

/** Every instrumented catch asks first: a caught overflow or failed allocation still ends the run. */
function checkCaught(value: unknown): void {
  if (isStackOverflow(value)) native.limit('stack_exhausted');
  if (isAllocationFailure(value)) native.limit('memory_exhausted');
}

function makeRuntime(spec: unknown): object {
  return frozenFields({
    fuelBudget: numberOr(own(spec, 'fuelBudget'), 0),
    maxDepth: numberOr(own(spec, 'maxDepth'), 16),
    fuelOut() {
      // The stack names where the run stopped; the runner maps it to program.ts.
      let where = '';
      try {
        where = stackText(new ErrorConstructor('fuel')) ?? '';
      } catch {
        where = '';
      }
      native.limit('fuel_exhausted', 0, where);
    },
    stackOut(fuelLeft: number) {
      native.limit('stack_exhausted', fuelLeft);
    },
    checkCaught,
  });
}

/** The Package entries of the spec, checked (the runner's JSON, but read field by field). */
function packageSpecs(spec: unknown): PackageSpec[] {
  const list = own(spec, 'packages');
  const out: PackageSpec[] = [];
  if (!ArrayIsArray(list)) return out;
  for (let i = 0; i < list.length; i++) {
    const name = own(list[i], 'name');
    const filename = own(list[i], 'filename');
    const imports = own(list[i], 'imports');
    if (typeof name !== 'string' || typeof filename !== 'string' || !ArrayIsArray(imports)) continue;
    ArrayPrototypePush(out, { name, filename, imports: arrayFilter(imports, (x: unknown) => typeof x === 'string') as string[] });
  }
  return out;
}

/** The runtime object a Package's script links with: its fuel comes from the program's counter. */
function packageRuntime(spec: unknown, takeFuel: (units: number) => void, left: () => number, fetch: unknown): object {
  return frozenFields({
    maxDepth: numberOr(own(spec, 'maxDepth'), 16),
    takeFuel,
    fetch,
    stackOut() {
      native.limit('stack_exhausted', left());
    },
    checkCaught,
  });
}

function run(link: (rt: unknown) => Linked, specJson: string, ...packageLinks: Array<(rt: unknown) => unknown>): void {
  try {
    // Nothing of the program has run yet: reading the spec and the linked object is safe.
    const spec: unknown = JSONParse(specJson);
    const linked = link(makeRuntime(spec));
    const takeFuel = own(linked, 'takeFuel') as Linked['takeFuel'];
    const fuelLeft = own(linked, 'fuelLeft') as Linked['fuelLeft'];
    // Packages hold a small chunk of fuel each; what is left counts theirs too.
    const packageFuel: Array<() => number> = [];
    const left = () => {
      let total = fuelLeft();
      for (let i = 0; i < packageFuel.length; i++) total += packageFuel[i]();
      return total;
    };
    const runMeter: Meter = { take: (units) => takeFuel(units), left };
    meter = runMeter;
    // An error nothing caught in a timer, microtask or listener ends the run, as in Deno.
    // In runs with Packages the global fetch is the program's; each Package's code sees its own (its script binds it).
    startWebRun((op, args) => hostCallAsync(runMeter, 'web', op, args, attributing ? 'main' : null), fail);
    const hostModules = own(spec, 'hostModules') ?? {};
    const moduleNames = ObjectKeys(hostModules);
    const factories = (global.__svc_guest_modules ?? {}) as Record<string, GuestFactory>;
    delete global.__svc_guest_modules;
    const factoryNames = ObjectKeys(factories);
    // Each principal imports its own namespaces, whose calls are its own wherever they run:
    // the program's `fs.write`, bound and slipped into a Package as a getter, a method or a
    // callback, is still the program's call (a stack capture alone would name the Package).
    const tables = new SafeMap<string, Record<string, unknown>>();
    const namespacesOf = (owner: string): Record<string, unknown> => {
      const known = tables.get(owner);
      if (known !== undefined) return known;
      const table = ObjectCreate(null) as Record<string, unknown>;
      for (let i = 0; i < moduleNames.length; i++) {
        const module = moduleNames[i];
        if (isAsyncForm(module)) table[module] = asyncNamespaceOf(runMeter, module, own(hostModules, module) ?? [], own(factories, module), owner);
        else table[module] = namespaceOf(runMeter, module, own(hostModules, module) ?? [], owner);
      }
      for (let i = 0; i < factoryNames.length; i++) {
        const module = factoryNames[i];
        if (isAsyncForm(module)) continue;
        const call = (op: string, ...args: unknown[]) => hostCall(runMeter, module, op, args, owner);
        const raw = ObjectPrototypeHasOwnProperty(table, module) ? (table[module] as Record<string, unknown>) : namespaceOf(runMeter, module, [], owner);
        table[module] = ObjectFreeze(FunctionPrototypeCall(factories[module], undefined, call, guestPrimordials(), raw));
      }
      // Shared with other principals' code (handed over as values): frozen through.
      if (attributing) harden(table);
      tables.set(owner, table);
      return table;
    };
    const hostModule = (name: string, owner = 'main') => {
      const table = namespacesOf(owner);
      if (typeof name === 'string' && ObjectPrototypeHasOwnProperty(table, name)) return table[name];
      throw new Error(`module ${String_(name)} is not available`);
    };
    const specs = packageSpecs(spec);
    let packages: Map<string, Record<string, unknown>> | null = null;
    if (specs.length > 0) {
      // Before any Package or program code: attribution, then frozen built-ins.
      const callSite = installAttribution(SCRIPT_FILENAME, specs);
      attributing = true;
      lockdown(callSite ? [callSite] : []);
      const units: Array<Parameters<typeof loadPackages>[1][number]> = [];
      for (let i = 0; i < specs.length; i++) {
        const owner = specs[i].name;
        const packageFetch = fetchFor((op, args) => hostCallAsync(runMeter, 'web', op, args, owner));
        const packageLinked = packageLinks[i](packageRuntime(spec, takeFuel, left, packageFetch));
        const packageLeft = own(packageLinked, 'fuelLeft');
        if (typeof packageLeft === 'function') ArrayPrototypePush(packageFuel, packageLeft as () => number);
        ArrayPrototypePush(units, own(own(packageLinked, 'units'), specs[i].name));
      }
      packages = loadPackages(specs, units, hostModule, (units) => runMeter.take(units));
    }
    const listed = own(spec, 'listed');
    const require = (name: string) => {
      if (packages !== null && typeof name === 'string' && ArrayIsArray(listed) && ArrayPrototypeIncludes(listed, name)) {
        const namespace = packages.get(name);
        if (namespace !== undefined) return namespace;
      }
      return hostModule(name);
    };
    const module = { exports: {} as Record<string, unknown> };
    own(linked, 'units').main(require, module, module.exports);
    const main = module.exports.main;
    if (typeof main !== 'function') {
      outcome = { ok: false, name: 'TypeError', message: `main is not a function (it is ${main === null ? 'null' : typeof main})` };
      return;
    }
    const value = FunctionPrototypeCall(main as () => unknown, undefined);
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function') {
      PromisePrototypeThen(PromiseResolve(value), settle, fail);
    } else settle(value);
  } catch (error) {
    fail(error);
  }
}

/** Report fields as JSON text, built here: a toJSON or patched JSON cannot reach it. */
function field(name: string, value: string | number | null | undefined): string {
  if (value === undefined) return '';
  const text = value === null ? 'null' : typeof value === 'number' ? (NumberIsFinite(value) ? `${value}` : 'null') : jsonQuote(value);
  return `,${jsonQuote(name)}:${text}`;
}

function collect(): string {
  const left = meter ? meter.left() : null;
  const fuelLeft = typeof left === 'number' && NumberIsFinite(left) ? left : null;
  const now = outcome ?? {
    ok: false as const,
    name: 'Error',
    message: 'main returned a promise that can never settle: nothing is left that could resolve it (no timer and no host call is pending)',
  };
  const dropped = outcome === undefined ? 0 : webTimers.pendingCount();
  if (dropped > 0) native.console(`[${dropped} pending timer${dropped === 1 ? ' was' : 's were'} dropped: the run ends when main settles]`);
  if (now.ok) return `{"ok":true${field('result', now.result)}${field('fuelLeft', fuelLeft)}}`;
  let denied = '';
  if (now.denied) denied = `,"denied":{"caller":${jsonQuote(now.denied.caller)},"capability":${jsonQuote(now.denied.capability)},"source":${jsonQuote(now.denied.source)}}`;
  return `{"ok":false${field('name', now.name)}${field('message', now.message)}${field('headline', now.headline)}${field('stack', now.stack)}${denied}${field('fuelLeft', fuelLeft)}}`;
}

/** The runner's event loop: the next due time while main is pending (-1: no timer; -2: main has settled). */
function nextTimer(): number {
  return outcome === undefined ? webTimers.nextDue() : -2;
}

/** Runs one due timer; the runner calls it again after the microtasks drain. */
function fireTimers(now: number): void {
  webTimers.fireDue(now);
}

define('__svc_entry', { run, collect, nextTimer, fireTimers, deliver });
