import type { Response } from "svc:http";

/**
 * What every `@svc/firecrawl` function throws for its own failures. `code` is one of
 * `missing_credentials`, `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`,
 * `not_found`, `rate_limited`, `http_error`; `status` is the HTTP status (0 for local failures).
 */
export class FirecrawlError extends Error {
  /** Machine-readable reason (see the class summary). */
  readonly code: string;
  /** HTTP status of Firecrawl's answer, 0 when nothing was answered. */
  readonly status: number;
  /** Seconds Firecrawl asked to wait (`Retry-After`), or null. */
  readonly retryAfterSeconds: number | null;

  constructor(code: string, message: string, status = 0, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = "FirecrawlError";
    this.code = code;
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A bad argument: names the field and what is accepted. */
export function invalid(field: string, accepted: string): FirecrawlError {
  return new FirecrawlError("invalid_argument", `${field}: expected ${accepted}`);
}

/** Seconds from a `Retry-After` header (delay in seconds or an HTTP date), or null. */
export function retryAfter(value: string | undefined): number | null {
  if (value == null || value.trim() === "") return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const when = Date.parse(text);
  return Number.isNaN(when) ? null : Math.max(0, Math.ceil((when - Date.now()) / 1000));
}

/** The error for a non-2xx answer, with Firecrawl's own `error` text when the body has one. */
export function httpError(response: Response, operation: string): FirecrawlError {
  let detail = "";
  try {
    const body = JSON.parse(response.body) as { error?: unknown };
    if (typeof body?.error === "string") detail = ": " + body.error.slice(0, 500);
  } catch {
    // Not JSON: the status says enough.
  }
  const status = response.status;
  const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
  return new FirecrawlError(code, `firecrawl ${operation} failed: HTTP ${status}${detail}`, status, retryAfter(response.headers.get("retry-after")));
}

/** The JSON body of a 2xx answer (`success: false` counts as a failure). */
export function parseBody(response: Response, operation: string): Record<string, unknown> {
  if (!response.ok) throw httpError(response, operation);
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    throw new FirecrawlError("invalid_response", `firecrawl ${operation}: the answer is not JSON`, response.status);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new FirecrawlError("invalid_response", `firecrawl ${operation}: expected a JSON object`, response.status);
  const record = body as Record<string, unknown>;
  if (record.success === false) {
    const detail = typeof record.error === "string" ? ": " + record.error.slice(0, 500) : "";
    throw new FirecrawlError("http_error", `firecrawl ${operation} failed${detail}`, response.status);
  }
  return record;
}
