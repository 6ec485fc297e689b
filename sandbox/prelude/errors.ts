// The error classes programs see. Instances created by the runtime (host refusals) are
// remembered in a private map with the facts the host sent, so only those count as
// `permission_denied` when they escape main, and with the host's caller, capability and
// source even if the program edits the object; one the program constructs is an
// ordinary runtime error.
import { own, ObjectDefineProperty, onFirstUse, SafeWeakMap, String_ } from './primordials';
import type { DenialFacts, HostErrorName, HostErrorShape } from '../contract';

export type { DenialFacts, HostErrorShape };

const runtimeRaised = onFirstUse(() => new SafeWeakMap<object, DenialFacts>());

function defineField(target: object, name: string, value: unknown): void {
  // Defined, not assigned: a setter the program put on Object.prototype must not run.
  ObjectDefineProperty(target, name, { value, writable: true, configurable: true, enumerable: true });
}

export class PermissionDeniedError extends Error {
  declare readonly caller: string;
  declare readonly capability: string;
  declare readonly reason: string;
  declare readonly source?: string;
  /** The declared signature is (message, caller, capability, reason); the runtime adds `source`. */
  constructor(message?: string, caller?: string, capability?: string, reason?: string, source?: string) {
    super(message);
    defineField(this, 'name', 'PermissionDeniedError');
    defineField(this, 'caller', caller ?? '');
    defineField(this, 'capability', capability ?? '');
    defineField(this, 'reason', reason ?? '');
    if (source !== undefined) defineField(this, 'source', source);
  }
}

export class QuotaExceededError extends Error {
  constructor(message?: string) {
    super(message);
    defineField(this, 'name', 'QuotaExceededError');
  }
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/**
 * The class for every other row of the contract's HOST_ERRORS table (a row added there fails
 * type checking here until it has one). Captured while the prelude is evaluated, before any
 * program code could replace a global constructor.
 */
const rebuilt: { readonly [K in Exclude<HostErrorName, 'PermissionDeniedError'>]: new (message: string) => Error } = {
  QuotaExceededError,
  TypeError,
  RangeError,
  SyntaxError,
  Error,
};

/** Rebuilds a host error (parsed JSON: read own fields only) as the class the program should catch. */
export function guestError(shape: unknown): Error {
  const name = text(own(shape, 'name'), 'Error');
  const message = text(own(shape, 'message'), 'the host call failed');
  if (name === 'PermissionDeniedError') {
    const facts: DenialFacts = { caller: text(own(shape, 'caller'), ''), capability: text(own(shape, 'capability'), ''), source: text(own(shape, 'source'), 'policy') };
    const error = new PermissionDeniedError(message, facts.caller, facts.capability, text(own(shape, 'reason'), ''), facts.source);
    runtimeRaised().set(error, facts);
    return error;
  }
  const ErrorClass: (new (message: string) => Error) | undefined = own(rebuilt, name);
  if (ErrorClass === QuotaExceededError) return new QuotaExceededError(message);
  const error = new (ErrorClass ?? rebuilt.Error)(message);
  if (ErrorClass === undefined) defineField(error, 'name', String_(name));
  const code = own(shape, 'code');
  if (typeof code === 'string') defineField(error, 'code', code);
  return error;
}

/** The host's facts for a refusal the runtime raised; undefined for any other value. */
export function runtimeDenial(value: unknown): DenialFacts | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return runtimeRaised().get(value);
}

export function installErrorGlobals(): void {
  ObjectDefineProperty(globalThis, 'PermissionDeniedError', { value: PermissionDeniedError, writable: true, configurable: true });
  ObjectDefineProperty(globalThis, 'QuotaExceededError', { value: QuotaExceededError, writable: true, configurable: true });
}
