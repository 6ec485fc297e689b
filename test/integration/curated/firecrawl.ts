// @svc/firecrawl installed into a real server and called from programs, against a loopback
// stand-in playing api.firecrawl.dev: the requests Firecrawl receives (v2 paths, JSON bodies
// with the checked limits and scope switches, Bearer key), the normalised results, the two
// grants per fetch (own capability for the submitted host and firecrawl.dev/delegatedFetch),
// job pages saved behind the caller's own fs.write rule, denials (no request sent) and
// Firecrawl's error answers mapped to FirecrawlError codes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { blueprintYaml, derivedRequires, startCurated, type Curated, type CuratedOptions, type Rule } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const KEY = 'fc-test-key';
const JOB = '5f0c2b1e-3a4d-4c5e-9f60-7a8b9c0d1e2f';
const B12_REQUIRES: Rule[] = [
  { capability: 'fs.write' },
  { capability: 'http.delete', filter: 'host == "api.firecrawl.dev"' },
  { capability: 'http.download', filter: 'host == "api.firecrawl.dev"' },
  { capability: 'http.get', filter: 'host == "api.firecrawl.dev"' },
  { capability: 'http.post', filter: 'host == "api.firecrawl.dev" and path == "/v2/batch/scrape"' },
  { capability: 'http.post', filter: 'host == "api.firecrawl.dev" and path == "/v2/crawl"' },
  { capability: 'http.post', filter: 'host == "api.firecrawl.dev" and path == "/v2/map"' },
  { capability: 'http.post', filter: 'host == "api.firecrawl.dev" and path == "/v2/scrape"' },
  { capability: 'http.post', filter: 'host == "api.firecrawl.dev" and path == "/v2/search"' },
  { capability: 'secrets.get', filter: 'name == "FIRECRAWL_API_KEY"' },
];

const doc = (url: string, markdown: string) => ({ markdown, links: [`${url}#top`], metadata: { title: 'Page ' + url, description: 'About ' + url, language: 'en', sourceURL: url, url, statusCode: 200 } });

function failure(status: number): StandInReply {
  const messages: Record<number, string> = { 401: 'Unauthorized: Invalid token', 402: 'Payment required', 403: 'Forbidden', 404: 'Job not found', 429: 'Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0.' };
  return { status, headers: status === 429 ? { 'retry-after': '17' } : {}, json: { success: false, error: messages[status] ?? 'Unexpected error' } };
}

function failing(url: unknown): StandInReply | null {
  const m = /^https:\/\/fail\.example\/(\d+)/.exec(String(url ?? ''));
  return m ? failure(Number(m[1])) : null;
}

function handler(request: StandInRequest): StandInReply {
  const [pathname, query = ''] = request.path.split('?');
  const body = request.json ?? {};
  if (request.method === 'POST' && pathname === '/v2/search') {
    if (body.query === 'fail-429') return failure(429);
    const scraped = body.scrapeOptions !== undefined;
    const web = [
      { url: 'https://docs.example/a', title: 'A', description: 'First', position: 1, ...(scraped ? doc('https://docs.example/a', '# A') : {}) },
      { url: 'https://docs.example/b', title: 'B', description: 'Second', position: 2 },
    ];
    return { json: { success: true, data: { web, news: [{ title: 'News', url: 'https://news.example/1', snippet: 'Fresh', date: '3 hours ago', position: 1 }] }, creditsUsed: 2 } };
  }
  if (request.method === 'POST' && pathname === '/v2/scrape') return failing(body.url) ?? { json: { success: true, data: doc(body.url, '# Hello\n\nScraped.') } };
  if (request.method === 'POST' && pathname === '/v2/map') return failing(body.url) ?? { json: { success: true, links: [{ url: 'https://docs.example/', title: 'Home', description: 'Start' }, { url: 'https://docs.example/install' }] } };
  if (request.method === 'POST' && pathname === '/v2/crawl') return failing(body.url) ?? { json: { success: true, id: JOB, url: `https://api.firecrawl.dev/v2/crawl/${JOB}` } };
  if (request.method === 'POST' && pathname === '/v2/batch/scrape') return { json: { success: true, id: JOB, url: `https://api.firecrawl.dev/v2/batch/scrape/${JOB}`, invalidURLs: ['notaurl'] } };
  const job = /^\/v2\/(crawl|batch\/scrape)\/([^/]+)(\/errors)?$/.exec(pathname);
  if (job) {
    const [, kind, id, errors] = job;
    const status = /^fail-(\d+)$/.exec(id);
    if (status) return failure(Number(status[1]));
    if (request.method === 'DELETE') return kind === 'crawl' ? { json: { status: 'cancelled' } } : { json: { success: true, message: 'Batch scrape job successfully cancelled.' } };
    if (errors) return { json: { errors: [{ id: 'e1', timestamp: '2026-11-23T10:00:00Z', url: 'https://docs.example/broken', error: 'Timeout' }], robotsBlocked: ['https://docs.example/private'] } };
    if (query === 'skip=1') return { json: { status: 'completed', total: 2, completed: 2, creditsUsed: 2, expiresAt: '2026-11-24T10:00:00Z', data: [doc('https://docs.example/b', '# B')] } };
    return { json: { status: 'scraping', total: 2, completed: 1, creditsUsed: 1, expiresAt: '2026-11-24T10:00:00Z', next: `https://api.firecrawl.dev/v2/${kind}/${id}?skip=1`, data: [doc('https://docs.example/a', '# A')] } };
  }
  return { status: 404, json: { success: false, error: 'no such route' } };
}

const catching = (call: string) => `import * as fc from "@svc/firecrawl";
import { readText } from "svc:fs";
export function main() {
  try { const value = fc.${call}; return { value, file: value && typeof value === "object" && "bytesWritten" in value ? readText((value as any).path) : null }; }
  catch (e: any) { return { name: e.name, code: e.code ?? null, status: e.status ?? null, retryAfterSeconds: e.retryAfterSeconds ?? null, capability: e.capability ?? null, message: e.message }; }
}`;

describe('@svc/firecrawl against a Firecrawl v2 stand-in', () => {
  let c: Curated;
  const grants: Rule[] = [
    { capability: 'firecrawl.dev/search', filter: 'limit <= 10' },
    { capability: 'firecrawl.dev/search.scrape' },
    { capability: 'firecrawl.dev/scrape', filter: 'host != "blocked.example"' },
    { capability: 'firecrawl.dev/map', filter: 'limit <= 1000' },
    { capability: 'firecrawl.dev/crawl.start', filter: 'allowExternalLinks == false and limit <= 100' },
    { capability: 'firecrawl.dev/batch.start', filter: 'host != "blocked.example" and count <= 5' },
    { capability: 'firecrawl.dev/jobs.read' },
    { capability: 'firecrawl.dev/jobs.cancel', filter: 'kind == "crawl"' },
    { capability: 'firecrawl.dev/delegatedFetch' },
    { capability: 'fs.write', filter: 'path glob "/allowed-*"' },
    { capability: 'fs.read' },
  ];
  const options: CuratedOptions = {
    package: '@svc/firecrawl',
    hosts: ['api.firecrawl.dev'],
    secret: 'FIRECRAWL_API_KEY',
    main: grants,
    extra: { vfs: 'ephemeral' },
    handler,
  };
  const secrets = { FIRECRAWL_API_KEY: KEY };
  const sent = (from: number) => c.api.requests.slice(from);

  before(async () => {
    c = await startCurated(options);
    // The same grants without firecrawl.dev/delegatedFetch.
    const undelegated = blueprintYaml({ ...options, blueprint: 'firecrawl-undelegated', main: grants.filter((g) => g.capability !== 'firecrawl.dev/delegatedFetch') }, derivedRequires(c.home, '@svc/firecrawl'));
    const registered = await c.server.request('POST', '/v1/blueprints', { body: { yaml: undelegated } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents (fs.write from http.download included)', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/firecrawl'), B12_REQUIRES);
  });

  test('scrape POSTs the page to /v2/scrape with the Bearer key and returns the document', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('scrape("https://Docs.Example/guide", { formats: ["markdown", "links"], onlyMainContent: false })'), { secrets });
    const requests = sent(before);
    assert.equal(requests.length, 1);
    assert.equal(requests[0].method, 'POST');
    assert.equal(requests[0].path, '/v2/scrape');
    assert.equal(requests[0].headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(requests[0].json, { url: 'https://docs.example/guide', formats: ['markdown', 'links'], onlyMainContent: false });
    const page = out.value.value;
    assert.equal(page.url, 'https://docs.example/guide', JSON.stringify(out.value));
    assert.equal(page.title, 'Page https://docs.example/guide');
    assert.equal(page.statusCode, 200);
    assert.equal(page.markdown, '# Hello\n\nScraped.');
    assert.deepEqual(page.links, ['https://docs.example/guide#top']);
    assert.equal(page.html, null);
    assert.equal(page.metadata.language, 'en');
    const decisions = c.decisions('firecrawl.dev/scrape');
    assert.match(JSON.stringify(decisions[decisions.length - 1]), /docs\.example/);
  });

  test('search sends the checked limit; scraping search results needs search.scrape and delegatedFetch', async () => {
    const before = c.api.requests.length;
    const plain = await c.run(catching('search("svc docs", { sources: ["web", "news"] })'), { secrets });
    const scraped = await c.run(catching('search("svc docs", { limit: 2, scrape: { formats: ["markdown"] } })'), { secrets });
    const requests = sent(before);
    assert.equal(requests.length, 2);
    assert.equal(requests[0].path, '/v2/search');
    assert.deepEqual(requests[0].json, { query: 'svc docs', limit: 5, sources: ['web', 'news'] });
    assert.deepEqual(requests[1].json, { query: 'svc docs', limit: 2, scrapeOptions: { formats: ['markdown'] } });
    const results = plain.value.value;
    assert.deepEqual(results.web[0], { url: 'https://docs.example/a', title: 'A', description: 'First', position: 1, imageUrl: null, date: null, document: null });
    assert.deepEqual(results.news, [{ url: 'https://news.example/1', title: 'News', description: 'Fresh', position: 1, imageUrl: null, date: '3 hours ago', document: null }]);
    assert.deepEqual(results.images, []);
    assert.equal(scraped.value.value.web[0].document.markdown, '# A');
    assert.equal(c.decisions('firecrawl.dev/search.scrape').length, 1);

    const undelegated = await c.server.request('POST', '/v1/execute', { token: c.server.userToken, body: { blueprint: 'firecrawl-undelegated', code: catching('search("svc docs", { scrape: {} })'), secrets } });
    assert.equal(JSON.parse(undelegated.json.result).capability, 'firecrawl.dev/delegatedFetch', undelegated.text);
    const tooMany = await c.run(catching('search("svc docs", { limit: 50 })'), { secrets });
    assert.equal(tooMany.value.name, 'PermissionDeniedError');
    assert.equal(tooMany.value.capability, 'firecrawl.dev/search');
    assert.equal(c.api.requests.length, before + 2);
  });

  test('map and startCrawl send the values the policy judged (defaults made explicit)', async () => {
    const before = c.api.requests.length;
    const links = await c.run(catching('map("https://docs.example", { limit: 100, search: "install" })'), { secrets });
    const crawl = await c.run(catching('startCrawl("https://docs.example/guide/", { limit: 20, excludePaths: ["^/old/"] })'), { secrets });
    const requests = sent(before);
    assert.equal(requests.length, 2);
    assert.equal(requests[0].path, '/v2/map');
    assert.deepEqual(requests[0].json, { url: 'https://docs.example/', limit: 100, includeSubdomains: true, search: 'install' });
    assert.deepEqual(links.value.value, [{ url: 'https://docs.example/', title: 'Home', description: 'Start' }, { url: 'https://docs.example/install', title: null, description: null }]);
    assert.equal(requests[1].path, '/v2/crawl');
    assert.deepEqual(requests[1].json, { url: 'https://docs.example/guide/', limit: 20, allowSubdomains: false, allowExternalLinks: false, crawlEntireDomain: false, excludePaths: ['^/old/'] });
    assert.deepEqual(crawl.value.value, { kind: 'crawl', id: JOB, invalidUrls: [] });

    const mapTooBig = await c.run(catching('map("https://docs.example")'), { secrets });
    assert.equal(mapTooBig.value.capability, 'firecrawl.dev/map', 'the default limit of 5000 is what the rule sees');
    const external = await c.run(catching('startCrawl("https://docs.example/", { limit: 10, allowExternalLinks: true })'), { secrets });
    assert.equal(external.value.capability, 'firecrawl.dev/crawl.start');
    assert.equal(c.api.requests.length, before + 2);
  });

  test('startBatch checks every URL host before sending anything', async () => {
    const before = c.api.requests.length;
    const ok = await c.run(catching('startBatch(["https://a.example/1", "https://b.example/2"], { scrape: { formats: ["markdown"] }, ignoreInvalidURLs: true })'), { secrets });
    assert.equal(sent(before).length, 1);
    assert.equal(sent(before)[0].path, '/v2/batch/scrape');
    assert.deepEqual(sent(before)[0].json, { urls: ['https://a.example/1', 'https://b.example/2'], formats: ['markdown'], ignoreInvalidURLs: true });
    assert.deepEqual(ok.value.value, { kind: 'batch', id: JOB, invalidUrls: ['notaurl'] });
    // Allowed checks of one run are audited together: both hosts were judged.
    const judged = JSON.stringify(c.decisions('firecrawl.dev/batch.start'));
    assert.match(judged, /a\.example/);
    assert.match(judged, /b\.example/);

    const blocked = await c.run(catching('startBatch(["https://a.example/1", "https://blocked.example/2"])'), { secrets });
    assert.equal(blocked.value.name, 'PermissionDeniedError');
    assert.equal(blocked.value.capability, 'firecrawl.dev/batch.start');
    assert.equal(c.api.requests.length, before + 1);
  });

  test('two grants per fetch: without delegatedFetch scrape, map, startCrawl and startBatch are refused and nothing is sent', async () => {
    const before = c.api.requests.length;
    for (const call of ['scrape("https://docs.example/")', 'map("https://docs.example/", { limit: 10 })', 'startCrawl("https://docs.example/", { limit: 10 })', 'startBatch(["https://docs.example/"])']) {
      const reply = await c.server.request('POST', '/v1/execute', { token: c.server.userToken, body: { blueprint: 'firecrawl-undelegated', code: catching(call), secrets } });
      const value = JSON.parse(reply.json.result);
      assert.equal(value.name, 'PermissionDeniedError', call + ': ' + reply.text);
      assert.equal(value.capability, 'firecrawl.dev/delegatedFetch', call);
    }
    const blockedHost = await c.run(catching('scrape("https://blocked.example/x")'), { secrets });
    assert.equal(blockedHost.value.capability, 'firecrawl.dev/scrape');
    assert.match(blockedHost.value.message, /caller=main capability=firecrawl\.dev\/scrape/);
    assert.equal(c.api.requests.length, before);
  });

  test('getJob pages with an opaque cursor; getJobErrors and cancelJob use the job paths', async () => {
    const before = c.api.requests.length;
    const first = await c.run(catching(`getJob("crawl", "${JOB}")`), { secrets });
    const page = first.value.value;
    assert.equal(page.status, 'scraping');
    assert.equal(page.total, 2);
    assert.equal(page.completed, 1);
    assert.equal(page.creditsUsed, 1);
    assert.equal(page.nextCursor, 'skip=1');
    assert.equal(page.documents[0].markdown, '# A');
    const second = await c.run(catching(`getJob("crawl", "${JOB}", { cursor: "skip=1" })`), { secrets });
    assert.equal(second.value.value.nextCursor, null);
    assert.equal(second.value.value.documents[0].url, 'https://docs.example/b');
    const batch = await c.run(catching(`getJob("batch", "${JOB}")`), { secrets });
    assert.equal(batch.value.value.kind, 'batch');
    const errors = await c.run(catching(`getJobErrors("crawl", "${JOB}")`), { secrets });
    assert.deepEqual(errors.value.value, { errors: [{ id: 'e1', url: 'https://docs.example/broken', error: 'Timeout', timestamp: '2026-11-23T10:00:00Z' }], robotsBlocked: ['https://docs.example/private'] });
    const cancelled = await c.run(catching(`cancelJob("crawl", "${JOB}")`), { secrets });
    assert.deepEqual(cancelled.value.value, { kind: 'crawl', id: JOB, cancelled: true });
    const requests = sent(before);
    assert.deepEqual(requests.map((r) => `${r.method} ${r.path}`), [
      `GET /v2/crawl/${JOB}`,
      `GET /v2/crawl/${JOB}?skip=1`,
      `GET /v2/batch/scrape/${JOB}`,
      `GET /v2/crawl/${JOB}/errors`,
      `DELETE /v2/crawl/${JOB}`,
    ]);
    for (const r of requests) assert.equal(r.headers.authorization, `Bearer ${KEY}`);

    const batchCancel = await c.run(catching(`cancelJob("batch", "${JOB}")`), { secrets });
    assert.equal(batchCancel.value.capability, 'firecrawl.dev/jobs.cancel');
    const badCursor = await c.run(catching(`getJob("crawl", "${JOB}", { cursor: "../../v2/scrape" })`), { secrets });
    assert.equal(badCursor.value.code, 'invalid_argument');
    assert.match(badCursor.value.message, /options\.cursor/);
    assert.equal(c.api.requests.length, before + 5);
  });

  test("downloadJobPage saves the job's JSON behind the caller's own fs.write rule", async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching(`downloadJobPage("crawl", "${JOB}", "/allowed-page.json", { cursor: "skip=1" })`), { secrets });
    assert.equal(out.value.value?.path, '/allowed-page.json', JSON.stringify(out.value));
    assert.equal(JSON.parse(out.value.file).data[0].markdown, '# B');
    assert.equal(out.value.value.bytesWritten, Buffer.byteLength(out.value.file));
    assert.equal(sent(before).length, 1);
    assert.equal(sent(before)[0].path, `/v2/crawl/${JOB}?skip=1`);
    assert.equal(sent(before)[0].headers.authorization, `Bearer ${KEY}`);
    const decision = c.decisions('fs.write').find((d) => JSON.stringify(d).includes('/allowed-page.json') && JSON.stringify(d).includes('caller') && JSON.stringify(d).includes('main'));
    assert.ok(decision, 'the caller-side fs.write check is audited');
    assert.match(JSON.stringify(decision), /20000000/);

    const refused = await c.run(catching(`downloadJobPage("crawl", "${JOB}", "/elsewhere.json")`), { secrets });
    assert.equal(refused.value.name, 'PermissionDeniedError');
    assert.equal(refused.value.capability, 'fs.write');
    assert.match(refused.value.message, /caller=main capability=fs\.write/);
    assert.equal(c.api.requests.length, before + 1);
  });

  test('without FIRECRAWL_API_KEY every call throws missing_credentials and nothing is sent', async () => {
    const before = c.api.requests.length;
    for (const call of ['scrape("https://docs.example/")', `getJob("crawl", "${JOB}")`]) {
      const out = await c.run(catching(call));
      assert.deepEqual({ name: out.value.name, code: out.value.code, status: out.value.status }, { name: 'FirecrawlError', code: 'missing_credentials', status: 0 }, call);
      assert.doesNotMatch(out.value.message, new RegExp(KEY));
    }
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument before any check or request', async () => {
    const before = c.api.requests.length;
    const decisions = c.decisions('firecrawl.dev/scrape').length;
    const out = await c.run(catching('scrape("file:///etc/passwd")'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /^url: expected an absolute http\(s\) URL/);
    const kind = await c.run(catching(`getJob("extract" as any, "${JOB}")`), { secrets });
    assert.match(kind.value.message, /^kind: expected "crawl" or "batch"/);
    assert.equal(c.decisions('firecrawl.dev/scrape').length, decisions);
    assert.equal(c.api.requests.length, before);
  });

  test("Firecrawl's error answers map to codes, with Retry-After on 429", async () => {
    const cases: Array<[string, string, number, number | null]> = [
      ['scrape("https://fail.example/401")', 'unauthorized', 401, null],
      ['scrape("https://fail.example/402")', 'http_error', 402, null],
      ['map("https://fail.example/403", { limit: 5 })', 'forbidden', 403, null],
      ['getJob("crawl", "fail-404")', 'not_found', 404, null],
      ['search("fail-429")', 'rate_limited', 429, 17],
      ['downloadJobPage("crawl", "fail-429", "/allowed-failed.json")', 'rate_limited', 429, null],
    ];
    for (const [call, code, status, retryAfterSeconds] of cases) {
      const out = await c.run(catching(call), { secrets });
      assert.deepEqual({ name: out.value.name, code: out.value.code, status: out.value.status, retryAfterSeconds: out.value.retryAfterSeconds }, { name: 'FirecrawlError', code, status, retryAfterSeconds }, `${call}: ${JSON.stringify(out.value)}`);
    }
    const withText = await c.run(catching('getJob("batch", "fail-404")'), { secrets });
    assert.match(withText.value.message, /Job not found/);
  });
});
