// svc:http against real loopback servers: the egress guard blocks loopback by default
// (nothing is sent), grants let it through, every redirect hop is checked, auth_proxy
// injects credentials the program never sees, bodies and statuses behave as documented.
// Every Blueprint is unchecked (typecheck: off strips the types alone): no program here is
// about types, and each server would load a type checker for them (about 1 CPU-s).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { startServer, type TestServer } from '../harness';

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A byte-order mark, multi-byte characters (2, 3 and 4 bytes), malformed bytes and a cut-off sequence. */
const UTF8_BODY = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('é€😀 ok '), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82])]);

async function farEnd(): Promise<{ port: number; hits: Hit[]; close: () => void }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect-303') return res.writeHead(303, { location: '/landed' }).end();
      if (url.pathname === '/redirect-far') return res.writeHead(307, { location: 'http://127.0.0.2:9/elsewhere' }).end();
      if (url.pathname === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (url.pathname === '/missing') return res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      if (url.pathname === '/utf8') return res.writeHead(200, { 'content-type': 'text/plain' }).end(UTF8_BODY);
      if (url.pathname === '/big') return res.writeHead(200, { 'content-type': 'text/plain' }).end('b'.repeat(2000));
      if (url.pathname === '/gz') return res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync('zipped text'));
      if (url.pathname === '/to-denied') return res.writeHead(302, { location: '/forbidden-zone' }).end();
      if (url.pathname === '/to-other-host') return res.writeHead(307, { location: `http://localhost:${(server.address() as AddressInfo).port}/other` }).end();
      if (url.pathname === '/huge') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(1024 * 1024, 97);
        for (let i = 0; i < 51; i++) res.write(chunk);
        return res.end();
      }
      if (url.pathname === '/never') return; // never answers
      res.writeHead(200, { 'content-type': 'application/json', 'X-Answer': '42' }).end(JSON.stringify({ method: req.method, path: url.pathname, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, hits, close: () => server.close() };
}

async function run(server: TestServer, blueprint: string, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

// Servers several tests use, started on first use.
const memo = (start: () => Promise<TestServer>) => {
  let started: Promise<TestServer> | null = null;
  after(async () => (await started)?.stop());
  return () => (started ??= start());
};
/** Loopback allowed by flag, a secret store: the svc:http tests' server. */
const loopback = memo(() => startServer({ runners: 1, args: ['--allow-localhost'], env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') } }));
/** Loopback allowed in the config file, every allowed operation audited. */
const audited = memo(() => startServer({ runners: 1, config: { network: { allow_ip: ['127.0.0.1'] }, logging: { audit: { allows: 'all' } } } }));

describe('svc:http', () => {
  let far: Awaited<ReturnType<typeof farEnd>>;
  before(async () => {
    far = await farEnd();
  });
  after(() => far.close());

  test('loopback is blocked by default (also through localhost): a catchable error, an egress_guard denial, and no hit', async () => {
    const server = await startServer({ runners: 1 });
    try {
      // Unchecked (typecheck: off strips the types alone): this server's only program, not about types, would load a type checker (about 1 CPU-s).
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n' } });
      const before = far.hits.length;
      const result = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { const out = []; for (const host of ["127.0.0.1", "localhost"]) { try { http.get("http://" + host + ":${far.port}/x"); } catch (e) { out.push(e.message); } } return out; }`);
      const messages = JSON.parse(result.result);
      assert.equal(messages.length, 2);
      for (const m of messages) assert.match(m, /blocked by network policy/);
      assert.equal(far.hits.length, before);
      const denials = server.audit({ type: 'decision', execution_id: result.execution_id, source: 'egress_guard' });
      assert.equal(denials.length, 2);
      assert.equal(denials[0].reason, 'outbound destination blocked');
    } finally {
      await server.stop();
    }
  });

  // Two grants are tested on servers the later tests use too (one program at a time each).
  const grants: Array<[string, () => Promise<TestServer>, { env?: Record<string, string> }]> = [
    ['--allow-localhost', loopback, {}],
    ['--allow-ip 127.0.0.0/8', () => startServer({ runners: 1, args: ['--allow-ip', '127.0.0.0/8'] }), {}],
    ['SVC_ALLOW_LOCALHOST=1', () => startServer({ runners: 1, env: { SVC_ALLOW_LOCALHOST: '1' } }), { env: { SVC_ALLOW_LOCALHOST: '1' } }],
    ['network.allow_ip in the config file', audited, {}],
  ];
  for (const [label, serverFor, options] of grants) {
    test(`${label} lets the call through`, async () => {
      const server = await serverFor();
      const own = serverFor !== loopback && serverFor !== audited;
      try {
        // Unchecked, as above: two of these servers run this one program alone.
        await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: granted\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n' } });
        const result = await run(server, 'granted', `import * as http from "svc:http";\nexport function main() { const r = http.get("http://127.0.0.1:${far.port}/hello"); return [r.status, r.ok, r.headers.get("x-answer"), r.json().path]; }`);
        assert.equal(result.result, '[200,true,"42","/hello"]');
        if (options.env) assert.equal(server.audit({ type: 'server', event: 'started' })[0]['egress_grants.0'], 'SVC_ALLOW_LOCALHOST');
      } finally {
        if (own) await server.stop();
      }
    });
  }

  describe('with loopback allowed', () => {
    let server: TestServer;
    const secret = `key-${randomBytes(8).toString('hex')}`;
    before(async () => {
      server = await loopback();
      await server.request('POST', '/v1/secrets', { body: { key: 'api', value: secret } });
      await server.request('POST', '/v1/blueprints', {
        body: {
          yaml: `name: web
typecheck: off
allow_insecure_http: true
secrets: {API: {store: api}}
auth_proxy:
  - host: 127.0.0.1
    allow_insecure_http: true
    auth: {bearer: API}
permissions:
  main:
    - {capability: http.get, action: allow}
    - {capability: http.post, filter: 'path == "/submit" or path == "/redirect-303"', action: allow}
`,
        },
      });
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: https-only\ntypecheck: off\ndefault: allow\n' } });
      await server.request('POST', '/v1/blueprints', {
        body: {
          yaml: `name: fetcher
typecheck: off
allow_insecure_http: true
permissions:
  main:
    - {capability: http.download, filter: 'url_path != "/forbidden-zone"', action: allow}
    - {capability: fs.write, action: allow}
    - {capability: fs.read, action: allow}
    - {capability: fs.stat, action: allow}
`,
        },
      });
    });
    after(async () => server.stop());

    test('a response body is decoded as UTF-8 as TextDecoder does (byte-order mark dropped, malformed bytes as U+FFFD)', async () => {
      const result = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { return http.get("http://127.0.0.1:${far.port}/utf8").body; }`);
      assert.equal(result.error, null, JSON.stringify(result));
      assert.equal(result.result, new TextDecoder().decode(UTF8_BODY));
    });

    test('bodies: strings as text, objects as JSON; non-2xx does not throw; throwForStatus does', async () => {
      const result = await run(
        server,
        'web',
        `import * as http from "svc:http";
export function main() {
  const posted = http.post("http://127.0.0.1:${far.port}/submit", { a: 1 }).json();
  const missing = http.get("http://127.0.0.1:${far.port}/missing");
  let thrown = "";
  try { missing.throwForStatus(); } catch (e) { thrown = e.message; }
  return [posted.body, missing.status, missing.ok, missing.body, thrown];
}`,
      );
      assert.equal(result.error, null, JSON.stringify(result.error));
      const [posted, status, ok, body, thrown] = JSON.parse(result.result);
      assert.equal(posted, '{"a":1}');
      assert.deepEqual([status, ok, body], [404, false, 'not here']);
      assert.match(thrown, /HTTP 404/);
      const hit = far.hits.find((h) => h.url === '/submit')!;
      assert.equal(hit.headers['content-type'], 'application/json');
    });

    test('auth_proxy injects the bearer token; the program never sees it', async () => {
      const result = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { const r = http.get("http://127.0.0.1:${far.port}/whoami"); console.log(JSON.stringify(r.headers)); return r.body; }`);
      const hit = far.hits.filter((h) => h.url === '/whoami').at(-1)!;
      assert.equal(hit.headers.authorization, `Bearer ${secret}`);
      assert.ok(!result.result.includes(secret));
      const lastRun = await server.request('GET', `/v1/sessions/${result.session_id}/last-run`, { token: server.userToken });
      assert.ok(!lastRun.text.includes(secret));
      for (const line of server.lines()) assert.ok(!line.includes(secret));
    });

    test('a denied method is permission_denied and nothing is sent; a 303 is checked as http.get', async () => {
      const count = far.hits.length;
      const denied = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { http.put("http://127.0.0.1:${far.port}/x", "data"); }`);
      assert.deepEqual([denied.error.kind, denied.error.capability], ['permission_denied', 'http.put']);
      assert.equal(far.hits.length, count);
      const redirected = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { const r = http.post("http://127.0.0.1:${far.port}/redirect-303", "x"); return [r.status, r.url, r.json().method]; }`);
      assert.equal(redirected.error, null, JSON.stringify(redirected.error));
      const [status, url, method] = JSON.parse(redirected.result);
      assert.deepEqual([status, method], [200, 'GET']);
      assert.match(url, /\/landed$/);
      const gets = server.audit({ type: 'decision', execution_id: redirected.execution_id });
      assert.ok(gets.some((d) => d.capability === 'http.get'));
    });

    test('more than 10 redirects fail; a redirect leaving the origin after injection is refused', async () => {
      const loop = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { http.get("http://127.0.0.1:${far.port}/loop"); }`);
      assert.match(loop.error.message, /more than 10 redirects/);
      const far307 = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { http.get("http://127.0.0.1:${far.port}/redirect-far"); }`);
      assert.match(far307.error.message, /redirect to http:\/\/127\.0\.0\.2:9 was refused/);
    });

    test('download streams into the file area: overwrite, maxBytes, decompression, and no file after a refused hop', async () => {
      const result = await run(
        server,
        'fetcher',
        `import * as http from "svc:http";
import * as fs from "svc:fs";
export function main() {
  const base = "http://127.0.0.1:${far.port}";
  const first = http.download(base + "/big", "/big.txt");
  let again = ""; try { http.download(base + "/big", "/big.txt"); } catch (e) { again = e.message; }
  const replaced = http.download(base + "/big", "/big.txt", { overwrite: true });
  let capped = ""; try { http.download(base + "/big", "/capped.txt", { maxBytes: 100 }); } catch (e) { capped = e.name; }
  const gz = http.download(base + "/gz", "/gz.txt", { decompress: true });
  let hop = ""; try { http.download(base + "/to-denied", "/denied.txt"); } catch (e) { hop = e.name; }
  return { first: [first.status, first.bytesWritten, first.path, String(first).startsWith("Download(200")], again, replaced: replaced.bytesWritten, capped, cappedExists: fs.exists("/capped.txt"), gz: fs.readText("/gz.txt"), hop, deniedExists: fs.exists("/denied.txt"), size: fs.size("/big.txt") };
}`,
      );
      assert.equal(result.error, null, JSON.stringify(result.error));
      const value = JSON.parse(result.result);
      assert.deepEqual(value.first, [200, 2000, '/big.txt', true]);
      assert.match(value.again, /exists/);
      assert.equal(value.replaced, 2000);
      assert.equal(value.capped, 'RangeError');
      assert.equal(value.cappedExists, false);
      assert.equal(value.gz, 'zipped text');
      assert.equal(value.hop, 'PermissionDeniedError');
      assert.equal(value.deniedExists, false);
      assert.equal(value.size, 2000);
    });

    test('a 307 to a host the policy denies is never sent; a 303 needs http.get', async () => {
      await server.request('PUT', '/v1/blueprints/narrow', {
        body: { yaml: "name: narrow\ntypecheck: off\nallow_insecure_http: true\npermissions:\n  main:\n    - {capability: http.get, filter: 'host == \"127.0.0.1\"', action: allow}\n    - {capability: http.post, action: allow}\n" },
      });
      await server.request('PUT', '/v1/blueprints/post-only', { body: { yaml: 'name: post-only\ntypecheck: off\nallow_insecure_http: true\npermissions:\n  main:\n    - {capability: http.post, action: allow}\n' } });
      const before = far.hits.filter((h) => h.url === '/other').length;
      const hop = await run(server, 'narrow', `import * as http from "svc:http";\nexport function main() { http.get("http://127.0.0.1:${far.port}/to-other-host"); }`);
      assert.deepEqual([hop.error.kind, hop.error.capability], ['permission_denied', 'http.get']);
      assert.equal(far.hits.filter((h) => h.url === '/other').length, before);
      const seeOther = await run(server, 'post-only', `import * as http from "svc:http";\nexport function main() { http.post("http://127.0.0.1:${far.port}/redirect-303", "x"); }`);
      assert.deepEqual([seeOther.error.kind, seeOther.error.capability], ['permission_denied', 'http.get']);
    });

    test('a response over 50 MiB is a RangeError pointing to download; a download that never answers times out', async () => {
      await server.request('PUT', '/v1/blueprints/open-web', { body: { yaml: 'name: open-web\ntypecheck: off\nallow_insecure_http: true\ndefault: allow\n' } });
      const result = await run(
        server,
        'open-web',
        `import * as http from "svc:http";
export function main() {
  const out = [];
  try { http.get("http://127.0.0.1:${far.port}/huge"); } catch (e) { out.push(e.name, /download/.test(e.message)); }
  try { http.download("http://127.0.0.1:${far.port}/never", "/n.txt", { timeout: 300 }); } catch (e) { out.push(e.message); }
  return out;
}`,
      );
      assert.ok(result.result, JSON.stringify(result.error));
      const out = JSON.parse(result.result!) as [string, boolean, string];
      assert.deepEqual(out.slice(0, 2), ['RangeError', true], JSON.stringify(result.error));
      // The download's own timeout (300 ms) bounds waiting for headers too, not the verbs' 30 s.
      assert.match(out[2], /timed out after 0\.3 s/);
    });

    test('decision records carry context.host and context.path without the query', async () => {
      const server = await audited();
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ntypecheck: off\nallow_insecure_http: true\ndefault: allow\n' } });
      const result = await run(server, 'web', `import * as http from "svc:http";\nexport function main() { http.get("http://127.0.0.1:${far.port}/q?token=abc123"); http.get("http://127.0.0.1:${far.port}/r"); }`);
      const rows = server.audit({ type: 'decision', execution_id: result.execution_id, capability: 'http.get' });
      assert.equal(rows.length, 2);
      assert.deepEqual(rows.map((r) => [r['context.host'], r['context.path']]), [['127.0.0.1', '/q'], ['127.0.0.1', '/r']]);
      for (const line of server.lines()) assert.ok(!line.includes('abc123'));
    });

    test('http:// without allow_insecure_http, dot segments, credentials in URLs and forbidden headers are TypeErrors', async () => {
      const result = await run(
        server,
        'https-only',
        `import * as http from "svc:http";
export function main() {
  const out = [];
  for (const f of [() => http.get("http://example.com/"), () => http.get("https://example.com/a/%2e%2e/b"), () => http.get("https://u:p@example.com/"), () => http.get("https://example.com/", { Host: "x" })]) {
    try { f(); } catch (e) { out.push(e.name); }
  }
  return out;
}`,
      );
      assert.equal(result.result, '["TypeError","TypeError","TypeError","TypeError"]');
    });
  });
});
