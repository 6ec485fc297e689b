// Argument checks every curated Package shares: each returns the normalised value or throws
// the Package's error with code `invalid_argument`, naming the parameter and what is
// accepted, before any permission check or request.
import type { ErrorClass } from "./errors";

/** The shared argument checks, bound to one Package's error class. */
export interface ArgumentChecks {
  /** The Package's `invalid_argument` error with this message (status 0: nothing was sent). */
  invalid(message: string): Error;
  /** An options object (undefined and null mean none). */
  optionsArg(value: unknown, name?: string): Record<string, unknown>;
  /** An integer from `min` to `max`, or undefined. */
  intArg(value: unknown, name: string, min: number, max: number): number | undefined;
  /** An integer page size from 1 to `max`, or undefined for the service's default. */
  limitArg(value: unknown, name: string, max: number): number | undefined;
  /** A `nextPageToken` returned by an earlier call, or undefined. */
  pageTokenArg(value: unknown, name?: string): string | undefined;
  /** An optional boolean. */
  flagArg(value: unknown, name: string): boolean | undefined;
}

/**
 * The shared argument checks, raising `invalid_argument` errors of the given class.
 * @param errorClass The consuming Package's error class (constructed as `new errorClass("invalid_argument", message)`).
 * @returns The checks, each throwing an instance of `errorClass`.
 */
export function argumentChecks(errorClass: ErrorClass): ArgumentChecks {
  const invalid = (message: string): Error => new errorClass("invalid_argument", message);
  const intArg = (value: unknown, name: string, min: number, max: number): number | undefined => {
    if (value == null) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) throw invalid(`${name} must be an integer from ${min} to ${max}`);
    return value;
  };
  return {
    invalid,
    optionsArg(value, name = "options") {
      if (value == null) return {};
      if (typeof value !== "object" || Array.isArray(value)) throw invalid(`${name} must be an object or omitted`);
      return value as Record<string, unknown>;
    },
    intArg,
    limitArg: (value, name, max) => intArg(value, name, 1, max),
    pageTokenArg(value, name = "options.pageToken") {
      if (value == null) return undefined;
      if (typeof value !== "string" || value === "") throw invalid(`${name} must be the nextPageToken string of an earlier page`);
      return value;
    },
    flagArg(value, name) {
      if (value == null) return undefined;
      if (typeof value !== "boolean") throw invalid(`${name} must be true or false`);
      return value;
    },
  };
}
