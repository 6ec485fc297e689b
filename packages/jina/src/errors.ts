// The error class of @svc/jina: its own (a Package's class cannot extend another principal's),
// with its fields filled by @svc/kit's errorFields.
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/**
 * Every failure of this Package except permission denials and transport errors. `code` is
 * one of `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or `http_error`; `status` is the HTTP status of Jina's answer (0 for local failures).
 */
export interface JinaError extends ServiceErrorFields, JinaErrorExtras {}
export class JinaError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<JinaErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("JinaError", code, status, extra, ["retryAfterSeconds", "serviceName"]));
  }
}

/** What a JinaError carries beside `code` and `status` (the constructor's `extra`). */
export interface JinaErrorExtras {
  /** Seconds to wait before retrying (429), when Jina says, or null. */
  readonly retryAfterSeconds: number | null;
  /** Jina's error name (e.g. `RateLimitTriggeredError`), or null. */
  readonly serviceName: string | null;
}
