// Google's REST answers as the three Google Packages (@svc/gmail, @svc/google-calendar,
// @svc/google-drive) see them: the JSON body of a success, and Google's error shape
// `{error: {code, status, message, errors: [{reason}]}}` as the caller's error. The request
// (with the GOOGLE_ACCESS_TOKEN the Package read itself) stays in each Package.
import { errorFields, type ErrorClass, type ErrorFields, type Json } from "./errors";
import { jsonObject, retryAfter } from "./http";

/** Google `errors[].reason` values that mean a rate or quota limit, even on HTTP 403. */
const RATE_REASONS = ["rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"];

/** What a Google Package's error carries beside `code` and `status` (the constructor's `extra`). */
export interface GoogleErrorExtras {
  /** Google's `error.status` (`PERMISSION_DENIED`, `NOT_FOUND`, ...) or null. */
  readonly googleStatus: string | null;
  /** The first `error.errors[].reason` (`rateLimitExceeded`, `insufficientPermissions`, ...) or null. */
  readonly reason: string | null;
  /** Seconds to wait before retrying, from `Retry-After`; otherwise null. */
  readonly retryAfterSeconds: number | null;
}

/**
 * A Google Package error's fields from its constructor's arguments (for `Object.assign(this, …)`).
 * @param name The class's name, the error's `name`.
 * @param code The machine-readable code.
 * @param status The HTTP status, 0 for local failures.
 * @param extra The constructor's extra fields, as the caller gave them.
 * @returns `name`, `code`, `status` and the extras (null where not given).
 */
export function googleErrorFields(name: string, code: string, status: number, extra: Partial<GoogleErrorExtras>): ErrorFields<GoogleErrorExtras> {
  return errorFields(name, code, status, extra, ["googleStatus", "reason", "retryAfterSeconds"]);
}

/** How one Google Package names itself and reads Google's answers. */
export interface GoogleService {
  /** The service in messages: "Gmail", "Calendar", "Drive". */
  service: string;
  /** More `errors[].reason` values that mean a rate limit (e.g. Drive's `sharingRateLimitExceeded`). */
  rateReasons?: string[];
  /** More HTTP statuses that mean `not_found` (e.g. Calendar's 410 for a deleted event). */
  notFoundStatuses?: number[];
  /** A 2xx answer with an empty body reads as `{}` (Gmail, Drive); otherwise it is invalid_response. */
  emptyBodyIsObject?: boolean;
}

/** What one Google Package reads of Google's answers, bound to its error class. */
export interface GoogleAnswers {
  /** The JSON object of a 2xx answer to `what` (`{}` for an empty body), else the error it means. */
  answer(what: string, status: number, headers: Map<string, string>, body: string): Json;
  /** The error a non-2xx answer to `what` means (rate_limited, unauthorized, forbidden, not_found, http_error). */
  failure(what: string, status: number, headers: Map<string, string>, body: string): Error;
}

/**
 * Reading Google's answers, raising errors of the caller's class.
 * @param errorClass The Package's error class (`code`, `message`, `status`, `{ googleStatus, reason, retryAfterSeconds }`).
 * @param service How the Package names itself, and its extra rate-limit reasons and not-found statuses.
 * @returns `answer` and `failure`.
 */
export function googleAnswers(errorClass: ErrorClass, service: GoogleService): GoogleAnswers {
  const rateReasons = [...RATE_REASONS, ...(service.rateReasons ?? [])];
  const notFound = [404, ...(service.notFoundStatuses ?? [])];
  const failure = (what: string, status: number, headers: Map<string, string>, body: string): Error => {
    let googleStatus: string | null = null;
    let reason: string | null = null;
    let detail = "";
    try {
      const error = (JSON.parse(body) as { error?: { status?: unknown; message?: unknown; errors?: Array<{ reason?: unknown }> } }).error;
      if (error && typeof error === "object") {
        if (typeof error.status === "string") googleStatus = error.status;
        if (typeof error.message === "string") detail = error.message;
        const first = Array.isArray(error.errors) ? error.errors.find((e) => e && typeof e.reason === "string") : undefined;
        if (first) reason = first.reason as string;
      }
    } catch {
      // Not Google's JSON error shape: the status alone decides.
    }
    const retryAfterSeconds = retryAfter(headers);
    const rateLimited = status === 429 || (status === 403 && reason !== null && rateReasons.includes(reason));
    const code = rateLimited ? "rate_limited" : status === 401 ? "unauthorized" : status === 403 ? "forbidden" : notFound.includes(status) ? "not_found" : "http_error";
    const message = `${service.service} ${what} failed: HTTP ${status}` + (detail ? `: ${detail}` : "") + (retryAfterSeconds != null ? `; retry after ${retryAfterSeconds} s` : "");
    return new errorClass(code, message, status, { googleStatus, reason, retryAfterSeconds });
  };
  return {
    failure,
    answer(what, status, headers, body) {
      if (status < 200 || status > 299) throw failure(what, status, headers, body);
      if (service.emptyBodyIsObject === true && body.trim() === "") return {};
      return jsonObject(body, status, `${service.service} ${what}`, errorClass);
    },
  };
}
