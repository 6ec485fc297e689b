// The error class of @svc/typesafe: its own (a Package's class cannot extend another principal's),
// with its fields filled by @svc/kit's errorFields.
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/**
 * Every failure of this Package except permission denials and transport errors. `code` is
 * one of `missing_credentials`, `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or `http_error`; `status` is the HTTP status of TypeSafe's answer (0 for local failures).
 */
export interface TypeSafeError extends ServiceErrorFields, TypeSafeErrorExtras {}
export class TypeSafeError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<TypeSafeErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("TypeSafeError", code, status, extra, ["retryAfterSeconds", "requestId"]));
  }
}

/** What a TypeSafeError carries beside `code` and `status` (the constructor's `extra`). */
export interface TypeSafeErrorExtras {
  /** Seconds to wait before retrying (429), when TypeSafe says, or null. */
  readonly retryAfterSeconds: number | null;
  /** TypeSafe's request id (`x-typesafe-request-id`), or null. */
  readonly requestId: string | null;
}
