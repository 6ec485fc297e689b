// The error classes programs see. Instances created by the runtime (host refusals) are
// branded in a private WeakSet, so only those count as `permission_denied` when they
// escape main; one the program constructs itself is an ordinary runtime error.
const runtimeRaised = new WeakSet<object>();

export class PermissionDeniedError extends Error {
  readonly caller: string;
  readonly capability: string;
  readonly reason: string;
  readonly source?: string;
  /** The declared signature is (message, caller, capability, reason); the runtime adds `source`. */
  constructor(message?: string, caller?: string, capability?: string, reason?: string, source?: string) {
    super(message);
    this.name = 'PermissionDeniedError';
    this.caller = caller ?? '';
    this.capability = capability ?? '';
    this.reason = reason ?? '';
    if (source !== undefined) this.source = source;
  }
}

export class QuotaExceededError extends Error {
  constructor(message?: string) {
    super(message);
    this.name = 'QuotaExceededError';
  }
}

// The wire shape is shared with the host side (type only: nothing is bundled from it).
import type { HostErrorShape } from '../pool/types';
export type { HostErrorShape };

/** Rebuilds a host error as the class the program should catch. */
export function guestError(shape: HostErrorShape): Error {
  let error: Error;
  switch (shape.name) {
    case 'PermissionDeniedError':
      error = new PermissionDeniedError(shape.message, shape.caller, shape.capability, shape.reason, shape.source ?? 'policy');
      runtimeRaised.add(error);
      return error;
    case 'QuotaExceededError':
      return new QuotaExceededError(shape.message);
    case 'TypeError':
      error = new TypeError(shape.message);
      break;
    case 'RangeError':
      error = new RangeError(shape.message);
      break;
    default:
      error = new Error(shape.message);
      if (shape.name && shape.name !== 'Error') error.name = shape.name;
  }
  if (shape.code !== undefined) (error as Error & { code?: string }).code = shape.code;
  return error;
}

export function isRuntimeDenial(value: unknown): value is PermissionDeniedError {
  return typeof value === 'object' && value !== null && runtimeRaised.has(value);
}

export function installErrorGlobals(): void {
  Object.defineProperty(globalThis, 'PermissionDeniedError', { value: PermissionDeniedError, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'QuotaExceededError', { value: QuotaExceededError, writable: true, configurable: true });
}
