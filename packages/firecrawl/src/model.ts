// Firecrawl's answers, normalised into small JSON-serialisable shapes.
import { FirecrawlError } from "./errors";

/** One scraped page. Fields Firecrawl did not return are null (or empty). */
export interface Document {
  /** The page's URL (after redirects when Firecrawl reports it). */
  url: string | null;
  title: string | null;
  description: string | null;
  /** HTTP status Firecrawl got from the page. */
  statusCode: number | null;
  markdown: string | null;
  html: string | null;
  rawHtml: string | null;
  summary: string | null;
  /** Screenshot URL. */
  screenshot: string | null;
  links: string[];
  images: string[];
  /** Firecrawl's warning about this page, if any. */
  warning: string | null;
  /** Everything Firecrawl reported about the page (title, language, og:*, …). */
  metadata: Record<string, unknown>;
}

/** One search result; `document` is the scraped page when the search scraped. */
export interface SearchHit {
  url: string;
  title: string | null;
  /** Snippet (web and news). */
  description: string | null;
  position: number | null;
  /** Image address (image results). */
  imageUrl: string | null;
  /** Publication date as Firecrawl gives it (news results). */
  date: string | null;
  document: Document | null;
}

/** Search results per kind. */
export interface SearchResults {
  web: SearchHit[];
  news: SearchHit[];
  images: SearchHit[];
}

/** One link found by `map`. */
export interface MapLink {
  url: string;
  title: string | null;
  description: string | null;
}

/** A job kind: a crawl or a batch scrape. */
export type JobKind = "crawl" | "batch";

/** A started job. */
export interface JobStart {
  kind: JobKind;
  id: string;
  /** URLs Firecrawl refused (batches with `ignoreInvalidURLs`). */
  invalidUrls: string[];
}

/** A job's status and one page of its documents. */
export interface Job {
  kind: JobKind;
  id: string;
  /** `scraping`, `completed`, `failed` or `cancelled`. */
  status: string;
  total: number;
  completed: number;
  creditsUsed: number | null;
  expiresAt: string | null;
  /** Pass as `cursor` to read the next page of documents; null when there is none. */
  nextCursor: string | null;
  documents: Document[];
}

/** One failed page of a job. */
export interface JobError {
  id: string | null;
  url: string | null;
  error: string;
  timestamp: string | null;
}

/** The failures of a job. */
export interface JobErrors {
  errors: JobError[];
  /** URLs robots.txt kept Firecrawl from fetching. */
  robotsBlocked: string[];
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function bad(operation: string, what: string): FirecrawlError {
  return new FirecrawlError("invalid_response", `firecrawl ${operation}: ${what}`);
}

/** A Firecrawl document object as a `Document`. */
export function normalizeDocument(value: unknown): Document {
  const d = obj(value);
  const metadata = obj(d.metadata);
  return {
    url: str(metadata.url) ?? str(metadata.sourceURL) ?? str(d.url),
    title: str(metadata.title) ?? str(d.title),
    description: str(metadata.description) ?? str(d.description),
    statusCode: num(metadata.statusCode),
    markdown: str(d.markdown),
    html: str(d.html),
    rawHtml: str(d.rawHtml),
    summary: str(d.summary),
    screenshot: str(d.screenshot),
    links: strs(d.links),
    images: strs(d.images),
    warning: str(d.warning),
    metadata: { ...metadata },
  };
}

function hit(value: unknown): SearchHit | null {
  const h = obj(value);
  const document = h.markdown !== undefined || h.html !== undefined || h.rawHtml !== undefined || h.metadata !== undefined ? normalizeDocument(h) : null;
  const url = str(h.url) ?? document?.url ?? null;
  if (url === null) return null;
  return {
    url,
    title: str(h.title) ?? document?.title ?? null,
    description: str(h.description) ?? str(h.snippet) ?? document?.description ?? null,
    position: num(h.position),
    imageUrl: str(h.imageUrl),
    date: str(h.date),
    document,
  };
}

const hits = (v: unknown): SearchHit[] => (Array.isArray(v) ? v.map(hit).filter((h): h is SearchHit => h !== null) : []);

/** The `data` of a search answer. */
export function normalizeSearch(body: Record<string, unknown>): SearchResults {
  const data = body.data;
  // Older answers carried a plain list of web results.
  if (Array.isArray(data)) return { web: hits(data), news: [], images: [] };
  if (data === null || typeof data !== "object") throw bad("search", "the answer has no data");
  const d = obj(data);
  return { web: hits(d.web), news: hits(d.news), images: hits(d.images) };
}

/** The `data` of a scrape answer. */
export function normalizeScrape(body: Record<string, unknown>): Document {
  if (body.data === null || typeof body.data !== "object") throw bad("scrape", "the answer has no data");
  return normalizeDocument(body.data);
}

/** The `links` of a map answer (objects, or plain URLs in older answers). */
export function normalizeMap(body: Record<string, unknown>): MapLink[] {
  if (!Array.isArray(body.links)) throw bad("map", "the answer has no links");
  const out: MapLink[] = [];
  for (const link of body.links) {
    if (typeof link === "string") out.push({ url: link, title: null, description: null });
    else {
      const l = obj(link);
      const url = str(l.url);
      if (url !== null) out.push({ url, title: str(l.title), description: str(l.description) });
    }
  }
  return out;
}

/** The answer to starting a crawl or batch. */
export function normalizeStart(kind: JobKind, body: Record<string, unknown>): JobStart {
  const id = str(body.id);
  if (id === null || id === "") throw bad(kind === "crawl" ? "startCrawl" : "startBatch", "the answer has no job id");
  return { kind, id, invalidUrls: strs(body.invalidURLs) };
}

/** The query of Firecrawl's `next` URL, kept as an opaque cursor. */
export function cursorOf(next: unknown): string | null {
  if (typeof next !== "string" || next === "") return null;
  const at = next.indexOf("?");
  if (at < 0) return null;
  const query = next.slice(at + 1);
  return CURSOR.test(query) ? query : null;
}

/** What a cursor may contain: a query string of plain parameters. */
export const CURSOR = /^[A-Za-z0-9_.~%=&-]{1,500}$/;

/** A job status answer. */
export function normalizeJob(kind: JobKind, id: string, body: Record<string, unknown>): Job {
  const status = str(body.status);
  if (status === null) throw bad("getJob", "the answer has no status");
  return {
    kind,
    id,
    status,
    total: num(body.total) ?? 0,
    completed: num(body.completed) ?? 0,
    creditsUsed: num(body.creditsUsed),
    expiresAt: str(body.expiresAt),
    nextCursor: cursorOf(body.next),
    documents: Array.isArray(body.data) ? body.data.map(normalizeDocument) : [],
  };
}

/** A job errors answer. */
export function normalizeJobErrors(body: Record<string, unknown>): JobErrors {
  const errors = Array.isArray(body.errors) ? body.errors : [];
  return {
    errors: errors.map((e) => {
      const x = obj(e);
      return { id: str(x.id), url: str(x.url), error: str(x.error) ?? "", timestamp: str(x.timestamp) };
    }),
    robotsBlocked: strs(body.robotsBlocked),
  };
}
