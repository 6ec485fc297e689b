// How the kit raises errors: always through the consuming Package's own error class, so a
// program sees GmailError, SlackError, ... exactly as before and `instanceof` keeps working.
// The class itself stays in each Package (a Package's class cannot extend another
// principal's class); what the classes have in common, their fields, is described and
// filled here once.

/** A curated Package's error class: `new (code, message, status?, extra?)`. */
export type ErrorClass = new (code: string, message: string, status?: number, extra?: Record<string, unknown>) => Error;

/** A JSON object as a service returns it. */
export type Json = Record<string, unknown>;

/** What every curated Package's error carries beside `name` and `message`. */
export interface ServiceErrorFields {
  /** Machine-readable code (see the class summary). */
  readonly code: string;
  /** HTTP status of the service's answer, 0 for local failures. */
  readonly status: number;
}

/** The keys of `T` whose values are primitives (null included). */
export type PrimitiveKeys<T> = { [K in keyof T]-?: T[K] extends string | number | boolean | null | undefined ? K : never }[keyof T];

/**
 * The fields an error class sets from its constructor's arguments, to be copied onto the
 * new error with `Object.assign(this, …)`: `name`, `code`, `status`, and each extra field
 * `keys` names, taken from `extra` (null when `extra` leaves it out). Keys of `extra` that
 * `keys` does not name are ignored. The extras are primitives: those cross back to the
 * Package as they are, where an object made here would reach it as a view (a Package sets
 * an array or object field itself).
 * @param name The class's name (`GmailError`), the error's `name`.
 * @param code The machine-readable code.
 * @param status The HTTP status, 0 for local failures.
 * @param extra The constructor's extra fields, as the caller gave them.
 * @param keys Every primitive extra field the class has.
 * @returns The fields, in that order.
 */
export function errorFields<Extras, Key extends PrimitiveKeys<Extras>>(name: string, code: string, status: number, extra: Partial<Extras>, keys: readonly Key[]): ErrorFields<Pick<Extras, Key>> {
  const fields: Record<string, unknown> = { name, code, status };
  for (const key of keys) fields[key as string] = extra[key] ?? null;
  return fields as unknown as ErrorFields<Pick<Extras, Key>>;
}

/** What `errorFields` gives: the error's name, code, status and extras. */
export type ErrorFields<Extras> = { name: string } & ServiceErrorFields & Extras;
