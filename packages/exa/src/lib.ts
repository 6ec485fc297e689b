import { check } from "svc:security";
import secrets from "svc:secrets";
import { post } from "svc:http";
import { ExaError } from "./errors";

export { ExaError };

// Fully literal endpoint URLs: the build derives `host == "api.exa.ai" and path == "/search"` (and `/contents`).
const SEARCH_URL = "https://api.exa.ai/search";
const CONTENTS_URL = "https://api.exa.ai/contents";

const MAX_RESULTS = 100;
const MAX_URLS = 100;

/** What to fetch of each page (used by `getContents`, and by `search` through `contents`). */
export interface ContentsOptions {
  /** The page text as Markdown-like plain text; `{ maxCharacters }` caps it. */
  text?: boolean | { maxCharacters?: number; includeHtmlTags?: boolean };
  /** The most relevant sentences; `query` steers which. */
  highlights?: boolean | { numSentences?: number; highlightsPerUrl?: number; query?: string };
  /** A short model-written summary; `query` steers it. */
  summary?: boolean | { query?: string };
  /** Accept a cached copy at most this many hours old (0 = always fetch live). */
  maxAgeHours?: number;
  /** Milliseconds to wait for a live fetch. */
  livecrawlTimeout?: number;
}

/** Options of `search` (all optional). */
export interface SearchOptions {
  /** Search type: `auto` (default), `neural`, `keyword`, `fast`, `deep`, ... as Exa names them. */
  type?: string;
  /** Number of results, 1–100 (Exa's default 10). */
  numResults?: number;
  /** A category such as `news`, `research paper`, `company`, `github`, `pdf`. */
  category?: string;
  /** Only results from these domains. */
  includeDomains?: string[];
  /** No results from these domains. */
  excludeDomains?: string[];
  /** Only pages published on or after this date (ISO 8601). */
  startPublishedDate?: string;
  /** Only pages published on or before this date (ISO 8601). */
  endPublishedDate?: string;
  /** Page contents to return with each result (default: none). */
  contents?: ContentsOptions;
}

/** One page Exa returned. */
export interface ExaResult {
  /** Exa's id for the document (usually its URL). */
  id: string;
  url: string;
  title: string | null;
  author: string | null;
  /** Publication date (ISO 8601), or null. */
  publishedDate: string | null;
  /** Page text (only when asked for). */
  text: string | null;
  /** Relevant sentences (only when asked for). */
  highlights: string[];
  /** Relevance of each highlight. */
  highlightScores: number[];
  /** Model-written summary (only when asked for). */
  summary: string | null;
  image: string | null;
  favicon: string | null;
}

/** The answer of `search`. */
export interface SearchResult {
  requestId: string | null;
  /** The search type Exa actually ran (for `auto`). */
  searchType: string | null;
  results: ExaResult[];
  /** What the request cost in US dollars, when Exa says. */
  costDollars: number | null;
}

/** Whether one requested URL could be fetched. */
export interface ContentsStatus {
  url: string;
  status: "success" | "error";
  /** Exa's reason, e.g. `CRAWL_NOT_FOUND`, `CRAWL_TIMEOUT`, `SOURCE_NOT_AVAILABLE`. */
  errorTag: string | null;
  /** The status the target page answered with, when known. */
  httpStatusCode: number | null;
}

/** The answer of `getContents`: pages that were fetched, and a status per requested URL. */
export interface ContentsResult {
  requestId: string | null;
  results: ExaResult[];
  statuses: ContentsStatus[];
  costDollars: number | null;
}

const invalid = (message: string) => new ExaError("invalid_argument", message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function optionsObject(options: unknown, field: string): Record<string, unknown> {
  if (options == null) return {};
  if (!isObject(options)) throw invalid(`${field} must be an object`);
  return options;
}

function integerIn(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) throw invalid(`${field} must be an integer from ${min} to ${max}`);
  return value;
}

function nonEmptyText(value: unknown, field: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw invalid(`${field} must be a non-empty string`);
  return value.trim();
}

function domains(value: unknown, field: string): string[] | undefined {
  if (value == null) return undefined;
  if (!Array.isArray(value) || value.some((d) => typeof d !== "string" || d.trim() === "")) throw invalid(`${field} must be a list of domain names`);
  return value.map((d: string) => d.trim().toLowerCase());
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function date(value: unknown, field: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || !ISO_DATE.test(value)) throw invalid(`${field} must be an ISO 8601 date such as 2025-01-31 or 2025-01-31T00:00:00Z`);
  return value;
}

/** Exa's content fields from our options (the same shape in both endpoints, at different depths). */
function contentFields(options: unknown, field: string): Record<string, unknown> {
  const o = optionsObject(options, field);
  const out: Record<string, unknown> = {};
  const text = o.text;
  if (typeof text === "boolean") out.text = text;
  else if (isObject(text)) {
    const maxCharacters = integerIn(text.maxCharacters, `${field}.text.maxCharacters`, 1, 10_000_000);
    const tags = text.includeHtmlTags;
    if (tags != null && typeof tags !== "boolean") throw invalid(`${field}.text.includeHtmlTags must be a boolean`);
    out.text = { ...(maxCharacters !== undefined ? { maxCharacters } : {}), ...(tags != null ? { includeHtmlTags: tags } : {}) };
  } else if (text != null) throw invalid(`${field}.text must be a boolean or { maxCharacters, includeHtmlTags }`);
  const highlights = o.highlights;
  if (typeof highlights === "boolean") out.highlights = highlights;
  else if (isObject(highlights)) {
    const numSentences = integerIn(highlights.numSentences, `${field}.highlights.numSentences`, 1, 100);
    const perUrl = integerIn(highlights.highlightsPerUrl, `${field}.highlights.highlightsPerUrl`, 1, 100);
    const query = nonEmptyText(highlights.query, `${field}.highlights.query`);
    out.highlights = { ...(numSentences !== undefined ? { numSentences } : {}), ...(perUrl !== undefined ? { highlightsPerUrl: perUrl } : {}), ...(query !== undefined ? { query } : {}) };
  } else if (highlights != null) throw invalid(`${field}.highlights must be a boolean or { numSentences, highlightsPerUrl, query }`);
  const summary = o.summary;
  if (typeof summary === "boolean") out.summary = summary;
  else if (isObject(summary)) {
    const query = nonEmptyText(summary.query, `${field}.summary.query`);
    out.summary = query !== undefined ? { query } : {};
  } else if (summary != null) throw invalid(`${field}.summary must be a boolean or { query }`);
  const maxAge = integerIn(o.maxAgeHours, `${field}.maxAgeHours`, -1, 1_000_000);
  if (maxAge !== undefined) out.maxAgeHours = maxAge;
  const timeout = integerIn(o.livecrawlTimeout, `${field}.livecrawlTimeout`, 1, 600_000);
  if (timeout !== undefined) out.livecrawlTimeout = timeout;
  return out;
}

/**
 * The JSON body of a `/search` request. Validates every argument.
 * @param query What to search for.
 * @param options Type, result count, filters and contents.
 * @returns The body to POST.
 */
export function buildSearchBody(query: string, options?: SearchOptions | null): Record<string, unknown> {
  if (typeof query !== "string" || query.trim() === "") throw invalid("search: query must be a non-empty string");
  const o = optionsObject(options, "options");
  const type = o.type == null ? undefined : nonEmptyText(o.type, "type");
  if (type !== undefined && !/^[a-z][a-z-]*$/.test(type)) throw invalid("type must be an Exa search type such as auto, neural, keyword, fast or deep");
  const body: Record<string, unknown> = { query: query.trim() };
  const fields: Array<[string, unknown]> = [
    ["type", type],
    ["numResults", integerIn(o.numResults, "numResults", 1, MAX_RESULTS)],
    ["category", nonEmptyText(o.category, "category")],
    ["includeDomains", domains(o.includeDomains, "includeDomains")],
    ["excludeDomains", domains(o.excludeDomains, "excludeDomains")],
    ["startPublishedDate", date(o.startPublishedDate, "startPublishedDate")],
    ["endPublishedDate", date(o.endPublishedDate, "endPublishedDate")],
  ];
  for (const [name, value] of fields) if (value !== undefined) body[name] = value;
  if (o.contents != null) body.contents = contentFields(o.contents, "contents");
  return body;
}

function urlList(urls: unknown): string[] {
  if (!Array.isArray(urls) || urls.length === 0) throw invalid("getContents: urls must be a non-empty list of http(s) URLs");
  if (urls.length > MAX_URLS) throw invalid(`getContents: at most ${MAX_URLS} urls per call (got ${urls.length})`);
  return urls.map((u, i) => {
    let parsed: URL;
    try {
      if (typeof u !== "string") throw new TypeError("not a string");
      parsed = new URL(u);
    } catch {
      throw invalid(`urls[${i}] must be an absolute http(s) URL`);
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw invalid(`urls[${i}] must be an http(s) URL`);
    return parsed.href;
  });
}

/**
 * The JSON body of a `/contents` request. Validates every argument.
 * @param urls Pages to fetch (absolute http(s) URLs, at most 100).
 * @param options What to return of each page (default: text).
 * @returns The body to POST.
 */
export function buildContentsBody(urls: string[], options?: ContentsOptions | null): Record<string, unknown> {
  return contentsRequest(urls, options).body;
}

// Reads every input once: `getContents` checks the hosts of, and sends, exactly these URLs.
function contentsRequest(urls: unknown, options: unknown): { body: Record<string, unknown>; list: string[] } {
  const list = urlList(urls);
  const fields = contentFields(options, "options");
  if (fields.text === undefined && fields.highlights === undefined && fields.summary === undefined) fields.text = true;
  return { body: { urls: list, ...fields }, list };
}

/**
 * The distinct hosts of some URLs (lower-case, first-seen order): the `host` values `getContents` checks.
 * @param urls Absolute http(s) URLs.
 * @returns One entry per host.
 */
export function contentsHosts(urls: string[]): string[] {
  const hosts: string[] = [];
  for (const u of urlList(urls)) {
    const host = new URL(u).hostname.toLowerCase().replace(/\.+$/, "");
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

const bad = (what: string) => new ExaError("invalid_response", `Exa answered with an unexpected body: ${what}`);
const textOrNull = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

function result(r: unknown): ExaResult {
  if (!isObject(r) || typeof r.url !== "string") throw bad("a result has no url");
  return {
    id: typeof r.id === "string" ? r.id : r.url,
    url: r.url,
    title: textOrNull(r.title),
    author: textOrNull(r.author),
    publishedDate: textOrNull(r.publishedDate),
    text: typeof r.text === "string" ? r.text : null,
    highlights: Array.isArray(r.highlights) ? r.highlights.filter((h): h is string => typeof h === "string") : [],
    highlightScores: Array.isArray(r.highlightScores) ? r.highlightScores.filter((h): h is number => typeof h === "number") : [],
    summary: textOrNull(r.summary),
    image: textOrNull(r.image),
    favicon: textOrNull(r.favicon),
  };
}

function cost(json: Record<string, unknown>): number | null {
  const c = json.costDollars;
  return isObject(c) && typeof c.total === "number" ? c.total : null;
}

/**
 * Turns Exa's `/search` JSON into a `SearchResult`.
 * @param json The parsed response body.
 * @returns The normalised result.
 */
export function normalizeSearchJson(json: unknown): SearchResult {
  if (!isObject(json) || !Array.isArray(json.results)) throw bad("results is not a list");
  return {
    requestId: textOrNull(json.requestId),
    searchType: textOrNull(json.resolvedSearchType) ?? textOrNull(json.searchType),
    results: json.results.map(result),
    costDollars: cost(json),
  };
}

/**
 * Turns Exa's `/contents` JSON into a `ContentsResult`.
 * @param json The parsed response body.
 * @returns The fetched pages and a status per requested URL.
 */
export function normalizeContentsJson(json: unknown): ContentsResult {
  if (!isObject(json) || !Array.isArray(json.results)) throw bad("results is not a list");
  const statuses: ContentsStatus[] = [];
  for (const s of Array.isArray(json.statuses) ? json.statuses : []) {
    if (!isObject(s) || typeof s.id !== "string") throw bad("a status has no id");
    const error = isObject(s.error) ? s.error : {};
    statuses.push({
      url: s.id,
      status: s.status === "success" ? "success" : "error",
      errorTag: textOrNull(error.tag),
      httpStatusCode: typeof error.httpStatusCode === "number" ? error.httpStatusCode : null,
    });
  }
  return { requestId: textOrNull(json.requestId), results: json.results.map(result), statuses, costDollars: cost(json) };
}

/**
 * The `ExaError` for a non-2xx answer (401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 429 `rate_limited`, else `http_error`).
 * @param status HTTP status.
 * @param headers Response headers (lower-case names).
 * @param body Response body text.
 * @returns The error to throw.
 */
export function exaHttpError(status: number, headers: Map<string, string> | Record<string, string> | null, body: string): ExaError {
  let requestId: string | null = null;
  let tag: string | null = null;
  let detail = "";
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isObject(parsed)) {
      requestId = textOrNull(parsed.requestId);
      tag = textOrNull(parsed.tag);
      detail = typeof parsed.error === "string" ? parsed.error : "";
    }
  } catch {
    // Not JSON: the status says enough.
  }
  const raw = headers == null ? undefined : headers instanceof Map ? headers.get("retry-after") : headers["retry-after"];
  const seconds = Number(raw ?? NaN);
  const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
  return new ExaError(code, `Exa answered HTTP ${status}${tag ? " " + tag : ""}${detail ? ": " + detail : ""}`, status, {
    retryAfterSeconds: Number.isFinite(seconds) ? seconds : null,
    requestId,
    tag,
  });
}

function apiKey(): string {
  const key = secrets.get("EXA_API_KEY");
  if (key == null || key === "") throw new ExaError("missing_credentials", "EXA_API_KEY is not bound; declare it in the Blueprint's secrets and give it a value");
  return key;
}

function parse(r: { ok: boolean; status: number; headers: Map<string, string>; body: string; json(): unknown }): unknown {
  if (!r.ok) throw exaHttpError(r.status, r.headers, r.body);
  try {
    return r.json();
  } catch {
    throw bad("not JSON");
  }
}

/**
 * Search the web with Exa.
 * @param query What to search for (natural language works best).
 * @param options Type, result count, domain and date filters, and page contents to include.
 * @returns The results, with contents when asked for.
 * @capability exa.ai/search {}
 */
export function search(query: string, options?: SearchOptions | null): SearchResult {
  const body = buildSearchBody(query, options);
  check("exa.ai/search", {});
  const key = apiKey();
  return normalizeSearchJson(parse(post(SEARCH_URL, body, { "x-api-key": key, accept: "application/json" })));
}

/**
 * Fetch the contents of known pages through Exa (text, highlights or summary).
 * Checks `exa.ai/contents` once per distinct host, every host before any request.
 * @param urls Pages to fetch (absolute http(s) URLs, at most 100).
 * @param options What to return of each page (default: text).
 * @returns The pages Exa fetched, and a status per requested URL (failures do not throw).
 * @capability exa.ai/contents { host: string } Host of a requested page.
 */
export function getContents(urls: string[], options?: ContentsOptions | null): ContentsResult {
  const { body, list } = contentsRequest(urls, options);
  const hosts = contentsHosts(list);
  for (const host of hosts) check("exa.ai/contents", { host });
  const key = apiKey();
  return normalizeContentsJson(parse(post(CONTENTS_URL, body, { "x-api-key": key, accept: "application/json" })));
}
