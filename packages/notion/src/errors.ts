// The error class of @svc/notion: its own (a Package's class cannot extend another principal's),
// with the fields filled by @svc/kit's errorFields.
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/**
 * A failed Notion call. `code` is one of `missing_token`, `invalid_argument`,
 * `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or
 * `http_error` (any other status; read `notionCode`, for example `validation_error` or
 * `conflict_error`). `notionCode` keeps Notion's own code (`object_not_found`,
 * `restricted_resource`, ...).
 */
export interface NotionError extends ServiceErrorFields, NotionErrorExtras {}
export class NotionError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<NotionErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("NotionError", code, status, extra, ["notionCode", "requestId", "retryAfterSeconds"]));
  }
}

/** What a NotionError carries beside `code` and `status` (the constructor's `extra`). */
export interface NotionErrorExtras {
  /** Notion's own error code, or null. */
  readonly notionCode: string | null;
  /** Notion's `request_id`, or null. */
  readonly requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After` on HTTP 429; otherwise null. */
  readonly retryAfterSeconds: number | null;
}
