// @svc/brave-search installed into a real server and called from programs, against a
// loopback stand-in playing api.search.brave.com: the requests Brave receives (path, query,
// X-Subscription-Token), the normalised results, the missing key, a denied capability (no
// request sent) and Brave's error answers mapped to BraveSearchError codes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { blueprintYaml, derivedRequires, startCurated, type Curated, type CuratedOptions } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const HOST = 'api.search.brave.com';
const KEY = 'brave-test-key';

const webAnswer = {
  type: 'search',
  query: { original: 'svc sandbox', more_results_available: true },
  web: {
    type: 'search',
    results: [
      { title: 'The <strong>svc</strong> sandbox', url: 'https://svc.example/sandbox', description: 'Runs <strong>programs</strong> safely', age: '3 days ago', page_age: '2026-11-20T08:00:00', language: 'en', extra_snippets: ['more text'] },
      { title: 'Second', url: 'https://other.example/', description: 'Plain' },
    ],
  },
};

const contextAnswer = {
  grounding: {
    generic: [{ url: 'https://peaks.example/everest', title: 'Everest', snippets: ['Mount Everest is 8,849 m high.', 'It lies in the Himalayas.'] }],
    poi: null,
    map: [],
  },
  sources: { 'https://peaks.example/everest': { title: 'Everest facts', hostname: 'peaks.example', age: ['2026-01-02'] } },
};

function braveError(status: number, code: string, detail: string, headers: Record<string, string> = {}): StandInReply {
  return { status, headers, json: { type: 'ErrorResponse', error: { id: 'e-1', status, code, detail, meta: {} }, time: 1 } };
}

function handler(request: StandInRequest): StandInReply {
  const url = new URL(request.path, `https://${HOST}`);
  const q = url.searchParams.get('q') ?? '';
  if (q === 'fail-401') return braveError(401, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.');
  if (q === 'fail-403') return braveError(403, 'OPTION_NOT_IN_PLAN', 'The option is not subscribed in the plan.');
  if (q === 'fail-404') return { status: 404, body: 'Not Found' };
  if (q === 'fail-429') return braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.', { 'x-ratelimit-limit': '1, 2000', 'x-ratelimit-remaining': '0, 1500', 'x-ratelimit-reset': '1, 2419200' });
  if (q === 'fail-500') return { status: 500, body: 'upstream broke' };
  if (q === 'not-json') return { status: 200, body: '<html>' };
  if (url.pathname === '/res/v1/web/search') return { json: webAnswer };
  if (url.pathname === '/res/v1/llm/context') return { json: contextAnswer };
  return { status: 404, json: { error: 'unknown path' } };
}

const catching = (call: string) => `import { search, context } from "@svc/brave-search";
export function main() {
  try { return { value: ${call} }; }
  catch (e: any) { return { name: e.name, code: e.code, status: e.status, retryAfterSeconds: e.retryAfterSeconds ?? null, rateLimit: e.rateLimit ?? null, message: e.message }; }
}`;

describe('@svc/brave-search against a Brave stand-in', () => {
  let c: Curated;
  const options: CuratedOptions = {
    package: '@svc/brave-search',
    hosts: [HOST],
    secret: 'BRAVE_SEARCH_API_KEY',
    main: [{ capability: 'brave.com/search' }, { capability: 'brave.com/context' }],
    handler,
  };
  const secrets = { BRAVE_SEARCH_API_KEY: KEY };

  before(async () => {
    c = await startCurated(options);
    // A second Blueprint on the same server whose program may use neither capability.
    const yaml = blueprintYaml({ ...options, blueprint: 'brave-denied', main: [] }, derivedRequires(c.home, options.package));
    const registered = await c.server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/brave-search'), [
      { capability: 'http.get', filter: 'host == "api.search.brave.com"' },
      { capability: 'secrets.get', filter: 'name == "BRAVE_SEARCH_API_KEY"' },
    ]);
  });

  test('search sends GET /res/v1/web/search with the query, options and the subscription token, and returns a normalised page', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('search("svc sandbox", { count: 2, offset: 1, country: "de", safesearch: "strict", extraSnippets: true })'), { secrets });
    assert.equal(out.error, undefined, JSON.stringify(out.error));
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].method, 'GET');
    const url = new URL(sent[0].path, `https://${HOST}`);
    assert.equal(url.pathname, '/res/v1/web/search');
    assert.deepEqual(Object.fromEntries(url.searchParams), { q: 'svc sandbox', count: '2', offset: '1', country: 'DE', safesearch: 'strict', extra_snippets: 'true' });
    assert.equal(sent[0].headers['x-subscription-token'], KEY);
    assert.equal(sent[0].headers.accept, 'application/json');
    assert.deepEqual(out.value.value, {
      query: 'svc sandbox',
      items: [
        { title: 'The svc sandbox', url: 'https://svc.example/sandbox', description: 'Runs programs safely', age: '3 days ago', pageAge: '2026-11-20T08:00:00', language: 'en', extraSnippets: ['more text'] },
        { title: 'Second', url: 'https://other.example/', description: 'Plain', age: null, pageAge: null, language: null, extraSnippets: [] },
      ],
      moreResultsAvailable: true,
      nextOffset: 2,
    });
    // The key never reaches the program's result.
    assert.ok(!out.result!.includes(KEY));
  });

  test('context sends GET /res/v1/llm/context with the budgets and returns the sources with their snippets', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('context("tallest mountain", { maxTokens: 2048, maxUrls: 3 })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    const url = new URL(sent[0].path, `https://${HOST}`);
    assert.equal(url.pathname, '/res/v1/llm/context');
    assert.deepEqual(Object.fromEntries(url.searchParams), { q: 'tallest mountain', maximum_number_of_urls: '3', maximum_number_of_tokens: '2048' });
    assert.equal(sent[0].headers['x-subscription-token'], KEY);
    assert.deepEqual(out.value.value, {
      query: 'tallest mountain',
      items: [{ kind: 'generic', url: 'https://peaks.example/everest', title: 'Everest', hostname: 'peaks.example', age: ['2026-01-02'], snippets: ['Mount Everest is 8,849 m high.', 'It lies in the Himalayas.'] }],
    });
  });

  test('without the key bound, search throws missing_credentials and sends nothing', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('search("svc sandbox")'));
    assert.equal(out.value.name, 'BraveSearchError');
    assert.equal(out.value.code, 'missing_credentials');
    assert.equal(out.value.status, 0);
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument naming the field, before any request', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('search("x", { count: 50 })'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /count must be an integer from 1 to 20/);
    assert.equal(c.api.requests.length, before);
  });

  test('a program without the grant is denied for both operations and Brave receives nothing', async () => {
    const before = c.api.requests.length;
    for (const [call, capability] of [['search("svc")', 'brave.com/search'], ['context("svc")', 'brave.com/context']]) {
      const reply = await c.server.request('POST', '/v1/execute', {
        token: c.server.userToken,
        body: { blueprint: 'brave-denied', code: `import { search, context } from "@svc/brave-search";\nexport function main() { return ${call}; }`, secrets },
      });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.error?.kind, 'permission_denied', reply.text);
      assert.match(reply.json.error.message, new RegExp(`caller=main capability=${capability.replace('.', '\\.')}`));
    }
    assert.equal(c.api.requests.length, before);
  });

  test("Brave's error answers map to codes, with retry and rate-limit metadata on 429", async () => {
    const expected: Array<[string, string, number]> = [
      ['fail-401', 'unauthorized', 401],
      ['fail-403', 'forbidden', 403],
      ['fail-404', 'not_found', 404],
      ['fail-429', 'rate_limited', 429],
      ['fail-500', 'http_error', 500],
    ];
    for (const [q, code, status] of expected) {
      const out = await c.run(catching(`search(${JSON.stringify(q)})`), { secrets });
      assert.equal(out.value.name, 'BraveSearchError', q);
      assert.equal(out.value.code, code, q);
      assert.equal(out.value.status, status, q);
      if (status === 429) {
        assert.equal(out.value.retryAfterSeconds, 1);
        assert.deepEqual(out.value.rateLimit, { limit: [1, 2000], remaining: [0, 1500], reset: [1, 2419200] });
        assert.match(out.value.message, /rate limit exceeded/);
      }
      assert.ok(!out.value.message.includes(KEY));
    }
    const garbled = await c.run(catching('context("not-json")'), { secrets });
    assert.equal(garbled.value.code, 'invalid_response');
  });
});
