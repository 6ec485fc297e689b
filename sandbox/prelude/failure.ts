// How a run failed, read from what the program threw without running any of its code: the
// name, message and stack of an Error (only data properties or the engine's own getter are
// read), a thrown non-Error value rendered, and the host's own facts of a permission denial.
// A stack overflow or a failed allocation is a limit, not a failure: it ends the run at once.
import { FunctionPrototypeCall, isErrorLike, jsonQuote, ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf, ObjectPrototypeHasOwnProperty, ObjectPrototypeToString, own, String_, StringPrototypeSlice } from './primordials';
import { native } from './native';
import { runtimeDenial, type DenialFacts } from './errors';
import { renderValue } from './render';

/** How main ended, as the report gives it to the runner. */
export type Outcome =
  | { ok: true; result: string | null }
  | { ok: false; name: string; message: string; headline?: string; stack?: string; denied?: DenialFacts };

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
/** Captured before the program runs: a replaced global `Error` never runs here. */
export const ErrorConstructor = Error;
const ErrorPrototype = Error.prototype;
/** V8's own `stack` getter, where the engine defines `stack` as an accessor (newer V8). */
const engineStackGetter: unknown = own(ObjectGetOwnPropertyDescriptor(probeError(), 'stack'), 'get') ?? own(ObjectGetOwnPropertyDescriptor(ErrorPrototype, 'stack'), 'get');

/**
 * An error made with no stack frames: where V8 keeps `stack` as a data property (Node 20's),
 * reading its descriptor formats the trace, and formatting a captured one in every fresh
 * context cost more than anything else in this module (bench/PROFILE.md, round 39).
 */
function probeError(): Error {
  const limit = ErrorConstructor.stackTraceLimit;
  ErrorConstructor.stackTraceLimit = 0;
  try {
    return new ErrorConstructor('probe');
  } finally {
    ErrorConstructor.stackTraceLimit = limit;
  }
}

/**
 * An error's `stack` as text, cut to MAX_STACK_CHARS. Only a data property or the engine's
 * own getter is read: a getter the program defined (or a Proxy's `get` trap) is never run.
 */
export function stackText(error: object): string | undefined {
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

export function failure(error: unknown): Outcome {
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

/** Every instrumented catch asks first: a caught overflow or failed allocation still ends the run. */
export function checkCaught(value: unknown): void {
  if (isStackOverflow(value)) native.limit('stack_exhausted');
  if (isAllocationFailure(value)) native.limit('memory_exhausted');
}
