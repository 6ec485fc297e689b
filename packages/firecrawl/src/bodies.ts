// Request bodies of Firecrawl's v2 endpoints, built from checked, normalised arguments.
// Every value the policy sees (limit, subdomain and external-link switches) is sent
// explicitly, so Firecrawl's defaults can never differ from what was allowed.
import { invalid } from "./errors";

/** Output formats of a scrape. */
export type ScrapeFormat = "markdown" | "html" | "rawHtml" | "links" | "summary" | "images" | "screenshot";

const FORMATS: readonly string[] = ["markdown", "html", "rawHtml", "links", "summary", "images", "screenshot"];

/** How Firecrawl renders each page. All optional; Firecrawl's defaults apply otherwise. */
export interface ScrapeOptions {
  /** Output formats (default `["markdown"]`). */
  formats?: ScrapeFormat[] | null;
  /** Only the main content, without navigation and footers (default true). */
  onlyMainContent?: boolean | null;
  /** HTML tags, classes or ids to keep. */
  includeTags?: string[] | null;
  /** HTML tags, classes or ids to drop. */
  excludeTags?: string[] | null;
  /** Extra milliseconds to wait before reading the page, 0–60000. */
  waitFor?: number | null;
  /** Milliseconds Firecrawl may spend on the page, 1000–300000. */
  timeout?: number | null;
  /** Accept a cached copy younger than this many milliseconds (0 = always fresh). */
  maxAge?: number | null;
  /** Render as a mobile device. */
  mobile?: boolean | null;
}

/** Options of `search`. */
export interface SearchOptions {
  /** Results per source, 1–100 (default 5). */
  limit?: number | null;
  /** Result kinds (default `["web"]`). */
  sources?: Array<"web" | "news" | "images"> | null;
  /** Time filter, e.g. `"qdr:d"` (past day) or `"qdr:w"` (past week). */
  tbs?: string | null;
  /** Where to search from, e.g. `"Germany"`. */
  location?: string | null;
  /** Milliseconds Firecrawl may spend, 1000–300000. */
  timeout?: number | null;
  /** Also scrape each result with these options (needs `firecrawl.dev/search.scrape` and `firecrawl.dev/delegatedFetch`). */
  scrape?: ScrapeOptions | null;
}

/** Options of `map`. */
export interface MapOptions {
  /** Most links to return, 1–100000 (default 5000). */
  limit?: number | null;
  /** Include links on subdomains of the site (default true). */
  includeSubdomains?: boolean | null;
  /** Order links by relevance to this text. */
  search?: string | null;
  /** Use the sitemap: `include` (default), `skip` or `only`. */
  sitemap?: "include" | "skip" | "only" | null;
  /** Treat URLs that differ only in their query as one (default true). */
  ignoreQueryParameters?: boolean | null;
}

/** Options of `startCrawl`. */
export interface CrawlOptions {
  /** Most pages to crawl, 1–100000 (default 10000). */
  limit?: number | null;
  /** Follow links to subdomains (default false). */
  allowSubdomains?: boolean | null;
  /** Follow links to other sites (default false). */
  allowExternalLinks?: boolean | null;
  /** Follow links to any path of the domain, not only below the start URL (default false). */
  crawlEntireDomain?: boolean | null;
  /** Regular expressions of URL paths to keep. */
  includePaths?: string[] | null;
  /** Regular expressions of URL paths to skip. */
  excludePaths?: string[] | null;
  /** Most link hops from the start URL. */
  maxDiscoveryDepth?: number | null;
  /** Use the sitemap: `include` (default) or `skip`. */
  sitemap?: "include" | "skip" | null;
  /** Treat URLs that differ only in their query as one. */
  ignoreQueryParameters?: boolean | null;
  /** Seconds between page fetches. */
  delay?: number | null;
  /** Most pages fetched at once. */
  maxConcurrency?: number | null;
  /** How each page is scraped. */
  scrape?: ScrapeOptions | null;
}

/** Options of `startBatch`. */
export interface BatchOptions {
  /** How each page is scraped. */
  scrape?: ScrapeOptions | null;
  /** Most pages fetched at once. */
  maxConcurrency?: number | null;
  /** Skip invalid URLs instead of refusing the batch (they come back in `invalidUrls`). */
  ignoreInvalidURLs?: boolean | null;
}

/** A checked target URL: its text and lower-cased host. */
export interface Target {
  url: string;
  host: string;
}

/** The most URLs one batch takes. */
export const MAX_BATCH_URLS = 1000;

/** An absolute http(s) URL and its host, or `invalid_argument` naming `field`. */
export function target(value: unknown, field: string): Target {
  if (typeof value !== "string" || value.trim() === "") throw invalid(field, "an absolute http(s) URL");
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw invalid(field, "an absolute http(s) URL");
  }
  if ((parsed.protocol !== "https:" && parsed.protocol !== "http:") || parsed.hostname === "") throw invalid(field, "an absolute http(s) URL");
  if (parsed.username !== "" || parsed.password !== "") throw invalid(field, "a URL without user name or password");
  return { url: parsed.href, host: parsed.hostname.toLowerCase().replace(/\.+$/, "") };
}

function record<T>(value: T | null | undefined, field: string): Partial<NonNullable<T>> {
  if (value == null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(field, "an object");
  return value as Partial<NonNullable<T>>;
}

function int(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) throw invalid(field, `an integer from ${min} to ${max}`);
  return value;
}

function bool(value: unknown, field: string): boolean | undefined {
  if (value == null) return undefined;
  if (typeof value !== "boolean") throw invalid(field, "true or false");
  return value;
}

function text(value: unknown, field: string, max = 1000): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || value.trim() === "" || value.length > max) throw invalid(field, `a non-empty string of at most ${max} characters`);
  return value;
}

function strings(value: unknown, field: string): string[] | undefined {
  if (value == null) return undefined;
  if (!Array.isArray(value) || value.length > 100 || value.some((v) => typeof v !== "string" || v === "" || v.length > 1000)) throw invalid(field, "an array of at most 100 non-empty strings");
  return [...(value as string[])];
}

function oneOf<T extends string>(value: unknown, field: string, accepted: readonly T[]): T | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || !accepted.includes(value as T)) throw invalid(field, "one of " + accepted.join(", "));
  return value as T;
}

/** Drops undefined members so bodies carry only what was given. */
function compact(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
  return out;
}

function scrapeFields(value: ScrapeOptions | null | undefined, field: string): Record<string, unknown> {
  const o = record(value, field);
  let formats: string[] | undefined;
  if (o.formats != null) {
    if (!Array.isArray(o.formats) || o.formats.length === 0 || o.formats.some((f) => !FORMATS.includes(f as string))) throw invalid(field + ".formats", "a non-empty array of " + FORMATS.join(", "));
    formats = [...new Set(o.formats as string[])];
  }
  return compact({
    formats,
    onlyMainContent: bool(o.onlyMainContent, field + ".onlyMainContent"),
    includeTags: strings(o.includeTags, field + ".includeTags"),
    excludeTags: strings(o.excludeTags, field + ".excludeTags"),
    waitFor: int(o.waitFor, field + ".waitFor", 0, 60000),
    timeout: int(o.timeout, field + ".timeout", 1000, 300000),
    maxAge: int(o.maxAge, field + ".maxAge", 0, 31536000000),
    mobile: bool(o.mobile, field + ".mobile"),
  });
}

/**
 * The `POST /v2/search` body. `scrape` present means the results are scraped too.
 * @param query Search text, 1–500 characters.
 * @param options Search options.
 * @returns The JSON body, with `limit` always set.
 */
export function buildSearchBody(query: string, options?: SearchOptions | null): Record<string, unknown> {
  const q = text(query, "query", 500);
  if (q === undefined) throw invalid("query", "a non-empty string of at most 500 characters");
  const o = record(options, "options");
  let sources: string[] | undefined;
  if (o.sources != null) {
    if (!Array.isArray(o.sources) || o.sources.length === 0 || o.sources.some((s) => s !== "web" && s !== "news" && s !== "images")) throw invalid("options.sources", "a non-empty array of web, news, images");
    sources = [...new Set(o.sources as string[])];
  }
  return compact({
    query: q,
    limit: int(o.limit, "options.limit", 1, 100) ?? 5,
    sources,
    tbs: text(o.tbs, "options.tbs", 100),
    location: text(o.location, "options.location", 200),
    timeout: int(o.timeout, "options.timeout", 1000, 300000),
    scrapeOptions: o.scrape != null ? scrapeFields(o.scrape, "options.scrape") : undefined,
  });
}

/**
 * The `POST /v2/scrape` body.
 * @param url Page to scrape (absolute http(s) URL).
 * @param options How to render it.
 * @returns The JSON body.
 */
export function buildScrapeBody(url: string, options?: ScrapeOptions | null): Record<string, unknown> {
  return { url: target(url, "url").url, ...scrapeFields(options, "options") };
}

/**
 * The `POST /v2/map` body.
 * @param url Site to map (absolute http(s) URL).
 * @param options Map options.
 * @returns The JSON body, with `limit` and `includeSubdomains` always set.
 */
export function buildMapBody(url: string, options?: MapOptions | null): Record<string, unknown> {
  const o = record(options, "options");
  return compact({
    url: target(url, "url").url,
    limit: int(o.limit, "options.limit", 1, 100000) ?? 5000,
    includeSubdomains: bool(o.includeSubdomains, "options.includeSubdomains") ?? true,
    search: text(o.search, "options.search", 500),
    sitemap: oneOf(o.sitemap, "options.sitemap", ["include", "skip", "only"] as const),
    ignoreQueryParameters: bool(o.ignoreQueryParameters, "options.ignoreQueryParameters"),
  });
}

/**
 * The `POST /v2/crawl` body.
 * @param url Start page (absolute http(s) URL).
 * @param options Crawl options.
 * @returns The JSON body, with `limit`, `allowSubdomains`, `allowExternalLinks` and `crawlEntireDomain` always set.
 */
export function buildCrawlBody(url: string, options?: CrawlOptions | null): Record<string, unknown> {
  const o = record(options, "options");
  return compact({
    url: target(url, "url").url,
    limit: int(o.limit, "options.limit", 1, 100000) ?? 10000,
    allowSubdomains: bool(o.allowSubdomains, "options.allowSubdomains") ?? false,
    allowExternalLinks: bool(o.allowExternalLinks, "options.allowExternalLinks") ?? false,
    crawlEntireDomain: bool(o.crawlEntireDomain, "options.crawlEntireDomain") ?? false,
    includePaths: strings(o.includePaths, "options.includePaths"),
    excludePaths: strings(o.excludePaths, "options.excludePaths"),
    maxDiscoveryDepth: int(o.maxDiscoveryDepth, "options.maxDiscoveryDepth", 0, 1000),
    sitemap: oneOf(o.sitemap, "options.sitemap", ["include", "skip"] as const),
    ignoreQueryParameters: bool(o.ignoreQueryParameters, "options.ignoreQueryParameters"),
    delay: int(o.delay, "options.delay", 0, 3600),
    maxConcurrency: int(o.maxConcurrency, "options.maxConcurrency", 1, 1000),
    scrapeOptions: o.scrape != null ? scrapeFields(o.scrape, "options.scrape") : undefined,
  });
}

/**
 * The `POST /v2/batch/scrape` body.
 * @param urls Pages to scrape (absolute http(s) URLs, 1–1000).
 * @param options Batch options.
 * @returns The JSON body (scrape options at the top level, as Firecrawl expects).
 */
export function buildBatchBody(urls: string[], options?: BatchOptions | null): Record<string, unknown> {
  if (!Array.isArray(urls) || urls.length === 0 || urls.length > MAX_BATCH_URLS) throw invalid("urls", `an array of 1 to ${MAX_BATCH_URLS} absolute http(s) URLs`);
  const list = urls.map((u, i) => target(u, `urls[${i}]`).url);
  const o = record(options, "options");
  return compact({
    urls: list,
    ...scrapeFields(o.scrape, "options.scrape"),
    maxConcurrency: int(o.maxConcurrency, "options.maxConcurrency", 1, 1000),
    ignoreInvalidURLs: bool(o.ignoreInvalidURLs, "options.ignoreInvalidURLs"),
  });
}
