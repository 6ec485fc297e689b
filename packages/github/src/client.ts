// Requests to api.github.com: the token, the version headers, error mapping, JSON parsing and
// the opaque page tokens. Operations call these after their own `check`.
import secrets from "svc:secrets";
import { del, get, patch, post, put, type Response as HttpResponse } from "svc:http";
import { base64ToBytes, bytesToBase64, utf8OrNull } from "./bytes";
import { GitHubError, errorFromResponse, invalidArgument } from "./errors";
import { paging } from "./args";

const API = "https://api.github.com";
const GRAPHQL = "https://api.github.com/graphql";
const API_VERSION = "2022-11-28";
const JSON_MEDIA = "application/vnd.github+json";

/** Headers for one request; reads the token (missing → `missing_token`). */
function headers(accept: string): Record<string, string> {
  const token = secrets.get("GITHUB_TOKEN");
  if (token == null || token === "") throw new GitHubError("missing_token", "GITHUB_TOKEN is not set: bind the secret GITHUB_TOKEN in the Blueprint (a GitHub token with access to the repositories)");
  return { authorization: "Bearer " + token, accept, "x-github-api-version": API_VERSION };
}

export interface Answer {
  response: HttpResponse;
  /** The body parsed as JSON (undefined for an empty body or a non-JSON request). */
  data: unknown;
}

interface CallOptions {
  /** Accept header (default the JSON media type). */
  accept?: string;
  /** Statuses answered with null instead of an error (404 on reads of one resource). */
  nullOn?: number[];
  /** Parse the body as JSON (default true). */
  json?: boolean;
}

function finish(response: HttpResponse, what: string, options: CallOptions): Answer | null {
  if (options.nullOn?.includes(response.status)) return null;
  if (!response.ok) throw errorFromResponse(response, what);
  if (options.json === false || response.body === "") return { response, data: undefined };
  try {
    return { response, data: JSON.parse(response.body) as unknown };
  } catch {
    throw new GitHubError("invalid_response", `GitHub ${what}: the answer is not JSON`, response.status, { requestId: response.headers.get("x-github-request-id") ?? null });
  }
}

/** GET `path` (with query) under api.github.com; null for a status in `options.nullOn`. */
export function apiGet(path: string, what: string, options: CallOptions = {}): Answer | null {
  return finish(get(`${API}/${path}`, headers(options.accept ?? JSON_MEDIA)), what, options);
}

/** GET whose every non-2xx answer is an error (lists, searches, account reads). */
export function apiList(path: string, what: string): Answer {
  return apiGet(path, what) as Answer;
}

/** POST a JSON body. */
export function apiPost(path: string, body: object, what: string): Answer {
  return finish(post(`${API}/${path}`, body, headers(JSON_MEDIA)), what, {}) as Answer;
}

/** PUT a JSON body. */
export function apiPut(path: string, body: object, what: string): Answer {
  return finish(put(`${API}/${path}`, body, headers(JSON_MEDIA)), what, {}) as Answer;
}

/** PATCH a JSON body. */
export function apiPatch(path: string, body: object, what: string): Answer {
  return finish(patch(`${API}/${path}`, body, headers(JSON_MEDIA)), what, {}) as Answer;
}

/** DELETE (no body expected). */
export function apiDelete(path: string, what: string): Answer {
  return finish(del(`${API}/${path}`, headers(JSON_MEDIA)), what, {}) as Answer;
}

/** A GraphQL query; GraphQL errors in a 200 answer become `http_error` (or `not_found`). */
export function graphql(query: string, variables: Record<string, unknown>, what: string): Record<string, unknown> {
  const answer = finish(post(GRAPHQL, { query, variables }, headers(JSON_MEDIA)), what, {}) as Answer;
  const data = answer.data as { data?: Record<string, unknown> | null; errors?: Array<{ type?: string; message?: string }> } | undefined;
  if (data?.errors && data.errors.length > 0) {
    const first = data.errors[0];
    const code = first.type === "NOT_FOUND" ? "not_found" : first.type === "RATE_LIMITED" ? "rate_limited" : first.type === "FORBIDDEN" ? "forbidden" : "http_error";
    throw new GitHubError(code, `GitHub ${what} failed: ${first.message ?? "GraphQL error"}`, answer.response.status, {
      requestId: answer.response.headers.get("x-github-request-id") ?? null,
      errors: data.errors.map((e) => ({ resource: null, field: null, code: e.type ?? null, message: e.message ?? null })),
    });
  }
  if (!data?.data || typeof data.data !== "object") throw new GitHubError("invalid_response", `GitHub ${what}: the answer has no data`, answer.response.status);
  return data.data;
}

// Page tokens: opaque to the caller, they carry a page number (REST) or a GraphQL cursor,
// never a URL, so a caller cannot point the Package at another address.
const PAGE_PREFIX = "p";
const CURSOR_PREFIX = "c";

function encodeToken(raw: string): string {
  return bytesToBase64(new TextEncoder().encode(raw)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeToken(token: string, field: string): string {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(token)) throw invalidArgument(`${field}: not a page token returned by this Package`);
  const bytes = base64ToBytes(token.replace(/-/g, "+").replace(/_/g, "/"));
  const raw = bytes === null ? null : utf8OrNull(bytes);
  if (raw === null) throw invalidArgument(`${field}: not a page token returned by this Package`);
  return raw;
}

/**
 * Page number and size of a REST list: page 1 of `options.perPage`, or what the token says
 * (a token keeps the page size of the list it came from).
 */
export function pagePosition(o: Record<string, unknown>): { perPage: number; page: number } {
  const { perPage, pageToken } = paging(o);
  if (pageToken === null) return { perPage, page: 1 };
  const match = /^p:([1-9][0-9]{0,5}):([1-9][0-9]?|100)$/.exec(decodeToken(pageToken, "options.pageToken"));
  if (!match) throw invalidArgument("options.pageToken: not a page token returned by this Package");
  return { page: Number(match[1]), perPage: Number(match[2]) };
}

/** The GraphQL cursor a token stands for (null when none is given). */
export function cursorFromToken(token: string | null, field = "options.pageToken"): string | null {
  if (token === null) return null;
  const raw = decodeToken(token, field);
  if (!raw.startsWith(CURSOR_PREFIX + ":")) throw invalidArgument(`${field}: not a page token returned by this Package`);
  return raw.slice(CURSOR_PREFIX.length + 1);
}

/** The token of the page after `page`, when GitHub's Link header names a next page. */
export function nextPageToken(response: HttpResponse, page: number, perPage: number): string | null {
  const link = response.headers.get("link") ?? "";
  return /rel="next"/.test(link) ? encodeToken(`${PAGE_PREFIX}:${page + 1}:${perPage}`) : null;
}

/** The token for a GraphQL cursor (null when there is no next page). */
export function cursorToken(hasNextPage: boolean, endCursor: unknown): string | null {
  return hasNextPage && typeof endCursor === "string" ? encodeToken(`${CURSOR_PREFIX}:${endCursor}`) : null;
}
