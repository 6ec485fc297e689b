// One GraphQL round trip to Linear, and the error it becomes when it fails.
import secrets from "svc:secrets";
import { post } from "svc:http";
import type { Response } from "svc:http";
import { errorFields, type ServiceErrorFields } from "@svc/kit";

// Literal endpoint: the build derives `host == "api.linear.app" and path == "/graphql"`.
const GRAPHQL = "https://api.linear.app/graphql";

/** One error of a GraphQL answer. */
export interface GraphQLErrorInfo {
  message: string;
  /** Linear's `extensions.code` (e.g. `RATELIMITED`, `AUTHENTICATION_ERROR`), or null. */
  code: string | null;
}

/**
 * What every `@svc/linear` function throws for its own failures. `code` is one of
 * `invalid_argument`, `invalid_response`, `unauthorized`, `forbidden`, `not_found`,
 * `rate_limited`, `graphql_error`, `http_error`; `status` is the HTTP status (0 for local failures).
 */
export interface LinearError extends ServiceErrorFields, LinearErrorExtras {}
export class LinearError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<LinearErrorExtras> = {}) {
    super(message);
    Object.assign(this, errorFields("LinearError", code, status, extra, ["retryAfterSeconds", "rateLimitRemaining", "rateLimitReset"]), { errors: extra.errors ?? [] });
  }
}

/** What a LinearError carries beside `code` and `status` (the constructor's `extra`). */
export interface LinearErrorExtras {
  /** Seconds until the request budget refills (from Linear's reset header), or null. */
  readonly retryAfterSeconds: number | null;
  /** Requests left in the current window (`X-RateLimit-Requests-Remaining`), or null. */
  readonly rateLimitRemaining: number | null;
  /** When the window resets, epoch milliseconds (`X-RateLimit-Requests-Reset`), or null. */
  readonly rateLimitReset: number | null;
  /** The GraphQL errors Linear reported. */
  readonly errors: GraphQLErrorInfo[];
}

/** A bad argument: names the field and what is accepted. */
export function invalid(field: string, accepted: string): LinearError {
  return new LinearError("invalid_argument", `${field}: expected ${accepted}`);
}

function headerNumber(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  if (value == null || !/^\d+(\.\d+)?$/.test(value.trim())) return null;
  return Number(value.trim());
}

function codeFor(status: number, errors: GraphQLErrorInfo[]): string {
  const codes = errors.map((e) => (e.code ?? "").toUpperCase());
  if (status === 429 || codes.includes("RATELIMITED")) return "rate_limited";
  if (status === 401 || codes.includes("AUTHENTICATION_ERROR")) return "unauthorized";
  if (status === 403 || codes.includes("FORBIDDEN")) return "forbidden";
  if (status === 404 || errors.some((e) => /not found/i.test(e.message))) return "not_found";
  if (errors.length > 0) return "graphql_error";
  return "http_error";
}

function failure(response: Response, errors: GraphQLErrorInfo[], operation: string): LinearError {
  const reset = headerNumber(response, "x-ratelimit-requests-reset");
  const retryHeader = headerNumber(response, "retry-after");
  const code = codeFor(response.status, errors);
  const retryAfterSeconds = retryHeader ?? (code === "rate_limited" && reset !== null ? Math.max(0, Math.ceil((reset - Date.now()) / 1000)) : null);
  const detail = errors.length > 0 ? ": " + errors.map((e) => e.message).join("; ").slice(0, 500) : "";
  return new LinearError(code, `linear ${operation} failed: HTTP ${response.status}${detail}`, response.status, {
    retryAfterSeconds,
    rateLimitRemaining: headerNumber(response, "x-ratelimit-requests-remaining"),
    rateLimitReset: reset,
    errors,
  });
}

function errorsOf(body: unknown): GraphQLErrorInfo[] {
  const list = body !== null && typeof body === "object" ? (body as { errors?: unknown }).errors : undefined;
  if (!Array.isArray(list)) return [];
  return list.map((e) => {
    const item = e !== null && typeof e === "object" ? (e as { message?: unknown; extensions?: { code?: unknown } }) : {};
    return { message: typeof item.message === "string" ? item.message : "GraphQL error", code: typeof item.extensions?.code === "string" ? item.extensions.code : null };
  });
}

/**
 * Runs one GraphQL operation and returns its `data`. With LINEAR_API_KEY the key is sent as
 * `Authorization: <key>` (Linear's form for API keys, without `Bearer`); without it the request
 * goes out without Authorization.
 */
export function graphql(query: string, variables: Record<string, unknown>, operation: string): Record<string, unknown> {
  const key = secrets.get("LINEAR_API_KEY");
  const headers: Record<string, string> = key == null ? {} : { authorization: key };
  const response = post(GRAPHQL, { query, variables }, headers);
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    if (!response.ok) throw failure(response, [], operation);
    throw new LinearError("invalid_response", `linear ${operation}: the answer is not JSON`, response.status);
  }
  const errors = errorsOf(body);
  if (!response.ok || errors.length > 0) throw failure(response, errors, operation);
  const data = (body as { data?: unknown }).data;
  if (data === null || typeof data !== "object") throw new LinearError("invalid_response", `linear ${operation}: the answer has no data`, response.status);
  return data as Record<string, unknown>;
}
