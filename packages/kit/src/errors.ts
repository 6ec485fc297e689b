// How the kit raises errors: always through the consuming Package's own error class, so a
// program sees GmailError, SlackError, ... exactly as before and `instanceof` keeps working.

/** A curated Package's error class: `new (code, message, status?, extra?)`. */
export type ErrorClass = new (code: string, message: string, status?: number, extra?: Record<string, unknown>) => Error;

/** A JSON object as a service returns it. */
export type Json = Record<string, unknown>;
