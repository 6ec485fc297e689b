// The error class of @svc/exa: its own (a Package's class cannot extend another principal's),
// with its fields filled by @svc/kit's errorFields.
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/**
 * Every failure of this Package except permission denials and transport errors. `code` is
 * one of `missing_credentials`, `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or `http_error`; `status` is the HTTP status of Exa's answer (0 for local failures).
 */
export interface ExaError extends ServiceErrorFields, ExaErrorExtras {}
export class ExaError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<ExaErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("ExaError", code, status, extra, ["retryAfterSeconds", "requestId", "tag"]));
  }
}

/** What an ExaError carries beside `code` and `status` (the constructor's `extra`). */
export interface ExaErrorExtras {
  /** Seconds to wait before retrying, when Exa says (Retry-After), or null. */
  readonly retryAfterSeconds: number | null;
  /** Exa's request id (quote it to Exa support), or null. */
  readonly requestId: string | null;
  /** Exa's machine-readable error tag (e.g. `INVALID_REQUEST_BODY`), or null. */
  readonly tag: string | null;
}
