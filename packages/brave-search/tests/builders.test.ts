import { label, expectException } from "svc:test";
import { buildSearchQuery, buildContextQuery, braveHttpError, BraveSearchError } from "@svc/brave-search";

export function main() {
  label("search query: terms are encoded and options map to Brave's parameter names");
  assert(buildSearchQuery("  rust async  ") === "q=rust%20async");
  const qs = buildSearchQuery("a&b", { count: 5, offset: 2, country: "de", searchLang: "en", safesearch: "strict", freshness: "pw", extraSnippets: true });
  assert(qs === "q=a%26b&count=5&offset=2&country=DE&search_lang=en&safesearch=strict&freshness=pw&extra_snippets=true", qs);

  label("search query: bad arguments name the field and what is accepted");
  const empty = expectException(() => buildSearchQuery("   "), "BraveSearchError") as BraveSearchError;
  assert(empty.code === "invalid_argument" && empty.status === 0);
  const count = expectException(() => buildSearchQuery("x", { count: 21 }), "BraveSearchError");
  assert(count.message.includes("count") && count.message.includes("1 to 20"), count.message);
  const fresh = expectException(() => buildSearchQuery("x", { freshness: "yesterday" }), "BraveSearchError");
  assert(fresh.message.includes("freshness"), fresh.message);
  expectException(() => buildSearchQuery("x".repeat(401)), "BraveSearchError");
  expectException(() => buildSearchQuery(42 as unknown as string), "BraveSearchError");

  label("context query: budgets map to maximum_number_of_* parameters");
  const cq = buildContextQuery("tallest mountains", { maxTokens: 2048, maxUrls: 3, thresholdMode: "strict" });
  assert(cq === "q=tallest%20mountains&maximum_number_of_urls=3&maximum_number_of_tokens=2048&context_threshold_mode=strict", cq);
  const tokens = expectException(() => buildContextQuery("x", { maxTokens: 100 }), "BraveSearchError");
  assert(tokens.message.includes("maxTokens"), tokens.message);

  label("HTTP errors map to codes with retry metadata");
  const limited = braveHttpError(429, new Map([["x-ratelimit-limit", "1, 15000"], ["x-ratelimit-remaining", "0, 14000"], ["x-ratelimit-reset", "1, 1419704"]]), JSON.stringify({ type: "ErrorResponse", error: { code: "RATE_LIMITED", detail: "Request rate limit exceeded for plan.", status: 429 } }));
  assert(limited.code === "rate_limited" && limited.status === 429 && limited.retryAfterSeconds === 1, JSON.stringify(limited));
  assert(limited.serviceCode === "RATE_LIMITED" && limited.rateLimit !== null && limited.rateLimit.remaining[1] === 14000);
  assert(braveHttpError(401, null, "").code === "unauthorized");
  assert(braveHttpError(403, {}, "").code === "forbidden");
  assert(braveHttpError(404, {}, "").code === "not_found");
  assert(braveHttpError(422, {}, "{}").code === "http_error");
  assert(braveHttpError(503, { "retry-after": "30" }, "oops").retryAfterSeconds === 30);
}
