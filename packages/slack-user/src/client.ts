// The Slack Web API client of @svc/slack-user: one request per call, Slack's `ok:false`
// answers and HTTP failures turned into SlackError. Kept inside this Package on purpose:
// @svc/slack-bot carries its own copy because curated Packages declare no dependency
// on each other.
import secrets from "svc:secrets";
import { get, post } from "svc:http";

const API = "https://slack.com/api/";

/** Slack error strings that mean the token is not accepted. */
const UNAUTHORIZED = new Set(["not_authed", "invalid_auth", "token_revoked", "token_expired", "account_inactive"]);
/** Slack error strings that mean the token lacks a scope or is the wrong kind. */
const FORBIDDEN = new Set(["missing_scope", "not_allowed_token_type"]);
/** Slack error strings that name a missing conversation, message, user or thread. */
const NOT_FOUND = new Set(["channel_not_found", "message_not_found", "user_not_found", "users_not_found", "thread_not_found", "file_not_found"]);

/**
 * A failed Slack call. `code` is one of `missing_token`, `invalid_argument`,
 * `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited`,
 * `http_error` or `slack_error` (any other Slack error string, kept in `slackError`).
 * `status` is the HTTP status (0 for local failures; Slack answers most errors with 200).
 */
export class SlackError extends Error {
  /** Machine-readable code (see the class summary). */
  readonly code: string;
  /** HTTP status of Slack's answer, 0 when no answer was involved. */
  readonly status: number;
  /** Slack's own `error` string (`channel_not_found`, `missing_scope`, ...) or null. */
  readonly slackError: string | null;
  /** Seconds to wait before retrying, from `Retry-After` on HTTP 429; otherwise null. */
  readonly retryAfterSeconds: number | null;
  /** For `missing_scope`: the scope Slack says the call needs; otherwise null. */
  readonly neededScope: string | null;

  constructor(code: string, message: string, status = 0, extra: { slackError?: string | null; retryAfterSeconds?: number | null; neededScope?: string | null } = {}) {
    super(message);
    this.name = "SlackError";
    this.code = code;
    this.status = status;
    this.slackError = extra.slackError ?? null;
    this.retryAfterSeconds = extra.retryAfterSeconds ?? null;
    this.neededScope = extra.neededScope ?? null;
  }
}

/** A JSON object as Slack returns it. */
export type Json = Record<string, unknown>;

/** Query and body parameters; undefined and null values are left out. */
export type Params = Record<string, unknown>;

function authorization(): Record<string, string> {
  const token = secrets.get("SLACK_USER_TOKEN");
  if (token == null || token === "") throw new SlackError("missing_token", "SLACK_USER_TOKEN is not set: declare and bind it in the Blueprint's secrets");
  return { authorization: "Bearer " + token };
}

function query(params: Params): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value == null) continue;
    const text = Array.isArray(value) ? value.join(",") : typeof value === "object" ? JSON.stringify(value) : String(value);
    parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(text));
  }
  return parts.length > 0 ? "?" + parts.join("&") : "";
}

function compact(params: Params): Json {
  const body: Json = {};
  for (const [key, value] of Object.entries(params)) if (value != null) body[key] = value;
  return body;
}

/** Calls a read method with GET and query parameters (Slack's read methods take form encoding, not JSON). */
export function callGet(method: string, params: Params = {}): Json {
  const headers = authorization();
  const r = get(API + method + query(params), headers);
  return answer(method, r.status, r.headers, r.body);
}

/** Calls a write method with POST and a JSON body. */
export function callPost(method: string, params: Params = {}): Json {
  const headers = authorization();
  const r = post(API + method, compact(params), { ...headers, "content-type": "application/json; charset=utf-8" });
  return answer(method, r.status, r.headers, r.body);
}

function answer(method: string, status: number, headers: Map<string, string>, text: string): Json {
  if (status === 429) {
    const seconds = Number(headers.get("retry-after"));
    const retryAfterSeconds = Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
    throw new SlackError("rate_limited", `Slack ${method} is rate limited` + (retryAfterSeconds != null ? `; retry after ${retryAfterSeconds} s` : ""), status, { slackError: "ratelimited", retryAfterSeconds });
  }
  if (status < 200 || status > 299) {
    const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : "http_error";
    throw new SlackError(code, `Slack ${method} failed: HTTP ${status}`, status);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SlackError("invalid_response", `Slack ${method} answered with a body that is not JSON`, status);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new SlackError("invalid_response", `Slack ${method} answered with JSON that is not an object`, status);
  const body = parsed as Json;
  if (body.ok === true) return body;
  const slackError = typeof body.error === "string" ? body.error : "unknown_error";
  const neededScope = typeof body.needed === "string" ? body.needed : null;
  const code = UNAUTHORIZED.has(slackError) ? "unauthorized" : FORBIDDEN.has(slackError) ? "forbidden" : NOT_FOUND.has(slackError) ? "not_found" : slackError === "ratelimited" ? "rate_limited" : "slack_error";
  throw new SlackError(code, `Slack ${method} failed: ${slackError}` + (neededScope ? ` (needs scope ${neededScope})` : ""), status, { slackError, neededScope });
}

/** `response_metadata.next_cursor`, or null when there is no further page. */
export function nextCursor(body: Json): string | null {
  const meta = body.response_metadata;
  const cursor = meta && typeof meta === "object" ? (meta as Json).next_cursor : undefined;
  return typeof cursor === "string" && cursor !== "" ? cursor : null;
}
