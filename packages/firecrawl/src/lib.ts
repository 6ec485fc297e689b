import { check } from "svc:security";
import secrets from "svc:secrets";
import { get, post, del, download } from "svc:http";
import { FirecrawlError, invalid, parseBody } from "./errors";
import { buildBatchBody, buildCrawlBody, buildMapBody, buildScrapeBody, buildSearchBody, target } from "./bodies";
import type { BatchOptions, CrawlOptions, MapOptions, ScrapeOptions, SearchOptions } from "./bodies";
import { CURSOR, normalizeJob, normalizeJobErrors, normalizeMap, normalizeScrape, normalizeSearch, normalizeStart } from "./model";
import type { Document, Job, JobErrors, JobKind, JobStart, MapLink, SearchResults } from "./model";

export { FirecrawlError } from "./errors";
export { buildBatchBody, buildCrawlBody, buildMapBody, buildScrapeBody, buildSearchBody } from "./bodies";
export type { BatchOptions, CrawlOptions, MapOptions, ScrapeFormat, ScrapeOptions, SearchOptions } from "./bodies";
export type { Document, Job, JobError, JobErrors, JobKind, JobStart, MapLink, SearchHit, SearchResults } from "./model";

// Literal base: the build derives `host == "api.firecrawl.dev"` (and the path of each POST).
const API = "https://api.firecrawl.dev";
const V2 = API + "/v2/";

/** The largest job page `downloadJobPage` writes, and its default `maxBytes`. */
const MAX_DOWNLOAD_BYTES = 20000000;

/** Options of `getJob`. */
export interface JobPageOptions {
  /** `nextCursor` of the previous page; absent for the first page. */
  cursor?: string | null;
}

/** Options of `downloadJobPage`. */
export interface DownloadJobPageOptions extends JobPageOptions {
  /** Most bytes to write, 1–20000000 (default 20000000). */
  maxBytes?: number | null;
  /** Replace an existing file (default false: an existing file is an error). */
  overwrite?: boolean | null;
}

/** What `downloadJobPage` wrote. */
export interface DownloadedPage {
  /** Normalised absolute path of the file. */
  path: string;
  bytesWritten: number;
  contentType: string;
}

/** What `cancelJob` did. */
export interface CancelledJob {
  kind: JobKind;
  id: string;
  cancelled: boolean;
}

function headers(): Record<string, string> {
  const key = secrets.get("FIRECRAWL_API_KEY");
  if (key == null) throw new FirecrawlError("missing_credentials", "FIRECRAWL_API_KEY is not set: bind it in the Blueprint's secrets");
  return { authorization: "Bearer " + key };
}

function jobKind(kind: unknown): JobKind {
  if (kind !== "crawl" && kind !== "batch") throw invalid("kind", '"crawl" or "batch"');
  return kind;
}

function jobIdOf(jobId: unknown): string {
  if (typeof jobId !== "string" || !/^[A-Za-z0-9-]{1,100}$/.test(jobId)) throw invalid("jobId", "a job id (letters, digits and hyphens)");
  return jobId;
}

function cursorOf(options: JobPageOptions | null | undefined): string {
  if (options == null) return "";
  if (typeof options !== "object") throw invalid("options", "an object");
  const cursor = options.cursor;
  if (cursor == null) return "";
  if (typeof cursor !== "string" || !CURSOR.test(cursor)) throw invalid("options.cursor", "a nextCursor returned by getJob");
  return "?" + cursor;
}

/** `crawl/<id>` or `batch/scrape/<id>` under /v2/. */
function jobPath(kind: JobKind, id: string): string {
  return (kind === "crawl" ? "crawl/" : "batch/scrape/") + id;
}

/**
 * Search the web, and optionally scrape every result.
 * @param query Search text, 1–500 characters; operators such as `site:` work.
 * @param options Result count, kinds, time filter; `scrape` to scrape each result.
 * @returns Results per kind (web, news, images); with `scrape`, each hit carries its `document`.
 * @capability firecrawl.dev/search { limit: number } Search the web through Firecrawl.
 * @capability firecrawl.dev/search.scrape Scrape the pages a search found.
 * @capability firecrawl.dev/delegatedFetch Let Firecrawl fetch pages on the caller's behalf (including its redirects, subresources and crawling).
 */
export function search(query: string, options?: SearchOptions | null): SearchResults {
  const body = buildSearchBody(query, options);
  const limit = body.limit as number;
  const scrapes = body.scrapeOptions !== undefined;
  check("firecrawl.dev/search", { limit });
  if (scrapes) {
    check("firecrawl.dev/search.scrape", {});
    check("firecrawl.dev/delegatedFetch", {});
  }
  return normalizeSearch(parseBody(post(V2 + "search", body, headers()), "search"));
}

/**
 * Scrape one page into Markdown (or the formats asked for).
 * @param url Page to scrape (absolute http(s) URL).
 * @param options Formats and rendering options.
 * @returns The page.
 * @capability firecrawl.dev/scrape { host: string } Scrape one page; `host` is the page's host.
 * @capability firecrawl.dev/delegatedFetch Let Firecrawl fetch pages on the caller's behalf (including its redirects, subresources and crawling).
 */
export function scrape(url: string, options?: ScrapeOptions | null): Document {
  const page = target(url, "url");
  const body = buildScrapeBody(page.url, options);
  const host = page.host;
  check("firecrawl.dev/scrape", { host });
  check("firecrawl.dev/delegatedFetch", {});
  return normalizeScrape(parseBody(post(V2 + "scrape", body, headers()), "scrape"));
}

/**
 * List the URLs of a site quickly (sitemap and links), without scraping them.
 * @param url Site to map (absolute http(s) URL).
 * @param options Most links, subdomains, relevance text, sitemap use.
 * @returns The links found.
 * @capability firecrawl.dev/map { host: string, limit: number, includeSubdomains: boolean } Map a site; `host` is the site's host.
 * @capability firecrawl.dev/delegatedFetch Let Firecrawl fetch pages on the caller's behalf (including its redirects, subresources and crawling).
 */
export function map(url: string, options?: MapOptions | null): MapLink[] {
  const site = target(url, "url");
  const body = buildMapBody(site.url, options);
  const host = site.host;
  const limit = body.limit as number;
  const includeSubdomains = body.includeSubdomains as boolean;
  check("firecrawl.dev/map", { host, limit, includeSubdomains });
  check("firecrawl.dev/delegatedFetch", {});
  return normalizeMap(parseBody(post(V2 + "map", body, headers()), "map"));
}

/**
 * Start crawling a site; read the pages with `getJob("crawl", id)`.
 * @param url Start page (absolute http(s) URL).
 * @param options Page limit, scope switches, path filters, scrape options.
 * @returns The job (kind `crawl` and its id).
 * @capability firecrawl.dev/crawl.start { host: string, limit: number, allowSubdomains: boolean, allowExternalLinks: boolean, crawlEntireDomain: boolean } Start a crawl; `host` is the start page's host.
 * @capability firecrawl.dev/delegatedFetch Let Firecrawl fetch pages on the caller's behalf (including its redirects, subresources and crawling).
 */
export function startCrawl(url: string, options?: CrawlOptions | null): JobStart {
  const start = target(url, "url");
  const body = buildCrawlBody(start.url, options);
  const host = start.host;
  const limit = body.limit as number;
  const allowSubdomains = body.allowSubdomains as boolean;
  const allowExternalLinks = body.allowExternalLinks as boolean;
  const crawlEntireDomain = body.crawlEntireDomain as boolean;
  check("firecrawl.dev/crawl.start", { host, limit, allowSubdomains, allowExternalLinks, crawlEntireDomain });
  check("firecrawl.dev/delegatedFetch", {});
  return normalizeStart("crawl", parseBody(post(V2 + "crawl", body, headers()), "startCrawl"));
}

/**
 * Start scraping many pages at once; read them with `getJob("batch", id)`.
 * @param urls Pages to scrape (absolute http(s) URLs, 1–1000).
 * @param options Scrape options, concurrency, whether to skip invalid URLs.
 * @returns The job (kind `batch`, its id, and the URLs Firecrawl refused).
 * @capability firecrawl.dev/batch.start { host: string, count: number } Start a batch scrape; checked once per URL with its host; `count` is the number of URLs.
 * @capability firecrawl.dev/delegatedFetch Let Firecrawl fetch pages on the caller's behalf (including its redirects, subresources and crawling).
 */
export function startBatch(urls: string[], options?: BatchOptions | null): JobStart {
  const body = buildBatchBody(urls, options);
  const list = body.urls as string[];
  const count = list.length;
  for (const u of list) {
    const host = target(u, "urls").host;
    check("firecrawl.dev/batch.start", { host, count });
  }
  check("firecrawl.dev/delegatedFetch", {});
  return normalizeStart("batch", parseBody(post(V2 + "batch/scrape", body, headers()), "startBatch"));
}

/**
 * A crawl's or batch's status and one page of its documents (Firecrawl pages large results).
 * @param kind `"crawl"` or `"batch"`.
 * @param jobId The job id from `startCrawl` or `startBatch`.
 * @param options `cursor`: the previous page's `nextCursor`.
 * @returns Status, counts, documents and the next page's cursor.
 * @capability firecrawl.dev/jobs.read { kind, jobId } Read a job's status, documents or errors.
 */
export function getJob(kind: JobKind, jobId: string, options?: JobPageOptions | null): Job {
  const k = jobKind(kind);
  const id = jobIdOf(jobId);
  const query = cursorOf(options);
  check("firecrawl.dev/jobs.read", { kind: k, jobId: id });
  return normalizeJob(k, id, parseBody(get(V2 + jobPath(k, id) + query, headers()), "getJob"));
}

/**
 * The pages a crawl or batch failed on, and those robots.txt blocked.
 * @param kind `"crawl"` or `"batch"`.
 * @param jobId The job id.
 * @returns The failures.
 * @capability firecrawl.dev/jobs.read { kind, jobId } Read a job's status, documents or errors.
 */
export function getJobErrors(kind: JobKind, jobId: string): JobErrors {
  const k = jobKind(kind);
  const id = jobIdOf(jobId);
  check("firecrawl.dev/jobs.read", { kind: k, jobId: id });
  return normalizeJobErrors(parseBody(get(V2 + jobPath(k, id) + "/errors", headers()), "getJobErrors"));
}

/**
 * Cancel a running crawl or batch.
 * @param kind `"crawl"` or `"batch"`.
 * @param jobId The job id.
 * @returns The cancelled job.
 * @capability firecrawl.dev/jobs.cancel { kind, jobId } Cancel a job.
 */
export function cancelJob(kind: JobKind, jobId: string): CancelledJob {
  const k = jobKind(kind);
  const id = jobIdOf(jobId);
  check("firecrawl.dev/jobs.cancel", { kind: k, jobId: id });
  parseBody(del(V2 + jobPath(k, id), headers()), "cancelJob");
  return { kind: k, id, cancelled: true };
}

/**
 * Save one page of a job's status answer (Firecrawl's JSON, documents included) into the
 * file area, for results too large to hold in memory. Your own `fs.write` rule for `path`
 * is checked too. On an error answer the error body stays in the file and this throws.
 * @param kind `"crawl"` or `"batch"`.
 * @param jobId The job id.
 * @param path Destination in the file area (its directory must exist).
 * @param options `cursor` (from `getJob`), `maxBytes` (default and at most 20000000), `overwrite`.
 * @returns The file written.
 * @capability firecrawl.dev/jobs.read { kind, jobId } Read a job's status, documents or errors.
 */
export function downloadJobPage(kind: JobKind, jobId: string, path: string, options?: DownloadJobPageOptions | null): DownloadedPage {
  const k = jobKind(kind);
  const id = jobIdOf(jobId);
  if (typeof path !== "string" || path.trim() === "") throw invalid("path", "a file path in the file area");
  const destination = path;
  const query = cursorOf(options);
  const maxBytes = options?.maxBytes ?? MAX_DOWNLOAD_BYTES;
  if (typeof maxBytes !== "number" || !Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_DOWNLOAD_BYTES) throw invalid("options.maxBytes", `an integer from 1 to ${MAX_DOWNLOAD_BYTES}`);
  const overwrite = options?.overwrite ?? false;
  if (typeof overwrite !== "boolean") throw invalid("options.overwrite", "true or false");
  check("firecrawl.dev/jobs.read", { kind: k, jobId: id });
  check("fs.write", { path: destination, max_bytes: maxBytes });
  const result = download(V2 + jobPath(k, id) + query, destination, { maxBytes, overwrite, headers: headers() });
  if (result.status < 200 || result.status > 299) {
    const status = result.status;
    const code = status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
    throw new FirecrawlError(code, `firecrawl downloadJobPage failed: HTTP ${status} (the error body was written to ${result.path})`, status);
  }
  return { path: result.path, bytesWritten: result.bytesWritten, contentType: result.contentType };
}
