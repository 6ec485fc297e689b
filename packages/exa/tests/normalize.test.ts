import { label, expectException } from "svc:test";
import { normalizeSearchJson, normalizeContentsJson } from "@svc/exa";

export function main() {
  label("search JSON becomes a SearchResult");
  const found = normalizeSearchJson({
    requestId: "req-1",
    resolvedSearchType: "neural",
    results: [{ id: "https://a.example/", url: "https://a.example/", title: "A", author: "Ann", publishedDate: "2025-02-01T00:00:00.000Z", text: "body", highlights: ["h1"], highlightScores: [0.5], summary: "sum", favicon: "https://a.example/f.ico" }],
    costDollars: { total: 0.005 },
  });
  assert(found.requestId === "req-1" && found.searchType === "neural" && found.costDollars === 0.005);
  const r = found.results[0];
  assert(r.title === "A" && r.author === "Ann" && r.text === "body" && r.highlights[0] === "h1" && r.highlightScores[0] === 0.5 && r.summary === "sum" && r.image === null);

  label("contents JSON keeps a status per URL");
  const pages = normalizeContentsJson({
    requestId: "req-2",
    results: [{ id: "https://a.example/", url: "https://a.example/", title: "A", text: "hello" }],
    statuses: [{ id: "https://a.example/", status: "success" }, { id: "https://b.example/", status: "error", error: { tag: "CRAWL_NOT_FOUND", httpStatusCode: 404 } }],
  });
  assert(pages.results.length === 1 && pages.statuses.length === 2);
  assert(pages.statuses[1].errorTag === "CRAWL_NOT_FOUND" && pages.statuses[1].httpStatusCode === 404 && pages.statuses[0].errorTag === null);

  label("malformed bodies are invalid_response");
  const e = expectException(() => normalizeSearchJson({ data: [] }), "ExaError");
  assert((e as unknown as { code: string }).code === "invalid_response");
  expectException(() => normalizeContentsJson({ results: [{ title: "no url" }] }), "ExaError");
}
