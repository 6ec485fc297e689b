import { label, expectException } from "svc:test";
import { readerHeaders, searchHeaders, JinaError } from "@svc/jina";

export function main() {
  label("reader options become Jina's X- headers");
  const h = readerHeaders({ format: "markdown", targetSelector: "main", removeSelector: "nav", timeout: 30, noCache: true, withLinksSummary: true, noImages: true, tokenBudget: 5000 });
  assert(JSON.stringify(h) === JSON.stringify({ "x-return-format": "markdown", "x-target-selector": "main", "x-remove-selector": "nav", "x-timeout": "30", "x-no-cache": "true", "x-with-links-summary": "true", "x-retain-images": "none", "x-token-budget": "5000" }), JSON.stringify(h));
  assert(JSON.stringify(readerHeaders()) === "{}");

  label("search options: site, no-content, cache and timeout are headers");
  const s = searchHeaders({ site: "Docs.Python.org", noContent: true, timeout: 10, count: 5, country: "us" });
  assert(JSON.stringify(s) === JSON.stringify({ "x-site": "docs.python.org", "x-respond-with": "no-content", "x-timeout": "10" }), JSON.stringify(s));

  label("bad options name the field and what is accepted");
  const format = expectException(() => readerHeaders({ format: "pdf" as "html" }), "JinaError") as JinaError;
  assert(format.code === "invalid_argument" && format.status === 0 && format.message.includes("format"), format.message);
  assert(expectException(() => readerHeaders({ timeout: 0 }), "JinaError").message.includes("timeout"));
  assert(expectException(() => readerHeaders({ targetSelector: "a\r\nx-evil: 1" }), "JinaError").message.includes("targetSelector"));
  assert(expectException(() => searchHeaders({ site: "not a host" }), "JinaError").message.includes("site"));
  expectException(() => readerHeaders("markdown" as unknown as null), "JinaError");
}
