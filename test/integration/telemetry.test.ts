// Telemetry against a loopback HTTPS collector: off by default, reports on shutdown with
// usage counters and failed runs' kind and first line, never tokens, secrets, client
// addresses, headers or outbound hosts; source only when opted in; a file `false` wins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '../support/tls';
import { startServer, tempDir, type TestServer } from '../harness';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

async function collector(): Promise<{ url: string; certFile: string; received: Received[]; close: () => void }> {
  const dir = tempDir('svc-collector-');
  const { certFile, keyFile } = selfSignedCertificate(dir);
  const received: Received[] = [];
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      received.push({ headers: req.headers, text, body: JSON.parse(text) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://localhost:${(server.address() as AddressInfo).port}/v1/reports`, certFile, received, close: () => server.close() };
}

const SECRET = 'hs-7f3a9c2e41d84b6f9a0e5c7d13b2a8f6';
const BLUEPRINT = 'name: tel\ndefault: allow\nvfs: none\nsecrets:\n  TOKEN:\n    harness: {required: true}\n';
const FAILING = `export function main() {
  throw new Error("fetch https://api.example.com/v1/items from 10.20.30.40 failed with key ghp_0123456789abcdefABCDEF0123\\nsecond line with details");
}`;

/** Usage a report would count; `runs` adds a good and a failing run (a runner and a type check). */
async function exercise(server: TestServer, options: { runs: boolean } = { runs: true }): Promise<void> {
  assert.equal((await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } })).status, 200);
  const user = { token: server.userToken, headers: { 'x-forwarded-for': '203.0.113.9', 'user-agent': 'agent-harness/9.9' } };
  const opened = await server.request('POST', '/v1/sessions', { ...user, body: { blueprint: 'tel', secrets: { TOKEN: SECRET } } });
  const id = opened.json.session_id as string;
  if (options.runs) {
    assert.equal((await server.request('POST', `/v1/sessions/${id}/execute`, { ...user, body: { code: 'export function main() { return 1; }' } })).json.result, '1');
    const failed = await server.request('POST', `/v1/sessions/${id}/execute`, { ...user, body: { code: FAILING } });
    assert.equal(failed.json.error.kind, 'runtime_error');
  }
  await server.request('GET', '/v1/blueprints/tel/packages/search?q=fs', user);
}

describe('telemetry', () => {
  let sink: Awaited<ReturnType<typeof collector>>;
  before(async () => {
    sink = await collector();
  });
  after(() => sink.close());

  test('on with an endpoint: one report at shutdown with counters and the failure, scrubbed', async () => {
    const from = sink.received.length;
    const server = await startServer({ runners: 1,  env: { SVC_TELEMETRY: '1', SVC_TELEMETRY_ENDPOINT: sink.url, NODE_EXTRA_CA_CERTS: sink.certFile }, timeoutMs: 60_000 });
    await exercise(server);
    assert.equal(await server.stop(), 0);
    const reports = sink.received.slice(from);
    assert.equal(reports.length, 1, 'batched into one report, flushed at shutdown');
    const [{ body, text, headers }] = reports;
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(body.schema, 'svc.telemetry/1');
    assert.equal(body.service.name, 'svc-server');
    assert.deepEqual(body.usage.runs, { ok: 1, runtime_error: 1 });
    assert.equal(body.usage.sessions_opened, 1);
    assert.deepEqual(body.usage.blueprint_changes, { blueprint_created: 1 });
    assert.equal(body.usage.lookups.package_search, 1);
    assert.equal(body.failures.length, 1);
    const [failure] = body.failures;
    assert.equal(failure.kind, 'runtime_error');
    assert.equal(failure.entry_point, 'session');
    assert.doesNotMatch(failure.message, /second line/);
    assert.match(failure.message, /fetch <url> from <ip> failed with key <redacted>/);
    assert.equal(failure.source, undefined);
    assert.equal(failure.error, undefined);
    assert.deepEqual(body.crashes, []);
    for (const forbidden of [server.userToken, server.adminToken, SECRET, 'api.example.com', '10.20.30.40', '203.0.113.9', '127.0.0.1', 'agent-harness', 'x-forwarded-for', 'authorization', 'ghp_', 'export function main']) {
      assert.ok(!text.includes(forbidden), `the report does not carry ${forbidden}`);
    }
  });

  test('telemetry_include_source adds the (scrubbed) source and full error', async () => {
    const from = sink.received.length;
    const server = await startServer({
      runners: 1,
      timeoutMs: 60_000,
      env: { SVC_TELEMETRY: '1', SVC_TELEMETRY_INCLUDE_SOURCE: 'yes', SVC_TELEMETRY_ENDPOINT: sink.url, NODE_EXTRA_CA_CERTS: sink.certFile },
    });
    await exercise(server);
    await server.stop();
    const [failure] = sink.received.slice(from)[0].body.failures;
    assert.match(failure.source, /export function main\(\)/);
    assert.match(failure.error, /second line with details/);
    assert.doesNotMatch(failure.source + failure.error, /api\.example\.com|10\.20\.30\.40|ghp_/);
  });

  test('off by default, and `telemetry: false` in the file wins over the variable: nothing is sent', async () => {
    const from = sink.received.length;
    for (const options of [
      { env: { SVC_TELEMETRY_ENDPOINT: sink.url, NODE_EXTRA_CA_CERTS: sink.certFile } },
      { env: { SVC_TELEMETRY: '1', SVC_TELEMETRY_ENDPOINT: sink.url, NODE_EXTRA_CA_CERTS: sink.certFile }, config: { telemetry: false } },
    ]) {
      const server = await startServer({ runners: 1,  ...options, timeoutMs: 60_000 });
      // A Blueprint, a session and a search are usage a report would carry (an idle server
      // sends none); runs would add only a runner's and a type check's start.
      await exercise(server, { runs: false });
      await server.stop();
    }
    assert.equal(sink.received.length, from);
  });

  test('an endpoint that is not https is refused at startup, naming the variable', async () => {
    const server = startServer({ runners: 1,  env: { SVC_TELEMETRY: '1', SVC_TELEMETRY_ENDPOINT: 'http://collector.example.com/r' }, timeoutMs: 60_000 });
    await assert.rejects(server, /SVC_TELEMETRY_ENDPOINT: expected an https:\/\/ URL/);
  });
});
