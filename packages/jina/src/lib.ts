import { check } from "svc:security";
import secrets from "svc:secrets";
import { post, download } from "svc:http";
import { JinaError } from "./errors";

export { JinaError };

// Literal endpoints: the build derives `host == "r.jina.ai" and path == "/"` (and s.jina.ai) for
// the POSTs, and `host == …` for the downloads, which put the page or query into the URL.
const READER = "https://r.jina.ai/";
const SEARCHER = "https://s.jina.ai/";

/** The most a download writes: 20,000,000 bytes (also the `max_bytes` of the caller's `fs.write` check). */
const MAX_DOWNLOAD_BYTES = 20000000;

/** How Jina Reader renders a page (sent as headers). All optional. */
export interface ReaderOptions {
  /** `markdown` (only the page body), `html`, `text`; default: Jina's layout with Title, URL Source and Markdown Content. */
  format?: "markdown" | "html" | "text";
  /** CSS selector of the part of the page to keep. */
  targetSelector?: string;
  /** CSS selector of parts of the page to drop (menus, footers). */
  removeSelector?: string;
  /** CSS selector to wait for before reading (pages that render late). */
  waitForSelector?: string;
  /** Seconds Jina may spend loading the page, 1–180. */
  timeout?: number;
  /** Fetch the page afresh instead of Jina's cached copy. */
  noCache?: boolean;
  /** Append a list of the page's links. */
  withLinksSummary?: boolean;
  /** Append a list of the page's images. */
  withImagesSummary?: boolean;
  /** Leave images out of the Markdown. */
  noImages?: boolean;
  /** Cut the content at about this many tokens. */
  tokenBudget?: number;
}

/** Options of the search functions. All optional. */
export interface SearchOptions {
  /** Number of results, 1–20. */
  count?: number;
  /** Only results from this site (host name), e.g. `"docs.python.org"`. */
  site?: string;
  /** Two-letter country code of the search, e.g. `"us"`. */
  country?: string;
  /** Language code of the search, e.g. `"en"`. */
  language?: string;
  /** Results page, from 1. */
  page?: number;
  /** Titles, URLs and descriptions only, without reading each result page. */
  noContent?: boolean;
  /** Fetch afresh instead of Jina's cache. */
  noCache?: boolean;
  /** Seconds Jina may spend, 1–180. */
  timeout?: number;
}

/** Options of `downloadRead`: the reader options, and whether to replace an existing file. */
export interface DownloadReadOptions extends ReaderOptions {
  /** Replace the file if it exists (default false: an existing file is an error). */
  overwrite?: boolean;
}

/** Options of `downloadSearch`: the search options, and whether to replace an existing file. */
export interface DownloadSearchOptions extends SearchOptions {
  /** Replace the file if it exists (default false: an existing file is an error). */
  overwrite?: boolean;
}

/** A page as structured data (`readJson`). */
export interface ReadResult {
  url: string;
  title: string;
  description: string;
  /** The page as Markdown (or the format asked for). */
  content: string;
  /** Publication time when the page states it, or null. */
  publishedTime: string | null;
  /** Tokens Jina charged, or null. */
  tokens: number | null;
  /** Link text to URL (with `withLinksSummary`). */
  links: Record<string, string>;
  /** Image caption to URL (with `withImagesSummary`). */
  images: Record<string, string>;
}

/** One search result (`searchJson`). */
export interface SearchItem {
  title: string;
  url: string;
  description: string;
  /** The result page as Markdown ("" with `noContent`). */
  content: string;
  /** Date Jina found for the result, or null. */
  date: string | null;
  /** Tokens Jina charged for it, or null. */
  tokens: number | null;
}

/** What a download wrote. */
export interface DownloadInfo {
  /** Absolute path of the file written. */
  path: string;
  bytesWritten: number;
  contentType: string;
  /** HTTP status of Jina's answer (2xx; other statuses throw). */
  status: number;
}

const invalid = (message: string) => new JinaError("invalid_argument", message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function optionsObject(options: unknown, fn: string): Record<string, unknown> {
  if (options == null) return {};
  if (!isObject(options)) throw invalid(`${fn}: options must be an object`);
  return options;
}

function flag(value: unknown, field: string): boolean {
  if (value == null) return false;
  if (typeof value !== "boolean") throw invalid(`${field} must be a boolean`);
  return value;
}

function integerIn(value: unknown, field: string, min: number, max: number): number | null {
  if (value == null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) throw invalid(`${field} must be an integer from ${min} to ${max}`);
  return value;
}

// Header values may not contain line breaks; selectors and codes are short single-line text.
function line(value: unknown, field: string, pattern?: RegExp, accepted?: string): string | null {
  if (value == null) return null;
  if (typeof value !== "string" || value.trim() === "" || /[\r\n]/.test(value) || (pattern && !pattern.test(value.trim()))) throw invalid(`${field} must be ${accepted ?? "a non-empty single-line string"}`);
  return value.trim();
}

function readerHeaderMap(options: unknown, fn: string): Record<string, string> {
  const o = optionsObject(options, fn);
  const h: Record<string, string> = {};
  const format = o.format;
  if (format != null) {
    if (format !== "markdown" && format !== "html" && format !== "text") throw invalid("format must be one of markdown, html, text");
    h["x-return-format"] = format;
  }
  const target = line(o.targetSelector, "targetSelector");
  if (target !== null) h["x-target-selector"] = target;
  const remove = line(o.removeSelector, "removeSelector");
  if (remove !== null) h["x-remove-selector"] = remove;
  const wait = line(o.waitForSelector, "waitForSelector");
  if (wait !== null) h["x-wait-for-selector"] = wait;
  const timeout = integerIn(o.timeout, "timeout", 1, 180);
  if (timeout !== null) h["x-timeout"] = String(timeout);
  if (flag(o.noCache, "noCache")) h["x-no-cache"] = "true";
  if (flag(o.withLinksSummary, "withLinksSummary")) h["x-with-links-summary"] = "true";
  if (flag(o.withImagesSummary, "withImagesSummary")) h["x-with-images-summary"] = "true";
  if (flag(o.noImages, "noImages")) h["x-retain-images"] = "none";
  const budget = integerIn(o.tokenBudget, "tokenBudget", 1, 10_000_000);
  if (budget !== null) h["x-token-budget"] = String(budget);
  return h;
}

/**
 * The Jina Reader headers for some options (without `Authorization` and `Accept`). Validates them.
 * @param options Rendering options.
 * @returns Header names (lower-case) and values.
 */
export function readerHeaders(options?: ReaderOptions | null): Record<string, string> {
  return readerHeaderMap(options, "readerHeaders");
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

interface SearchRequest {
  body: { q: string; num?: number; gl?: string; hl?: string; page?: number };
  headers: Record<string, string>;
}

function searchRequest(query: unknown, options: unknown, fn: string): SearchRequest {
  if (typeof query !== "string" || query.trim() === "") throw invalid(`${fn}: query must be a non-empty string`);
  const o = optionsObject(options, fn);
  const body: SearchRequest["body"] = { q: query.trim() };
  const count = integerIn(o.count, "count", 1, 20);
  if (count !== null) body.num = count;
  const country = line(o.country, "country", /^[A-Za-z]{2}$/, "a two-letter country code");
  if (country !== null) body.gl = country.toLowerCase();
  const language = line(o.language, "language", /^[A-Za-z]{2,3}(-[A-Za-z]{2,4})?$/, "a language code such as en");
  if (language !== null) body.hl = language;
  const page = integerIn(o.page, "page", 1, 100);
  if (page !== null) body.page = page;
  return { body, headers: searchHeaderMap(o) };
}

function searchHeaderMap(o: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  const site = line(o.site, "site", HOST_NAME, "a host name such as docs.python.org");
  if (site !== null) headers["x-site"] = site.toLowerCase();
  if (flag(o.noContent, "noContent")) headers["x-respond-with"] = "no-content";
  if (flag(o.noCache, "noCache")) headers["x-no-cache"] = "true";
  const timeout = integerIn(o.timeout, "timeout", 1, 180);
  if (timeout !== null) headers["x-timeout"] = String(timeout);
  return headers;
}

/**
 * The Jina Search headers for some options (without `Authorization` and `Accept`). Validates the options that become headers.
 * @param options Search options (`count`, `country`, `language` and `page` go in the body, not in headers).
 * @returns Header names (lower-case) and values.
 */
export function searchHeaders(options?: SearchOptions | null): Record<string, string> {
  return searchHeaderMap(optionsObject(options, "searchHeaders"));
}

/** Validates the page URL; returns its normalised form and host (the `host` checked). */
function pageUrl(url: unknown, fn: string): { href: string; host: string } {
  let parsed: URL;
  try {
    if (typeof url !== "string") throw new TypeError("not a string");
    parsed = new URL(url.trim());
  } catch {
    throw invalid(`${fn}: url must be an absolute http(s) URL`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw invalid(`${fn}: url must be an http(s) URL`);
  if (parsed.username !== "" || parsed.password !== "") throw invalid(`${fn}: url must not contain credentials`);
  parsed.hash = "";
  return { href: parsed.href, host: parsed.hostname.toLowerCase().replace(/\.+$/, "") };
}

function filePath(path: unknown, fn: string): string {
  if (typeof path !== "string" || path.trim() === "") throw invalid(`${fn}: path must be a non-empty file path`);
  return path;
}

function overwriteOf(options: unknown, fn: string): boolean {
  return flag(optionsObject(options, fn).overwrite, "overwrite");
}

/** Authorization when JINA_API_KEY is bound; keyless (lower rate limit) otherwise. */
function auth(): Record<string, string> {
  const key = secrets.get("JINA_API_KEY");
  return key == null || key === "" ? {} : { authorization: "Bearer " + key };
}

function header(headers: Map<string, string> | Record<string, string> | null | undefined, name: string): string | null {
  if (headers == null) return null;
  const value = headers instanceof Map ? headers.get(name) : headers[name];
  return typeof value === "string" ? value : null;
}

/** The `JinaError` for a non-2xx answer (401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 429 `rate_limited`, else `http_error`). */
function jinaHttpError(status: number, headers: Map<string, string> | Record<string, string> | null, body: string): JinaError {
  let detail = "";
  let serviceName: string | null = null;
  let bodyRetry: number | null = null;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isObject(parsed)) {
      detail = typeof parsed.readableMessage === "string" ? parsed.readableMessage : typeof parsed.message === "string" ? parsed.message : "";
      serviceName = typeof parsed.name === "string" ? parsed.name : null;
      if (typeof parsed.retryAfter === "number") bodyRetry = parsed.retryAfter;
    }
  } catch {
    detail = body.slice(0, 200);
  }
  const headerRetry = Number(header(headers, "retry-after") ?? NaN);
  const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
  return new JinaError(code, `Jina answered HTTP ${status}${detail ? ": " + detail : ""}`, status, {
    retryAfterSeconds: Number.isFinite(headerRetry) ? headerRetry : bodyRetry,
    serviceName,
  });
}

const bad = (what: string) => new JinaError("invalid_response", `Jina answered with an unexpected body: ${what}`);
const text = (v: unknown): string => (typeof v === "string" ? v : "");
const textOrNull = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const numberOrNull = (v: unknown): number | null => (typeof v === "number" ? v : null);
const stringMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, value] of Object.entries(v)) if (typeof value === "string") out[k] = value;
  // Some Jina versions send [text, url] pairs instead of an object.
  if (Array.isArray(v)) for (const pair of v) if (Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string") out[pair[0]] = pair[1];
  return out;
};

function jsonData(r: { body: string; json(): unknown }): unknown {
  let parsed: unknown;
  try {
    parsed = r.json();
  } catch {
    throw bad("not JSON");
  }
  if (!isObject(parsed) || !("data" in parsed)) throw bad("no data field");
  return parsed.data;
}

function readItem(data: unknown): ReadResult {
  if (!isObject(data)) throw bad("data is not an object");
  const usage = isObject(data.usage) ? data.usage : {};
  return {
    url: text(data.url),
    title: text(data.title),
    description: text(data.description),
    content: text(data.content),
    publishedTime: textOrNull(data.publishedTime),
    tokens: numberOrNull(usage.tokens),
    links: stringMap(data.links),
    images: stringMap(data.images),
  };
}

function searchItems(data: unknown): SearchItem[] {
  if (!Array.isArray(data)) throw bad("data is not a list");
  return data.map((d) => {
    if (!isObject(d) || typeof d.url !== "string") throw bad("a result has no url");
    const usage = isObject(d.usage) ? d.usage : {};
    return { title: text(d.title), url: d.url, description: text(d.description), content: text(d.content), date: textOrNull(d.date), tokens: numberOrNull(usage.tokens) };
  });
}

function downloaded(result: { status: number; bytesWritten: number; contentType: string; path: string }): DownloadInfo {
  if (result.status < 200 || result.status > 299) {
    const error = jinaHttpError(result.status, null, "");
    throw new JinaError(error.code, `${error.message}; ${result.path} holds Jina's error answer`, result.status);
  }
  return { path: result.path, bytesWritten: result.bytesWritten, contentType: result.contentType, status: result.status };
}

/**
 * Read a web page as Markdown through Jina Reader.
 * @param url The page (absolute http(s) URL).
 * @param options Rendering options (format, selectors, timeout, caching).
 * @returns The page text (by default Jina's layout: Title, URL Source, Markdown Content).
 * @capability jina.ai/read { host: string } Host of the page to read.
 */
export function read(url: string, options?: ReaderOptions | null): string {
  const { href, host } = pageUrl(url, "read");
  const headers = readerHeaderMap(options, "read");
  check("jina.ai/read", { host });
  const r = post(READER, { url: href }, { ...headers, ...auth(), accept: "text/plain" });
  if (!r.ok) throw jinaHttpError(r.status, r.headers, r.body);
  return r.body;
}

/**
 * Read a web page through Jina Reader as structured data (title, description, content).
 * @param url The page (absolute http(s) URL).
 * @param options Rendering options.
 * @returns The page's title, description, Markdown content and token usage.
 * @capability jina.ai/read { host: string }
 */
export function readJson(url: string, options?: ReaderOptions | null): ReadResult {
  const { href, host } = pageUrl(url, "readJson");
  const headers = readerHeaderMap(options, "readJson");
  check("jina.ai/read", { host });
  const r = post(READER, { url: href }, { ...headers, ...auth(), accept: "application/json" });
  if (!r.ok) throw jinaHttpError(r.status, r.headers, r.body);
  return readItem(jsonData(r));
}

/**
 * Search the web with Jina Search; each result page comes back read as Markdown.
 * @param query What to search for.
 * @param options Result count, site, country, language, page.
 * @returns The results as one Markdown text.
 * @capability jina.ai/search {}
 */
export function search(query: string, options?: SearchOptions | null): string {
  const { body, headers } = searchRequest(query, options, "search");
  check("jina.ai/search", {});
  const r = post(SEARCHER, body, { ...headers, ...auth(), accept: "text/plain" });
  if (!r.ok) throw jinaHttpError(r.status, r.headers, r.body);
  return r.body;
}

/**
 * Search the web with Jina Search, as structured results.
 * @param query What to search for.
 * @param options Result count, site, country, language, page, `noContent`.
 * @returns One entry per result, with its page as Markdown.
 * @capability jina.ai/search {}
 */
export function searchJson(query: string, options?: SearchOptions | null): SearchItem[] {
  const { body, headers } = searchRequest(query, options, "searchJson");
  check("jina.ai/search", {});
  const r = post(SEARCHER, body, { ...headers, ...auth(), accept: "application/json" });
  if (!r.ok) throw jinaHttpError(r.status, r.headers, r.body);
  return searchItems(jsonData(r));
}

/**
 * Read a web page as Markdown straight into a file of the file area (at most 20 MB).
 * Your own `fs.write` rule for the path is checked too.
 * @param url The page (absolute http(s) URL).
 * @param path File to write.
 * @param options Rendering options and `overwrite`.
 * @returns What was written.
 * @capability jina.ai/read { host: string }
 */
export function downloadRead(url: string, path: string, options?: DownloadReadOptions | null): DownloadInfo {
  const { href, host } = pageUrl(url, "downloadRead");
  const target = filePath(path, "downloadRead");
  const headers = readerHeaderMap(options, "downloadRead");
  const overwrite = overwriteOf(options, "downloadRead");
  check("jina.ai/read", { host });
  check("fs.write", { path: target, max_bytes: MAX_DOWNLOAD_BYTES });
  const result = download(READER + href, target, { headers: { ...headers, ...auth(), accept: "text/plain" }, maxBytes: MAX_DOWNLOAD_BYTES, overwrite });
  return downloaded(result);
}

/**
 * Search the web with Jina Search and write the Markdown results straight into a file (at most 20 MB).
 * Your own `fs.write` rule for the path is checked too.
 * @param query What to search for.
 * @param path File to write.
 * @param options Search options and `overwrite`.
 * @returns What was written.
 * @capability jina.ai/search {}
 */
export function downloadSearch(query: string, path: string, options?: DownloadSearchOptions | null): DownloadInfo {
  const { body, headers } = searchRequest(query, options, "downloadSearch");
  const target = filePath(path, "downloadSearch");
  const overwrite = overwriteOf(options, "downloadSearch");
  check("jina.ai/search", {});
  check("fs.write", { path: target, max_bytes: MAX_DOWNLOAD_BYTES });
  const params = Object.entries(body).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join("&");
  const result = download(SEARCHER + "?" + params, target, { headers: { ...headers, ...auth(), accept: "text/plain" }, maxBytes: MAX_DOWNLOAD_BYTES, overwrite });
  return downloaded(result);
}
