import { label, expectException } from "svc:test";
import { buildSearchBody, buildContentsBody, contentsHosts, exaHttpError, ExaError } from "@svc/exa";

export function main() {
  label("search body: options keep Exa's names; contents nest under `contents`");
  const body = buildSearchBody(" v8 isolates ", { type: "neural", numResults: 3, includeDomains: ["Example.COM"], startPublishedDate: "2025-01-01", contents: { text: { maxCharacters: 500 }, summary: true } });
  assert(JSON.stringify(body) === JSON.stringify({ query: "v8 isolates", type: "neural", numResults: 3, includeDomains: ["example.com"], startPublishedDate: "2025-01-01", contents: { text: { maxCharacters: 500 }, summary: true } }), JSON.stringify(body));
  assert(JSON.stringify(buildSearchBody("x")) === '{"query":"x"}');

  label("search body: bad arguments name the field");
  const n = expectException(() => buildSearchBody("x", { numResults: 0 }), "ExaError") as ExaError;
  assert(n.code === "invalid_argument" && n.message.includes("numResults"), n.message);
  assert(expectException(() => buildSearchBody("x", { startPublishedDate: "last week" }), "ExaError").message.includes("startPublishedDate"));
  expectException(() => buildSearchBody(""), "ExaError");
  expectException(() => buildSearchBody("x", { contents: { text: "yes" as unknown as boolean } }), "ExaError");

  label("contents body: text by default, options at the top level");
  assert(JSON.stringify(buildContentsBody(["https://a.example/x"])) === '{"urls":["https://a.example/x"],"text":true}');
  assert(JSON.stringify(buildContentsBody(["https://a.example/x"], { highlights: { query: "price" }, maxAgeHours: 0 })) === '{"urls":["https://a.example/x"],"highlights":{"query":"price"},"maxAgeHours":0}');
  assert(expectException(() => buildContentsBody(["ftp://a.example/x"]), "ExaError").message.includes("urls[0]"));
  expectException(() => buildContentsBody([]), "ExaError");

  label("contentsHosts: distinct lower-case hosts in first-seen order");
  const hosts = contentsHosts(["https://B.example/1", "https://a.example/2", "https://b.example/3", "http://a.example./4"]);
  assert(JSON.stringify(hosts) === '["b.example","a.example"]', JSON.stringify(hosts));

  label("HTTP errors map to codes with Exa's request id, tag and Retry-After");
  const limited = exaHttpError(429, new Map([["retry-after", "12"]]), JSON.stringify({ requestId: "r-1", error: "Too many requests", tag: "RATE_LIMIT_EXCEEDED" }));
  assert(limited.code === "rate_limited" && limited.retryAfterSeconds === 12 && limited.requestId === "r-1" && limited.tag === "RATE_LIMIT_EXCEEDED");
  assert(exaHttpError(401, null, "").code === "unauthorized");
  assert(exaHttpError(403, {}, "").code === "forbidden");
  assert(exaHttpError(404, {}, "").code === "not_found");
  assert(exaHttpError(402, {}, '{"tag":"NO_MORE_CREDITS"}').code === "http_error");
}
