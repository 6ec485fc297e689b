import { label, expectException } from "svc:test";
import { buildSearchBody, buildScrapeBody, buildMapBody, buildCrawlBody, buildBatchBody, FirecrawlError } from "@svc/firecrawl";

const same = (a: unknown, b: unknown) => assert(JSON.stringify(a) === JSON.stringify(b), JSON.stringify(a) + " != " + JSON.stringify(b));

export function main() {
  label("search body: the checked limit is always sent; scrape options only when asked");
  same(buildSearchBody("svc"), { query: "svc", limit: 5 });
  same(buildSearchBody("svc", { limit: 3, sources: ["web", "news"], tbs: "qdr:d", scrape: { formats: ["markdown"] } }), { query: "svc", limit: 3, sources: ["web", "news"], tbs: "qdr:d", scrapeOptions: { formats: ["markdown"] } });

  label("scrape body: the URL is normalised and options kept");
  same(buildScrapeBody("HTTPS://Example.COM/a", { formats: ["markdown", "links"], onlyMainContent: false, waitFor: 500 }), { url: "https://example.com/a", formats: ["markdown", "links"], onlyMainContent: false, waitFor: 500 });

  label("map and crawl bodies carry every value the policy sees");
  same(buildMapBody("https://example.com"), { url: "https://example.com/", limit: 5000, includeSubdomains: true });
  same(buildCrawlBody("https://example.com/docs/", { limit: 20, includePaths: ["^/docs/.*"] }), { url: "https://example.com/docs/", limit: 20, allowSubdomains: false, allowExternalLinks: false, crawlEntireDomain: false, includePaths: ["^/docs/.*"] });

  label("batch body: scrape options at the top level");
  same(buildBatchBody(["https://a.example/x", "https://b.example/y"], { scrape: { formats: ["html"] }, ignoreInvalidURLs: true }), { urls: ["https://a.example/x", "https://b.example/y"], formats: ["html"], ignoreInvalidURLs: true });

  label("bad arguments name the field and what is accepted");
  const e = expectException(() => buildScrapeBody("ftp://example.com"), "FirecrawlError") as FirecrawlError;
  assert(e.code === "invalid_argument" && e.status === 0 && e.message.includes("url"), e.message);
  assert(expectException(() => buildSearchBody(""), "FirecrawlError").message.includes("query"));
  assert(expectException(() => buildSearchBody("x", { limit: 0 }), "FirecrawlError").message.includes("options.limit"));
  assert(expectException(() => buildMapBody("https://example.com", { sitemap: "all" as "skip" }), "FirecrawlError").message.includes("options.sitemap"));
  assert(expectException(() => buildCrawlBody("https://example.com", { allowSubdomains: "yes" as unknown as boolean }), "FirecrawlError").message.includes("options.allowSubdomains"));
  assert(expectException(() => buildBatchBody([]), "FirecrawlError").message.includes("urls"));
  assert(expectException(() => buildBatchBody(["https://ok.example", "nope"]), "FirecrawlError").message.includes("urls[1]"));
  assert(expectException(() => buildScrapeBody("https://user:pw@example.com"), "FirecrawlError").message.includes("url"));
  assert(expectException(() => buildScrapeBody("https://example.com", { formats: ["pdf" as "html"] }), "FirecrawlError").message.includes("options.formats"));
}
