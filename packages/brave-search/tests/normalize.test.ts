import { label, expectException } from "svc:test";
import { normalizeSearchJson, normalizeContextJson } from "@svc/brave-search";

export function main() {
  label("web search JSON becomes a SearchPage");
  const page = normalizeSearchJson({
    type: "search",
    query: { original: "rust async", more_results_available: true },
    web: { type: "search", results: [{ title: "Async <strong>Rust</strong>", url: "https://rust-lang.org/async", description: "The <strong>async</strong> book", age: "2 days ago", page_age: "2024-05-01T00:00:00", language: "en", extra_snippets: ["one <strong>x</strong>"] }] },
  }, 3);
  assert(page.query === "rust async" && page.moreResultsAvailable && page.nextOffset === 4);
  const item = page.items[0];
  assert(item.title === "Async Rust" && item.description === "The async book" && item.age === "2 days ago" && item.pageAge === "2024-05-01T00:00:00");
  assert(item.extraSnippets[0] === "one x" && item.language === "en");

  label("a page without web results is empty; the last page has no nextOffset");
  const none = normalizeSearchJson({ type: "search", query: { original: "zzz", more_results_available: false } });
  assert(none.items.length === 0 && none.nextOffset === null);
  assert(normalizeSearchJson({ query: { original: "x", more_results_available: true }, web: { results: [] } }, 9).nextOffset === null);

  label("malformed bodies are invalid_response");
  const e = expectException(() => normalizeSearchJson([]), "BraveSearchError");
  assert((e as unknown as { code: string }).code === "invalid_response");
  expectException(() => normalizeSearchJson({ web: { results: [{ title: "no url" }] } }), "BraveSearchError");

  label("LLM context JSON joins grounding entries with their sources");
  const ctx = normalizeContextJson({
    grounding: { generic: [{ url: "https://a.example/x", title: "A", snippets: ["first", "second"] }], poi: null, map: [] },
    sources: { "https://a.example/x": { title: "A page", hostname: "a.example", age: ["Monday, May 6, 2024", "2024-05-06", "380 days ago"] } },
  }, "q");
  assert(ctx.query === "q" && ctx.items.length === 1);
  assert(ctx.items[0].kind === "generic" && ctx.items[0].hostname === "a.example" && ctx.items[0].age.length === 3 && ctx.items[0].snippets[1] === "second");
  expectException(() => normalizeContextJson({ sources: {} }, "q"), "BraveSearchError");
}
