// The Google Calendar API v3 client of @svc/google-calendar: one request per call with the
// shared Google access token (never refreshed), Google's error shape turned into
// CalendarError. Each Google Package carries its own client because curated Packages
// declare no dependency on each other.
import secrets from "svc:secrets";
import { get, post, patch, del } from "svc:http";

const API = "https://www.googleapis.com/calendar/v3/";

/** Google `errors[].reason` values that mean a rate or quota limit, even on HTTP 403. */
const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"]);

/**
 * A failed Calendar call. `code` is one of `missing_token`, `invalid_argument`,
 * `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or
 * `http_error`; `status` is the HTTP status (0 for local failures).
 */
export class CalendarError extends Error {
  /** Machine-readable code (see the class summary). */
  readonly code: string;
  /** HTTP status of Google's answer, 0 when no answer was involved. */
  readonly status: number;
  /** Google's `error.status` (`PERMISSION_DENIED`, ...) or null. */
  readonly googleStatus: string | null;
  /** The first `error.errors[].reason` (`rateLimitExceeded`, `forbiddenForNonOrganizer`, ...) or null. */
  readonly reason: string | null;
  /** Seconds to wait before retrying, from `Retry-After`; otherwise null. */
  readonly retryAfterSeconds: number | null;

  constructor(code: string, message: string, status = 0, extra: { googleStatus?: string | null; reason?: string | null; retryAfterSeconds?: number | null } = {}) {
    super(message);
    this.name = "CalendarError";
    this.code = code;
    this.status = status;
    this.googleStatus = extra.googleStatus ?? null;
    this.reason = extra.reason ?? null;
    this.retryAfterSeconds = extra.retryAfterSeconds ?? null;
  }
}

/** A JSON object as Google returns it. */
export type Json = Record<string, unknown>;

/** Query parameters; undefined and null are left out, arrays repeat the name. */
export type Query = Record<string, string | number | boolean | string[] | null | undefined>;

function authorization(): Record<string, string> {
  const token = secrets.get("GOOGLE_ACCESS_TOKEN");
  if (token == null || token === "") throw new CalendarError("missing_token", "GOOGLE_ACCESS_TOKEN is not set: declare and bind it in the Blueprint's secrets (it is never refreshed by the Package)");
  return { authorization: "Bearer " + token };
}

function queryString(params: Query): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value == null) continue;
    for (const item of Array.isArray(value) ? value : [value]) parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(String(item)));
  }
  return parts.length > 0 ? "?" + parts.join("&") : "";
}

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };

/** GET `calendar/v3/<path>`. */
export function apiGet(what: string, path: string, params: Query = {}): Json {
  const headers = authorization();
  const r = get(API + path + queryString(params), headers);
  return answer(what, r.status, r.headers, r.body);
}

/** POST a JSON body. */
export function apiPost(what: string, path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = post(API + path + queryString(params), body ?? {}, { ...headers, ...JSON_TYPE });
  return answer(what, r.status, r.headers, r.body);
}

/** PATCH with a JSON body (only the fields given change). */
export function apiPatch(what: string, path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = patch(API + path + queryString(params), body ?? {}, { ...headers, ...JSON_TYPE });
  return answer(what, r.status, r.headers, r.body);
}

/** DELETE (Calendar answers 204 without a body). */
export function apiDelete(what: string, path: string, params: Query = {}): void {
  const headers = authorization();
  const r = del(API + path + queryString(params), headers);
  if (r.status < 200 || r.status > 299) throw googleError(what, r.status, r.headers, r.body);
}

function answer(what: string, status: number, headers: Map<string, string>, text: string): Json {
  if (status < 200 || status > 299) throw googleError(what, status, headers, text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CalendarError("invalid_response", `Calendar ${what} answered with a body that is not JSON`, status);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new CalendarError("invalid_response", `Calendar ${what} answered with JSON that is not an object`, status);
  return parsed as Json;
}

/** Maps Google's `{error: {code, status, message, errors: [{reason}]}}` answer to a CalendarError. */
function googleError(what: string, status: number, headers: Map<string, string>, text: string): CalendarError {
  let googleStatus: string | null = null;
  let reason: string | null = null;
  let detail = "";
  try {
    const error = (JSON.parse(text) as { error?: { status?: unknown; message?: unknown; errors?: Array<{ reason?: unknown }> } }).error;
    if (error && typeof error === "object") {
      if (typeof error.status === "string") googleStatus = error.status;
      if (typeof error.message === "string") detail = error.message;
      const first = Array.isArray(error.errors) ? error.errors.find((e) => e && typeof e.reason === "string") : undefined;
      if (first) reason = first.reason as string;
    }
  } catch {
    // Not Google's JSON error shape: the status alone decides.
  }
  const seconds = Number(headers.get("retry-after"));
  const retryAfterSeconds = headers.has("retry-after") && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
  const rateLimited = status === 429 || (status === 403 && reason !== null && RATE_REASONS.has(reason));
  // 410 Gone is how Calendar answers for an event that was deleted.
  const code = rateLimited ? "rate_limited" : status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 || status === 410 ? "not_found" : "http_error";
  const message = `Calendar ${what} failed: HTTP ${status}` + (detail ? `: ${detail}` : "") + (retryAfterSeconds != null ? `; retry after ${retryAfterSeconds} s` : "");
  return new CalendarError(code, message, status, { googleStatus, reason, retryAfterSeconds });
}
