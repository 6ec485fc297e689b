// @svc/jina installed into a real server and called from programs, against a loopback
// stand-in playing r.jina.ai and s.jina.ai: the requests Jina receives (POST / with a JSON
// body, GET downloads, X- headers, Authorization only when JINA_API_KEY is bound), the
// normalised results, downloads into the file area behind the caller's own fs.write rule,
// denials (no request sent) and Jina's error answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { blueprintYaml, derivedRequires, startCurated, type Curated, type CuratedOptions, type Rule } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const KEY = 'jina-test-key';
const B12_REQUIRES: Rule[] = [
  { capability: 'fs.write' },
  { capability: 'http.download', filter: 'host == "r.jina.ai"' },
  { capability: 'http.download', filter: 'host == "s.jina.ai"' },
  { capability: 'http.post', filter: 'host == "r.jina.ai" and path == "/"' },
  { capability: 'http.post', filter: 'host == "s.jina.ai" and path == "/"' },
  { capability: 'secrets.get', filter: 'name == "JINA_API_KEY"' },
];
const PAGE_TEXT = 'Title: Doc\n\nURL Source: https://pages.example/doc\n\nMarkdown Content:\n# Doc\n\nHello from the page.\n';
const SEARCH_TEXT = '[1] Title: First\n[1] URL Source: https://pages.example/first\n[1] Markdown Content:\nFirst result.\n';

function jinaError(status: number, name: string, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): StandInReply {
  return { status, headers, json: { data: null, code: status, name, status: status * 100 + 1, message, readableMessage: `${name}: ${message}`, ...extra } };
}

function failure(target: string): StandInReply | null {
  const m = /^https:\/\/fail\.example\/(\d+)$/.exec(target) ?? /^fail-(\d+)$/.exec(target);
  if (!m) return null;
  const status = Number(m[1]);
  if (status === 401) return jinaError(401, 'AuthenticationFailedError', 'Invalid API key');
  if (status === 403) return jinaError(403, 'SecurityCompromiseError', 'Domain blocked');
  if (status === 404) return jinaError(404, 'NotFoundError', 'Page not found');
  if (status === 429) return jinaError(429, 'RateLimitTriggeredError', 'Per IP rate limit exceeded', { 'retry-after': '20' });
  return jinaError(status, 'AssertionFailureError', 'Failed to read the page');
}

function handler(request: StandInRequest): StandInReply {
  const json = String(request.headers.accept) === 'application/json';
  if (request.host === 'r.jina.ai') {
    const target = request.method === 'POST' ? String(request.json?.url ?? '') : request.path.slice(1);
    const failed = failure(target);
    if (failed) return failed;
    if (!json) return { body: PAGE_TEXT, headers: { 'content-type': 'text/plain; charset=utf-8' } };
    return { json: { code: 200, status: 20000, data: { title: 'Doc', description: 'A test page', url: target, content: '# Doc\n\nHello from the page.', publishedTime: '2026-01-05', usage: { tokens: 12 }, links: { Home: 'https://pages.example/' } } } };
  }
  if (request.host === 's.jina.ai') {
    const q = request.method === 'POST' ? String(request.json?.q ?? '') : (new URL(request.path, 'https://s.jina.ai').searchParams.get('q') ?? '');
    const failed = failure(q);
    if (failed) return failed;
    if (!json) return { body: SEARCH_TEXT, headers: { 'content-type': 'text/plain; charset=utf-8' } };
    return { json: { code: 200, status: 20000, data: [{ title: 'First', url: 'https://pages.example/first', description: 'The first one', content: 'First result.', date: 'Oct 17, 2025', usage: { tokens: 1000 } }] } };
  }
  return { status: 404, json: { error: 'unknown host' } };
}

const catching = (call: string) => `import { read, readJson, search, searchJson, downloadRead, downloadSearch } from "@svc/jina";
import { readText } from "svc:fs";
export function main() {
  try { const value = ${call}; return { value, file: value && typeof value === "object" && "bytesWritten" in value ? readText((value as any).path) : null }; }
  catch (e: any) { return { name: e.name, code: e.code ?? null, status: e.status ?? null, retryAfterSeconds: e.retryAfterSeconds ?? null, capability: e.capability ?? null, message: e.message }; }
}`;

describe('@svc/jina against Jina Reader and Search stand-ins', () => {
  let c: Curated;
  const options: CuratedOptions = {
    package: '@svc/jina',
    hosts: ['r.jina.ai', 's.jina.ai'],
    secret: 'JINA_API_KEY',
    main: [
      { capability: 'jina.ai/read', filter: 'host != "blocked.example"' },
      { capability: 'jina.ai/search' },
      { capability: 'fs.write', filter: 'path glob "/allowed-*"' },
      { capability: 'fs.read' },
    ],
    extra: { vfs: 'ephemeral' },
    handler,
  };
  const secrets = { JINA_API_KEY: KEY };

  before(async () => {
    c = await startCurated(options);
    const denied = blueprintYaml({ ...options, blueprint: 'jina-denied', main: [{ capability: 'fs.write' }, { capability: 'fs.read' }] }, derivedRequires(c.home, options.package));
    const registered = await c.server.request('POST', '/v1/blueprints', { body: { yaml: denied } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents (fs.write for the downloads included)', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/jina'), B12_REQUIRES);
  });

  test('read POSTs {url} to r.jina.ai/ with the option headers and the key, and returns the text', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('read("https://pages.example/doc#part", { removeSelector: "nav", noCache: true })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].host, 'r.jina.ai');
    assert.equal(sent[0].method, 'POST');
    assert.equal(sent[0].path, '/');
    assert.deepEqual(sent[0].json, { url: 'https://pages.example/doc' });
    assert.equal(sent[0].headers.authorization, `Bearer ${KEY}`);
    assert.equal(sent[0].headers['x-remove-selector'], 'nav');
    assert.equal(sent[0].headers['x-no-cache'], 'true');
    assert.equal(out.value.value, PAGE_TEXT);
  });

  test('without the key the request goes out keyless (no Authorization header)', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('readJson("https://pages.example/doc", { withLinksSummary: true })'));
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].headers.authorization, undefined);
    assert.equal(sent[0].headers.accept, 'application/json');
    assert.deepEqual(out.value.value, { url: 'https://pages.example/doc', title: 'Doc', description: 'A test page', content: '# Doc\n\nHello from the page.', publishedTime: '2026-01-05', tokens: 12, links: { Home: 'https://pages.example/' }, images: {} });
  });

  test('search and searchJson POST {q, ...} to s.jina.ai/ with the site header', async () => {
    const before = c.api.requests.length;
    const text = await c.run(catching('search("sqlite wal", { count: 3, site: "pages.example", country: "US" })'), { secrets });
    const json = await c.run(catching('searchJson("sqlite wal", { noContent: true })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 2);
    assert.equal(sent[0].host, 's.jina.ai');
    assert.equal(sent[0].path, '/');
    assert.deepEqual(sent[0].json, { q: 'sqlite wal', num: 3, gl: 'us' });
    assert.equal(sent[0].headers['x-site'], 'pages.example');
    assert.equal(sent[0].headers.authorization, `Bearer ${KEY}`);
    assert.equal(text.value.value, SEARCH_TEXT);
    assert.equal(sent[1].headers['x-respond-with'], 'no-content');
    assert.deepEqual(json.value.value, [{ title: 'First', url: 'https://pages.example/first', description: 'The first one', content: 'First result.', date: 'Oct 17, 2025', tokens: 1000 }]);
  });

  test('downloadRead and downloadSearch stream the Markdown into the file area', async () => {
    const before = c.api.requests.length;
    const page = await c.run(catching('downloadRead("https://pages.example/doc", "/allowed-doc.md")'), { secrets });
    assert.equal(page.value.value?.bytesWritten, Buffer.byteLength(PAGE_TEXT), JSON.stringify(page.value));
    assert.equal(page.value.value.path, '/allowed-doc.md');
    assert.equal(page.value.file, PAGE_TEXT);
    const found = await c.run(catching('downloadSearch("sqlite wal", "/allowed-search.md", { count: 2 })'));
    assert.equal(found.value.file, SEARCH_TEXT, JSON.stringify(found.value));
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 2);
    assert.equal(sent[0].method, 'GET');
    assert.equal(sent[0].host, 'r.jina.ai');
    assert.equal(sent[0].path, '/https://pages.example/doc');
    assert.equal(sent[0].headers.authorization, `Bearer ${KEY}`);
    assert.equal(sent[1].host, 's.jina.ai');
    assert.equal(sent[1].path, '/?q=sqlite%20wal&num=2');
    assert.equal(sent[1].headers.authorization, undefined);
  });

  test("a download to a path the caller's own fs.write rule refuses is denied before any request", async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('downloadRead("https://pages.example/doc", "/elsewhere.md")'), { secrets });
    assert.equal(out.value.name, 'PermissionDeniedError', JSON.stringify(out.value));
    assert.equal(out.value.capability, 'fs.write');
    assert.match(out.value.message, /caller=main capability=fs\.write/);
    assert.equal(c.api.requests.length, before);
  });

  test('a page on a host the read rule refuses is denied, and a program without jina.ai/search is too; Jina receives nothing', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('read("https://blocked.example/x")'), { secrets });
    assert.equal(out.value.name, 'PermissionDeniedError');
    assert.equal(out.value.capability, 'jina.ai/read');
    for (const call of ['search("x")', 'downloadSearch("x", "/allowed-x.md")']) {
      const reply = await c.server.request('POST', '/v1/execute', {
        token: c.server.userToken,
        body: { blueprint: 'jina-denied', code: `import { search, downloadSearch } from "@svc/jina";\nexport function main() { return ${call}; }`, secrets },
      });
      assert.equal(reply.json.error?.kind, 'permission_denied', reply.text);
      assert.match(reply.json.error.message, /capability=jina\.ai\/search/);
    }
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument before any request', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('read("ftp://pages.example/x")'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /url must be an http\(s\) URL/);
    assert.equal(c.api.requests.length, before);
  });

  test("Jina's error answers map to codes, with Retry-After on 429; a failed download throws too", async () => {
    const expected: Array<[string, string, number]> = [
      ['read("https://fail.example/401")', 'unauthorized', 401],
      ['readJson("https://fail.example/403")', 'forbidden', 403],
      ['read("https://fail.example/404")', 'not_found', 404],
      ['searchJson("fail-429")', 'rate_limited', 429],
      ['search("fail-500")', 'http_error', 500],
      ['downloadRead("https://fail.example/429", "/allowed-fail.md")', 'rate_limited', 429],
    ];
    for (const [call, code, status] of expected) {
      const out = await c.run(catching(call), { secrets });
      assert.equal(out.value.name, 'JinaError', call);
      assert.equal(out.value.code, code, call);
      assert.equal(out.value.status, status, call);
      if (status === 429 && !call.startsWith('download')) assert.equal(out.value.retryAfterSeconds, 20, call);
      assert.ok(!out.value.message.includes(KEY));
    }
  });
});
