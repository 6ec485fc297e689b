// Sentry's answers: errors with rate-limit data, JSON bodies, and the Link header's cursor.
import type { Response } from "svc:http";
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/**
 * What every `@svc/sentry` function throws for its own failures. `code` is one of
 * `missing_token`, `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`,
 * `not_found`, `rate_limited`, `http_error`; `status` is the HTTP status (0 for local failures).
 */
export interface SentryError extends ServiceErrorFields, SentryErrorExtras {}
export class SentryError extends Error {
  constructor(code: string, message: string, status = 0, meta: Partial<SentryErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("SentryError", code, status, meta, ["requestId", "retryAfterSeconds", "rateLimitLimit", "rateLimitRemaining", "rateLimitReset"]));
  }
}

/** What a SentryError carries beside `code` and `status` (the constructor's `meta`). */
export interface SentryErrorExtras {
  /** Sentry's request id (`X-Request-Id`), or null. */
  readonly requestId: string | null;
  /** Seconds Sentry asked to wait (`Retry-After`), or null. */
  readonly retryAfterSeconds: number | null;
  /** Requests allowed in the window (`X-Sentry-Rate-Limit-Limit`), or null. */
  readonly rateLimitLimit: number | null;
  /** Requests left in the window (`X-Sentry-Rate-Limit-Remaining`), or null. */
  readonly rateLimitRemaining: number | null;
  /** When the window resets, epoch seconds (`X-Sentry-Rate-Limit-Reset`), or null. */
  readonly rateLimitReset: number | null;
}

/** A bad argument: names the field and what is accepted. */
export function invalid(field: string, accepted: string): SentryError {
  return new SentryError("invalid_argument", `${field}: expected ${accepted}`);
}

function headerNumber(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  if (value == null || !/^\d+(\.\d+)?$/.test(value.trim())) return null;
  return Number(value.trim());
}

function retryAfter(response: Response): number | null {
  const value = response.headers.get("retry-after");
  if (value == null || value.trim() === "") return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value.trim()));
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, Math.ceil((when - Date.now()) / 1000));
}

/** The error for a non-2xx answer, with Sentry's `detail` text when the body has one. */
export function httpError(response: Response, operation: string): SentryError {
  let detail = "";
  try {
    const body = JSON.parse(response.body) as { detail?: unknown };
    if (typeof body?.detail === "string") detail = ": " + body.detail.slice(0, 500);
  } catch {
    // Not JSON: the status says enough.
  }
  const status = response.status;
  const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
  return new SentryError(code, `sentry ${operation} failed: HTTP ${status}${detail}`, status, {
    requestId: response.headers.get("x-request-id") ?? null,
    retryAfterSeconds: retryAfter(response),
    rateLimitLimit: headerNumber(response, "x-sentry-rate-limit-limit"),
    rateLimitRemaining: headerNumber(response, "x-sentry-rate-limit-remaining"),
    rateLimitReset: headerNumber(response, "x-sentry-rate-limit-reset"),
  });
}

/** The JSON body of a 2xx answer. */
export function parseJson(response: Response, operation: string): unknown {
  if (!response.ok) throw httpError(response, operation);
  try {
    return JSON.parse(response.body);
  } catch {
    throw new SentryError("invalid_response", `sentry ${operation}: the answer is not JSON`, response.status);
  }
}

/** What a cursor may contain (Sentry's look like `1700000000000:0:1`). */
export const CURSOR = /^[A-Za-z0-9:._-]{1,200}$/;

/** The cursor of the `rel="next"` link when it has results, else null. */
export function nextCursor(response: Response): string | null {
  const link = response.headers.get("link");
  if (link == null) return null;
  for (const part of link.split(/,\s*(?=<)/)) {
    if (!/rel="next"/.test(part) || !/results="true"/.test(part)) continue;
    const cursor = /cursor="([^"]*)"/.exec(part)?.[1];
    if (cursor && CURSOR.test(cursor)) return cursor;
  }
  return null;
}
