// The error class of @svc/google-drive: its own (a Package's class cannot extend another principal's),
// with the fields @svc/kit describes and fills for the three Google Packages.
import { googleErrorFields, type GoogleErrorExtras, type ServiceErrorFields } from "@svc/kit";

/**
 * A failed Drive call. `code` is one of `missing_token`, `invalid_argument`,
 * `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or
 * `http_error`; `status` is the HTTP status (0 for local failures).
 * Google's `googleStatus`, `reason` (the first `error.errors[].reason`, e.g. `insufficientFilePermissions`) and
 * `retryAfterSeconds` are kept as they came, or null.
 */
export interface DriveError extends ServiceErrorFields, GoogleErrorExtras {}
export class DriveError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<GoogleErrorExtras> = {}) {
    super(message);
    Object.assign(this, googleErrorFields("DriveError", code, status, extra));
  }
}
