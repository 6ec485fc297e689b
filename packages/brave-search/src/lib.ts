import { check } from "svc:security";
import secrets from "svc:secrets";
import { get } from "svc:http";
import { BraveSearchError } from "./errors";

export { BraveSearchError };

// Every endpoint lives under this prefix; the build derives `host == "api.search.brave.com"` from it.
const API = "https://api.search.brave.com/res/v1";

const MAX_QUERY_CHARS = 400;
const MAX_QUERY_WORDS = 50;

/** Adult-content filtering of web results. */
export type SafeSearch = "off" | "moderate" | "strict";

/** Options of `search` (all optional). */
export interface SearchOptions {
  /** Results per page, 1–20 (Brave's default 20). */
  count?: number;
  /** Page number, 0–9 (pages of `count` results). */
  offset?: number;
  /** Two-letter country code the results come from, e.g. `"US"`, `"DE"`. */
  country?: string;
  /** Language of the results, e.g. `"en"`. */
  searchLang?: string;
  /** Adult-content filter (Brave's default `moderate`). */
  safesearch?: SafeSearch;
  /** `"pd"`, `"pw"`, `"pm"`, `"py"` (past day/week/month/year) or a range `"2024-01-01to2024-06-30"`. */
  freshness?: string;
  /** Ask for up to five extra excerpts per result. */
  extraSnippets?: boolean;
}

/** Options of `context` (all optional). */
export interface ContextOptions {
  /** Search results considered, 1–50 (default 20). */
  count?: number;
  /** Most distinct URLs in the context, 1–50. */
  maxUrls?: number;
  /** Approximate token budget of the whole context, 1024–32768 (default 8192). */
  maxTokens?: number;
  /** Most snippets in the whole context, 1–100. */
  maxSnippets?: number;
  /** Most tokens per URL, 512–8192. */
  maxTokensPerUrl?: number;
  /** Most snippets per URL, 1–100. */
  maxSnippetsPerUrl?: number;
  /** How strictly content must match the query (default `balanced`). */
  thresholdMode?: "strict" | "balanced" | "lenient" | "disabled";
  /** Two-letter country code the results come from. */
  country?: string;
  /** Language of the results, e.g. `"en"`. */
  searchLang?: string;
  /** Same values as `SearchOptions.freshness`. */
  freshness?: string;
}

/** One web result. */
export interface SearchItem {
  title: string;
  url: string;
  /** Snippet text, with Brave's highlighting markup removed. */
  description: string;
  /** Human-readable age of the page ("2 days ago"), or null. */
  age: string | null;
  /** Publication date Brave found for the page (ISO 8601), or null. */
  pageAge: string | null;
  /** Language of the page, or null. */
  language: string | null;
  /** Extra excerpts (only with `extraSnippets: true`). */
  extraSnippets: string[];
}

/** One page of web results. */
export interface SearchPage {
  /** The query as Brave ran it (after spelling correction, if any). */
  query: string;
  items: SearchItem[];
  /** Whether Brave has more results after this page. */
  moreResultsAvailable: boolean;
  /** `offset` of the next page, or null when there is none. */
  nextOffset: number | null;
}

/** One source of an LLM context: the extracted text of a page. */
export interface ContextItem {
  /** `generic` for web pages; `poi` and `map` for local results. */
  kind: "generic" | "poi" | "map";
  url: string;
  title: string;
  /** Host name of the source, or null. */
  hostname: string | null;
  /** Dates Brave knows for the source (as Brave writes them), possibly empty. */
  age: string[];
  /** Extracted text chunks, most relevant first. */
  snippets: string[];
}

/** Extracted web content for grounding a model's answer. */
export interface ContextResult {
  query: string;
  items: ContextItem[];
}


const invalid = (message: string) => new BraveSearchError("invalid_argument", message);

function checkQuery(query: unknown, fn: string): string {
  if (typeof query !== "string") throw invalid(`${fn}: query must be a string`);
  const q = query.trim();
  if (q === "") throw invalid(`${fn}: query must not be empty`);
  if (q.length > MAX_QUERY_CHARS) throw invalid(`${fn}: query has ${q.length} characters; Brave accepts at most ${MAX_QUERY_CHARS}`);
  if (q.split(/\s+/).length > MAX_QUERY_WORDS) throw invalid(`${fn}: query has more than ${MAX_QUERY_WORDS} words, which Brave refuses`);
  return q;
}

function optionsObject(options: unknown, fn: string): Record<string, unknown> {
  if (options == null) return {};
  if (typeof options !== "object" || Array.isArray(options)) throw invalid(`${fn}: options must be an object`);
  return options as Record<string, unknown>;
}

function integerIn(value: unknown, field: string, min: number, max: number): number | null {
  if (value == null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) throw invalid(`${field} must be an integer from ${min} to ${max}`);
  return value;
}

function oneOf<T extends string>(value: unknown, field: string, accepted: readonly T[]): T | null {
  if (value == null) return null;
  if (typeof value !== "string" || !(accepted as readonly string[]).includes(value)) throw invalid(`${field} must be one of ${accepted.join(", ")}`);
  return value as T;
}

function matching(value: unknown, field: string, pattern: RegExp, accepted: string): string | null {
  if (value == null) return null;
  if (typeof value !== "string" || !pattern.test(value)) throw invalid(`${field} must be ${accepted}`);
  return value;
}

const COUNTRY = /^[A-Za-z]{2}$/;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z]{2,4})?$/;
const FRESHNESS = /^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$/;
const FRESHNESS_TEXT = "pd, pw, pm, py or a range YYYY-MM-DDtoYYYY-MM-DD";

function queryString(pairs: Array<[string, string | number | boolean | null]>): string {
  return pairs
    .filter((pair): pair is [string, string | number | boolean] => pair[1] !== null)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join("&");
}

/**
 * The query string (without `?`) of a web search request. Validates every argument.
 * @param query Search terms, at most 400 characters and 50 words.
 * @param options Paging and filters.
 * @returns The encoded query string, e.g. `q=rust%20async&count=5`.
 */
export function buildSearchQuery(query: string, options?: SearchOptions | null): string {
  return prepareSearch(query, options).qs;
}

// Reads every input once; `search` sends what this returns.
function prepareSearch(query: unknown, options: unknown): { qs: string; offset: number } {
  const q = checkQuery(query, "search");
  const o = optionsObject(options, "search");
  const extra = o.extraSnippets;
  if (extra != null && typeof extra !== "boolean") throw invalid("extraSnippets must be a boolean");
  const offset = integerIn(o.offset, "offset", 0, 9);
  const qs = queryString([
    ["q", q],
    ["count", integerIn(o.count, "count", 1, 20)],
    ["offset", offset],
    ["country", matching(o.country, "country", COUNTRY, "a two-letter country code")?.toUpperCase() ?? null],
    ["search_lang", matching(o.searchLang, "searchLang", LANGUAGE, "a language code such as en")],
    ["safesearch", oneOf(o.safesearch, "safesearch", ["off", "moderate", "strict"] as const)],
    ["freshness", matching(o.freshness, "freshness", FRESHNESS, FRESHNESS_TEXT)],
    ["extra_snippets", extra == null ? null : extra],
  ]);
  return { qs, offset: offset ?? 0 };
}

/**
 * The query string (without `?`) of an LLM context request. Validates every argument.
 * @param query Search terms, at most 400 characters and 50 words.
 * @param options Budgets and filters.
 * @returns The encoded query string.
 */
export function buildContextQuery(query: string, options?: ContextOptions | null): string {
  return prepareContext(query, options).qs;
}

function prepareContext(query: unknown, options: unknown): { qs: string; q: string } {
  const q = checkQuery(query, "context");
  const o = optionsObject(options, "context");
  const qs = queryString([
    ["q", q],
    ["count", integerIn(o.count, "count", 1, 50)],
    ["maximum_number_of_urls", integerIn(o.maxUrls, "maxUrls", 1, 50)],
    ["maximum_number_of_tokens", integerIn(o.maxTokens, "maxTokens", 1024, 32768)],
    ["maximum_number_of_snippets", integerIn(o.maxSnippets, "maxSnippets", 1, 100)],
    ["maximum_number_of_tokens_per_url", integerIn(o.maxTokensPerUrl, "maxTokensPerUrl", 512, 8192)],
    ["maximum_number_of_snippets_per_url", integerIn(o.maxSnippetsPerUrl, "maxSnippetsPerUrl", 1, 100)],
    ["context_threshold_mode", oneOf(o.thresholdMode, "thresholdMode", ["strict", "balanced", "lenient", "disabled"] as const)],
    ["country", matching(o.country, "country", COUNTRY, "a two-letter country code")?.toUpperCase() ?? null],
    ["search_lang", matching(o.searchLang, "searchLang", LANGUAGE, "a language code such as en")],
    ["freshness", matching(o.freshness, "freshness", FRESHNESS, FRESHNESS_TEXT)],
  ]);
  return { qs, q };
}

const bad = (what: string) => new BraveSearchError("invalid_response", `Brave Search answered with an unexpected body: ${what}`);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === "string" ? v : "");
const textOrNull = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
// Brave marks matched terms with <strong>; callers want plain text.
const plain = (v: unknown): string => text(v).replace(/<\/?[a-z][^>]*>/gi, "");

/**
 * Turns Brave's web search JSON into a `SearchPage`.
 * @param json The parsed response body.
 * @param offset The `offset` the request used (for `nextOffset`).
 * @returns The normalised page.
 */
export function normalizeSearchJson(json: unknown, offset?: number | null): SearchPage {
  if (!isObject(json)) throw bad("not a JSON object");
  const query = isObject(json.query) ? json.query : {};
  const web = json.web == null ? { results: [] } : json.web;
  if (!isObject(web) || !Array.isArray(web.results)) throw bad("web.results is not a list");
  const items: SearchItem[] = [];
  for (const r of web.results) {
    if (!isObject(r) || typeof r.url !== "string") throw bad("a result has no url");
    items.push({
      title: plain(r.title),
      url: r.url,
      description: plain(r.description),
      age: textOrNull(r.age),
      pageAge: textOrNull(r.page_age),
      language: textOrNull(r.language),
      extraSnippets: Array.isArray(r.extra_snippets) ? r.extra_snippets.map(plain) : [],
    });
  }
  const more = query.more_results_available === true;
  const current = offset ?? 0;
  return {
    query: text(query.altered) || text(query.original),
    items,
    moreResultsAvailable: more,
    nextOffset: more && current < 9 ? current + 1 : null,
  };
}

/**
 * Turns Brave's LLM context JSON into a `ContextResult`.
 * @param json The parsed response body.
 * @param query The query that was sent.
 * @returns The normalised context, generic sources first.
 */
export function normalizeContextJson(json: unknown, query: string): ContextResult {
  if (!isObject(json)) throw bad("not a JSON object");
  const grounding = json.grounding;
  if (!isObject(grounding)) throw bad("grounding is missing");
  const sources = isObject(json.sources) ? json.sources : {};
  const items: ContextItem[] = [];
  const add = (kind: ContextItem["kind"], entry: unknown) => {
    if (!isObject(entry) || typeof entry.url !== "string") throw bad(`a ${kind} entry has no url`);
    const source = isObject(sources[entry.url]) ? (sources[entry.url] as Record<string, unknown>) : {};
    const age = source.age;
    items.push({
      kind,
      url: entry.url,
      title: text(entry.title) || text(source.title),
      hostname: textOrNull(source.hostname),
      age: Array.isArray(age) ? age.filter((a): a is string => typeof a === "string") : typeof age === "string" ? [age] : [],
      snippets: Array.isArray(entry.snippets) ? entry.snippets.map((s) => (typeof s === "string" ? s : JSON.stringify(s))) : [],
    });
  };
  const generic = grounding.generic ?? [];
  if (!Array.isArray(generic)) throw bad("grounding.generic is not a list");
  for (const entry of generic) add("generic", entry);
  if (grounding.poi != null) add("poi", grounding.poi);
  const map = grounding.map ?? [];
  for (const entry of Array.isArray(map) ? map : [map]) add("map", entry);
  return { query, items };
}

function header(headers: Map<string, string> | Record<string, string> | null | undefined, name: string): string | null {
  if (headers == null) return null;
  const value = headers instanceof Map ? headers.get(name) : headers[name];
  return typeof value === "string" ? value : null;
}

const numbers = (value: string | null): number[] =>
  value == null ? [] : value.split(",").map((part) => Number(part.trim())).filter((n) => Number.isFinite(n));

/**
 * The `BraveSearchError` for a non-2xx answer (401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 429 `rate_limited`, else `http_error`), with retry metadata.
 * @param status HTTP status.
 * @param headers Response headers (lower-case names).
 * @param body Response body text.
 * @returns The error to throw.
 */
export function braveHttpError(status: number, headers: Map<string, string> | Record<string, string> | null, body: string): BraveSearchError {
  let detail = "";
  let serviceCode: string | null = null;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isObject(parsed) && isObject(parsed.error)) {
      detail = text(parsed.error.detail);
      serviceCode = textOrNull(parsed.error.code);
    }
  } catch {
    // Not JSON: the status says enough.
  }
  const limit = numbers(header(headers, "x-ratelimit-limit"));
  const remaining = numbers(header(headers, "x-ratelimit-remaining"));
  const reset = numbers(header(headers, "x-ratelimit-reset"));
  const rateLimit = limit.length + remaining.length + reset.length > 0 ? { limit, remaining, reset } : null;
  const retryAfterHeader = Number(header(headers, "retry-after") ?? NaN);
  // Without Retry-After, the first exhausted window's reset is when a retry can succeed.
  let retryAfterSeconds: number | null = Number.isFinite(retryAfterHeader) ? retryAfterHeader : null;
  if (retryAfterSeconds === null && status === 429 && reset.length > 0) {
    const exhausted = remaining.findIndex((n) => n <= 0);
    retryAfterSeconds = reset[exhausted >= 0 && exhausted < reset.length ? exhausted : 0];
  }
  const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
  const message = `Brave Search answered HTTP ${status}${detail ? ": " + detail : ""}`;
  return new BraveSearchError(code, message, status, { retryAfterSeconds, rateLimit, serviceCode });
}

function apiKey(): string {
  const key = secrets.get("BRAVE_SEARCH_API_KEY");
  if (key == null || key === "") throw new BraveSearchError("missing_credentials", "BRAVE_SEARCH_API_KEY is not bound; declare it in the Blueprint's secrets and give it a value");
  return key;
}

function fetchJson(path: string, key: string): unknown {
  const r = get(API + path, { accept: "application/json", "x-subscription-token": key });
  if (!r.ok) throw braveHttpError(r.status, r.headers, r.body);
  try {
    return r.json();
  } catch {
    throw bad("not JSON");
  }
}

/**
 * Search the web with Brave.
 * @param query Search terms, at most 400 characters and 50 words.
 * @param options Paging (`count`, `offset`) and filters.
 * @returns One page of results; `nextOffset` pages on.
 * @capability brave.com/search {}
 */
export function search(query: string, options?: SearchOptions | null): SearchPage {
  const { qs, offset } = prepareSearch(query, options);
  check("brave.com/search", {});
  const key = apiKey();
  return normalizeSearchJson(fetchJson("/web/search?" + qs, key), offset);
}

/**
 * Extracted page content for grounding a model's answer (Brave's LLM Context API).
 * @param query Search terms, at most 400 characters and 50 words.
 * @param options Token, URL and snippet budgets and filters.
 * @returns The sources with their most relevant text chunks.
 * @capability brave.com/context {}
 */
export function context(query: string, options?: ContextOptions | null): ContextResult {
  const { qs, q } = prepareContext(query, options);
  check("brave.com/context", {});
  const key = apiKey();
  return normalizeContextJson(fetchJson("/llm/context?" + qs, key), q);
}
