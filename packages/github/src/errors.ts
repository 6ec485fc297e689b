// GitHubError: every failure the Package itself reports, with the metadata GitHub gives
// (request id, documentation link, rate-limit headers, validation errors).
import type { Response as HttpResponse } from "svc:http";
import { errorFields, type ServiceErrorFields } from "@svc/kit";

/** One entry of a GitHub validation failure (the `errors` array of a 422 answer). */
export interface GitHubErrorDetail {
  /** Resource the problem is about, e.g. `Issue`; null when GitHub does not say. */
  resource: string | null;
  /** Field of the request, e.g. `title`; null when GitHub does not say. */
  field: string | null;
  /** GitHub's code, e.g. `missing_field`, `invalid`, `already_exists`, `custom`. */
  code: string | null;
  /** Human-readable text, when GitHub gives one. */
  message: string | null;
}

/**
 * Error thrown by every `@svc/github` operation. `code` is one of `missing_token`,
 * `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`, `not_found`,
 * `rate_limited`, `branch_moved`, `not_mergeable`, `too_large`, `not_a_file`,
 * `not_a_directory`, `not_text`, `http_error`; `status` is the HTTP status (0 for failures
 * found before or without a request). Policy denials and transport errors are not wrapped.
 */
export interface GitHubError extends ServiceErrorFields, GitHubErrorExtras {}
export class GitHubError extends Error {
  /**
   * @param code Machine-readable reason.
   * @param message Human-readable text (never contains the token).
   * @param status HTTP status, 0 for local failures.
   * @param details Metadata taken from GitHub's answer.
   */
  constructor(code: string, message: string, status = 0, details: Partial<GitHubErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("GitHubError", code, status, details, ["requestId", "documentationUrl", "retryAfterSeconds", "rateLimitRemaining", "rateLimitReset"]), { errors: details.errors ?? [] });
  }
}

/** What a GitHubError carries beside `code` and `status` (the constructor's `details`). */
export interface GitHubErrorExtras {
  /** GitHub's `x-github-request-id` header, for support requests; null when absent. */
  readonly requestId: string | null;
  /** GitHub's `documentation_url` for this failure; null when absent. */
  readonly documentationUrl: string | null;
  /** Seconds to wait before retrying (from `retry-after`, or the rate-limit reset); null when unknown. */
  readonly retryAfterSeconds: number | null;
  /** `x-ratelimit-remaining` of the answer; null when absent. */
  readonly rateLimitRemaining: number | null;
  /** `x-ratelimit-reset` of the answer (Unix seconds); null when absent. */
  readonly rateLimitReset: number | null;
  /** Validation details of the answer (422); empty otherwise. */
  readonly errors: GitHubErrorDetail[];
}

/** A bad argument: thrown before any check or request. */
export function invalidArgument(message: string): GitHubError {
  return new GitHubError("invalid_argument", message);
}

function headerNumber(response: HttpResponse, name: string): number | null {
  const raw = response.headers.get(name);
  if (raw == null || raw.trim() === "") return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The GitHubError for a non-2xx answer, with the metadata of its headers and body. */
export function errorFromResponse(response: HttpResponse, what: string): GitHubError {
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(response.body) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (an HTML error page, an empty body): the status says enough.
  }
  const serviceMessage = text(body.message);
  const remaining = headerNumber(response, "x-ratelimit-remaining");
  const reset = headerNumber(response, "x-ratelimit-reset");
  let retryAfter = headerNumber(response, "retry-after");
  // GitHub signals an exhausted primary limit with 403 (or 429) and `x-ratelimit-remaining: 0`,
  // and a secondary limit with 403 plus `retry-after` or a message naming the rate limit.
  const limited = response.status === 429 || (response.status === 403 && (remaining === 0 || retryAfter !== null || /rate limit/i.test(serviceMessage ?? "")));
  if (limited && retryAfter === null && remaining === 0 && reset !== null) retryAfter = Math.max(0, Math.ceil(reset - Date.now() / 1000));
  const code =
    response.status === 401 ? "unauthorized"
    : limited ? "rate_limited"
    : response.status === 403 ? "forbidden"
    : response.status === 404 ? "not_found"
    : "http_error";
  const errors: GitHubErrorDetail[] = Array.isArray(body.errors)
    ? body.errors.map((entry: unknown) => {
        if (typeof entry === "string") return { resource: null, field: null, code: null, message: entry };
        const e = (entry ?? {}) as Record<string, unknown>;
        return { resource: text(e.resource), field: text(e.field), code: text(e.code), message: text(e.message) };
      })
    : [];
  const detail = serviceMessage ? ": " + serviceMessage : "";
  return new GitHubError(code, `GitHub ${what} failed: HTTP ${response.status}${response.statusText ? " " + response.statusText : ""}${detail}`, response.status, {
    requestId: response.headers.get("x-github-request-id") ?? null,
    documentationUrl: text(body.documentation_url),
    retryAfterSeconds: retryAfter,
    rateLimitRemaining: remaining,
    rateLimitReset: reset,
    errors,
  });
}
