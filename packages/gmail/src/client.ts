// The Gmail API client of @svc/gmail: one request per call with the shared Google access
// token (never refreshed), Google's error shape turned into GmailError. Each Google Package
// carries its own client because curated Packages declare no dependency on each other.
import secrets from "svc:secrets";
import { get, post, del } from "svc:http";

const API = "https://gmail.googleapis.com/gmail/v1/users/me/";

/** Google `errors[].reason` values that mean a rate or quota limit, even on HTTP 403. */
const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "dailyLimitExceeded", "quotaExceeded"]);

/**
 * A failed Gmail call. `code` is one of `missing_token`, `invalid_argument`,
 * `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited` or
 * `http_error`; `status` is the HTTP status (0 for local failures).
 */
export class GmailError extends Error {
  /** Machine-readable code (see the class summary). */
  readonly code: string;
  /** HTTP status of Google's answer, 0 when no answer was involved. */
  readonly status: number;
  /** Google's `error.status` (`PERMISSION_DENIED`, `NOT_FOUND`, ...) or null. */
  readonly googleStatus: string | null;
  /** The first `error.errors[].reason` (`rateLimitExceeded`, `insufficientPermissions`, ...) or null. */
  readonly reason: string | null;
  /** Seconds to wait before retrying, from `Retry-After`; otherwise null. */
  readonly retryAfterSeconds: number | null;

  constructor(code: string, message: string, status = 0, extra: { googleStatus?: string | null; reason?: string | null; retryAfterSeconds?: number | null } = {}) {
    super(message);
    this.name = "GmailError";
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
  if (token == null || token === "") throw new GmailError("missing_token", "GOOGLE_ACCESS_TOKEN is not set: declare and bind it in the Blueprint's secrets (it is never refreshed by the Package)");
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

/** GET `users/me/<path>`; returns the parsed JSON object. */
export function apiGet(path: string, params: Query = {}): Json {
  const headers = authorization();
  const r = get(API + path + queryString(params), headers);
  return answer(path, r.status, r.headers, r.body);
}

/** POST a JSON body to `users/me/<path>`. */
export function apiPost(path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = post(API + path + queryString(params), body ?? {}, { ...headers, "content-type": "application/json; charset=utf-8" });
  return answer(path, r.status, r.headers, r.body);
}

/** DELETE `users/me/<path>` (Gmail answers 204 without a body). */
export function apiDelete(path: string): void {
  const headers = authorization();
  const r = del(API + path, headers);
  if (r.status < 200 || r.status > 299) throw googleError(path, r.status, r.headers, r.body);
}

function answer(path: string, status: number, headers: Map<string, string>, text: string): Json {
  if (status < 200 || status > 299) throw googleError(path, status, headers, text);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GmailError("invalid_response", `Gmail ${what(path)} answered with a body that is not JSON`, status);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new GmailError("invalid_response", `Gmail ${what(path)} answered with JSON that is not an object`, status);
  return parsed as Json;
}

/** The resource part of a path for messages ("messages/send", "threads/{id}" -> "threads"). */
function what(path: string): string {
  return path.split("?")[0].split("/").slice(0, 1).join("/") || "request";
}

/** Maps Google's `{error: {code, status, message, errors: [{reason}]}}` answer to a GmailError. */
function googleError(path: string, status: number, headers: Map<string, string>, text: string): GmailError {
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
  const code = rateLimited ? "rate_limited" : status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : "http_error";
  const message = `Gmail ${what(path)} failed: HTTP ${status}` + (detail ? `: ${detail}` : "") + (retryAfterSeconds != null ? `; retry after ${retryAfterSeconds} s` : "");
  return new GmailError(code, message, status, { googleStatus, reason, retryAfterSeconds });
}
