// @svc/exa installed into a real server and called from programs, against a loopback
// stand-in playing api.exa.ai: the requests Exa receives (POST /search and /contents, JSON
// bodies, x-api-key), the normalised results, the missing key, denials (search not granted;
// one denied host among several means no request at all) and Exa's error answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { blueprintYaml, derivedRequires, startCurated, type Curated, type CuratedOptions } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const HOST = 'api.exa.ai';
const KEY = 'exa-test-key';

const page = (url: string, extra: Record<string, unknown> = {}) => ({ id: url, url, title: `Title of ${url}`, publishedDate: '2026-03-01T00:00:00.000Z', author: null, ...extra });

function exaError(status: number, tag: string, error: string, headers: Record<string, string> = {}): StandInReply {
  return { status, headers, json: { requestId: `req-${status}`, error, tag } };
}

function handler(request: StandInRequest): StandInReply {
  const query: string = request.json?.query ?? '';
  const failing = /^fail-(\d+)$/.exec(query) ?? /^https:\/\/fail\.example\/(\d+)$/.exec(request.json?.urls?.[0] ?? '');
  if (failing) {
    const status = Number(failing[1]);
    if (status === 401) return exaError(401, 'INVALID_API_KEY', 'Invalid API key');
    if (status === 403) return exaError(403, 'ACCESS_DENIED', 'Feature not available on your plan');
    if (status === 404) return exaError(404, 'NOT_FOUND', 'Not found');
    if (status === 429) return exaError(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests', { 'retry-after': '7' });
    return exaError(status, 'INTERNAL_ERROR', 'Something went wrong');
  }
  if (request.path === '/search') {
    return { json: { requestId: 'req-search', resolvedSearchType: 'neural', results: [page('https://a.example/one', { text: 'First page text', highlights: ['a highlight'], highlightScores: [0.42] })], costDollars: { total: 0.005 } } };
  }
  if (request.path === '/contents') {
    const urls: string[] = request.json?.urls ?? [];
    return {
      json: {
        requestId: 'req-contents',
        results: urls.filter((u) => !u.includes('missing')).map((u) => page(u, { text: `Text of ${u}` })),
        statuses: urls.map((u) => (u.includes('missing') ? { id: u, status: 'error', error: { tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 } } : { id: u, status: 'success' })),
        costDollars: { total: 0.001 },
      },
    };
  }
  return { status: 404, json: { error: 'unknown path' } };
}

const catching = (call: string) => `import { search, getContents } from "@svc/exa";
export function main() {
  try { return { value: ${call} }; }
  catch (e: any) { return { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds ?? null, requestId: e.requestId ?? null, tag: e.tag ?? null, capability: e.capability ?? null, message: e.message }; }
}`;

describe('@svc/exa against an Exa stand-in', () => {
  let c: Curated;
  const options: CuratedOptions = {
    package: '@svc/exa',
    hosts: [HOST],
    secret: 'EXA_API_KEY',
    main: [{ capability: 'exa.ai/search' }, { capability: 'exa.ai/contents', filter: 'host != "blocked.example"' }],
    handler,
  };
  const secrets = { EXA_API_KEY: KEY };

  before(async () => {
    c = await startCurated(options);
    const yaml = blueprintYaml({ ...options, blueprint: 'exa-denied', main: [{ capability: 'exa.ai/contents' }] }, derivedRequires(c.home, options.package));
    const registered = await c.server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/exa'), [
      { capability: 'http.post', filter: 'host == "api.exa.ai" and path == "/contents"' },
      { capability: 'http.post', filter: 'host == "api.exa.ai" and path == "/search"' },
      { capability: 'secrets.get', filter: 'name == "EXA_API_KEY"' },
    ]);
  });

  test('search POSTs /search with the JSON body and x-api-key, and returns normalised results', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('search("sandboxing with isolates", { numResults: 3, includeDomains: ["a.example"], contents: { text: { maxCharacters: 200 }, highlights: true } })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].method, 'POST');
    assert.equal(sent[0].path, '/search');
    assert.equal(sent[0].headers['x-api-key'], KEY);
    assert.match(String(sent[0].headers['content-type']), /^application\/json/);
    assert.deepEqual(sent[0].json, { query: 'sandboxing with isolates', numResults: 3, includeDomains: ['a.example'], contents: { text: { maxCharacters: 200 }, highlights: true } });
    assert.deepEqual(out.value.value, {
      requestId: 'req-search',
      searchType: 'neural',
      results: [{ id: 'https://a.example/one', url: 'https://a.example/one', title: 'Title of https://a.example/one', author: null, publishedDate: '2026-03-01T00:00:00.000Z', text: 'First page text', highlights: ['a highlight'], highlightScores: [0.42], summary: null, image: null, favicon: null }],
      costDollars: 0.005,
    });
    assert.ok(!out.result!.includes(KEY));
  });

  test('getContents checks each host once, then POSTs /contents with the URLs and returns pages plus a status per URL', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getContents(["https://a.example/one", "https://b.example/missing", "https://a.example/two"], { summary: { query: "main point" } })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].path, '/contents');
    assert.equal(sent[0].headers['x-api-key'], KEY);
    assert.deepEqual(sent[0].json, { urls: ['https://a.example/one', 'https://b.example/missing', 'https://a.example/two'], summary: { query: 'main point' } });
    const value = out.value.value;
    assert.deepEqual(value.results.map((r: { url: string }) => r.url), ['https://a.example/one', 'https://a.example/two']);
    assert.deepEqual(value.statuses[1], { url: 'https://b.example/missing', status: 'error', errorTag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 });
    assert.equal(value.requestId, 'req-contents');
    // Checked once per distinct host (two hosts, three URLs), all before the key was read and the request sent.
    const decisions = c.server.audit({ type: 'decision', execution_id: out.reply.json.execution_id });
    assert.deepEqual(decisions.map((d) => d.capability), ['exa.ai/contents', 'secrets.get', 'http.post']);
    assert.equal(decisions[0].caller, 'main');
    assert.equal(decisions[0].count, '2');
    assert.deepEqual([decisions[0]['contexts.0.host'], decisions[0]['contexts.1.host']], ['a.example', 'b.example']);
  });

  test('one denied host among the URLs means no request at all', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getContents(["https://a.example/one", "https://blocked.example/x"])'), { secrets });
    assert.equal(out.value.name, 'PermissionDeniedError', JSON.stringify(out.value));
    assert.equal(out.value.capability, 'exa.ai/contents');
    assert.equal(c.api.requests.length, before);
  });

  test('a program without exa.ai/search is denied and Exa receives nothing', async () => {
    const before = c.api.requests.length;
    const reply = await c.server.request('POST', '/v1/execute', {
      token: c.server.userToken,
      body: { blueprint: 'exa-denied', code: 'import { search } from "@svc/exa";\nexport function main() { return search("anything"); }', secrets },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error?.kind, 'permission_denied', reply.text);
    assert.match(reply.json.error.message, /caller=main capability=exa\.ai\/search/);
    assert.equal(c.api.requests.length, before);
  });

  test('without the key bound, both operations throw missing_credentials and send nothing', async () => {
    const before = c.api.requests.length;
    for (const call of ['search("x")', 'getContents(["https://a.example/one"])']) {
      const out = await c.run(catching(call));
      assert.equal(out.value.name, 'ExaError');
      assert.equal(out.value.code, 'missing_credentials');
      assert.equal(out.value.status, 0);
    }
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument naming the field, before any request', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('getContents(["not a url"])'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /urls\[0\]/);
    assert.equal(c.api.requests.length, before);
  });

  test("Exa's error answers map to codes, with request id, tag and Retry-After", async () => {
    const expected: Array<[string, string, number]> = [
      ['search("fail-401")', 'unauthorized', 401],
      ['search("fail-403")', 'forbidden', 403],
      ['getContents(["https://fail.example/404"])', 'not_found', 404],
      ['search("fail-429")', 'rate_limited', 429],
      ['search("fail-500")', 'http_error', 500],
    ];
    for (const [call, code, status] of expected) {
      const out = await c.run(catching(call), { secrets });
      assert.equal(out.value.name, 'ExaError', call);
      assert.equal(out.value.code, code, call);
      assert.equal(out.value.status, status, call);
      assert.equal(out.value.requestId, `req-${status}`, call);
      if (status === 429) {
        assert.equal(out.value.retryAfterSeconds, 7);
        assert.equal(out.value.tag, 'RATE_LIMIT_EXCEEDED');
      }
    }
  });
});
