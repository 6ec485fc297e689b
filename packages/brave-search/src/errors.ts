// The error class of @svc/brave-search: its own (a Package's class cannot extend another principal's),
// with its fields filled by @svc/kit's errorFields.
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/** Rate-limit windows Brave reports (per second first, then per month); `reset` is seconds until each resets. */
export type RateLimit = { limit: number[]; remaining: number[]; reset: number[] };

/**
 * Every failure of this Package except permission denials and transport errors. `code` is
 * one of `missing_credentials`, `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or `http_error`; `status` is the HTTP status of Brave's answer (0 for local failures).
 */
export interface BraveSearchError extends ServiceErrorFields, BraveSearchErrorExtras {}
export class BraveSearchError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<BraveSearchErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("BraveSearchError", code, status, extra, ["retryAfterSeconds", "serviceCode"]), { rateLimit: extra.rateLimit ?? null });
  }
}

/** What a BraveSearchError carries beside `code` and `status` (the constructor's `extra`). */
export interface BraveSearchErrorExtras {
  /** Seconds to wait before retrying (429), or null. */
  readonly retryAfterSeconds: number | null;
  /** Rate-limit windows from Brave's headers (per second first, then per month; `reset` in seconds), or null. */
  readonly rateLimit: RateLimit | null;
  /** Brave's own error code (e.g. `RATE_LIMITED`), or null. */
  readonly serviceCode: string | null;
}
