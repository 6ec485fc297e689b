// The telemetry reporter against a loopback HTTPS collector: scrubbing, the bounded queue,
// retry after a failed delivery, crash reports kept on disk until the next start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { silentLog } from '../../../src/audit';
import { scrub, Telemetry, type UsageTotals } from '../../../src/telemetry';
import { selfSignedCertificate } from '../../support/tls';
import { tempDir } from '../../harness';

describe('scrub', () => {
  test('replaces URLs, IP addresses, host names and token-like strings', () => {
    assert.equal(scrub('GET https://api.test/x?key=1 failed'), 'GET <url> failed');
    assert.equal(scrub('connect to 192.168.1.20:443 refused'), 'connect to <ip> refused');
    assert.equal(scrub('no route to fe80::1:2'), 'no route to <ip>');
    assert.equal(scrub('lookup of db.internal.example.com failed'), 'lookup of <host> failed');
    assert.equal(scrub('bad key sk_live_51HxYz0123456789abcdef'), 'bad key <redacted>');
    // Ordinary program errors keep their words.
    assert.equal(scrub('TypeError: console.log2 is not a function at line 3'), 'TypeError: console.log2 is not a function at line 3');
    assert.equal(scrub('Math.max expects numbers'), 'Math.max expects numbers');
  });
});

describe('Telemetry reporter', () => {
  const received: any[] = [];
  let status = 204;
  let server: https.Server;
  let url = '';
  let fetchWithCa: typeof fetch;
  before(async () => {
    const dir = tempDir('svc-telemetry-');
    const { certFile, keyFile } = selfSignedCertificate(dir);
    server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        if (status < 300) received.push(JSON.parse(text));
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://localhost:${(server.address() as AddressInfo).port}/r`;
    const dispatcher = new Agent({ connect: { ca: fs.readFileSync(certFile) } });
    fetchWithCa = ((input: string, init: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  });
  after(() => server.close());

  const reporter = (crashDir: string, usage: UsageTotals = { sessions_opened: 0, runs: {}, lookups: {}, blueprint_changes: {} }) =>
    new Telemetry({ endpoint: url, includeSource: false, version: '0.0.0-test', crashDir, log: silentLog, usage: async () => usage, fetch: fetchWithCa, flushIntervalMs: 3_600_000 });

  test('keeps at most 100 failures and counts the rest as dropped; nothing is sent when there is nothing to say', async () => {
    received.length = 0;
    const t = reporter(tempDir());
    t.start();
    await t.flush();
    assert.equal(received.length, 0);
    // A first batch goes out whole, first lines only.
    for (let i = 0; i < 49; i++) t.failure('http', { kind: 'runtime_error', message: `boom ${i}\nmore` }, 'code');
    await t.flush();
    assert.equal(received.length, 1);
    assert.equal(received[0].failures.length, 49);
    assert.equal(received[0].failures[0].message, 'boom 0');
    assert.equal(received[0].failures_dropped, undefined);
    // With the collector down, the queue stops at 100 and counts what it dropped.
    status = 503;
    for (let i = 0; i < 150; i++) t.failure('http', { kind: 'runtime_error', message: `again ${i}` }, 'code');
    await t.flush();
    status = 204;
    await t.close();
    assert.equal(received.length, 2);
    assert.equal(received[1].failures.length, 100);
    assert.equal(received[1].failures_dropped, 50);
  });

  test('a failed delivery keeps the report (within the bound) for the next attempt; counters are differences', async () => {
    received.length = 0;
    const usage: UsageTotals = { sessions_opened: 2, runs: { ok: 3 }, lookups: {}, blueprint_changes: {} };
    const t = reporter(tempDir(), usage);
    t.start();
    t.failure('session', { kind: 'timeout', message: 'run passed 5 s' }, 'x');
    status = 503;
    await t.flush();
    assert.equal(received.length, 0);
    status = 204;
    await t.flush();
    assert.equal(received.length, 1);
    assert.deepEqual(received[0].usage, { sessions_opened: 2, runs: { ok: 3 }, lookups: {}, blueprint_changes: {} });
    assert.equal(received[0].failures[0].kind, 'timeout');
    usage.runs = { ok: 5, timeout: 1 };
    await t.close();
    assert.deepEqual(received[1].usage.runs, { ok: 2, timeout: 1 });
    assert.equal(received[1].usage.sessions_opened, 0);
  });

  test('a crash is written to disk at once and sent by the next start, then removed', async () => {
    received.length = 0;
    const crashDir = path.join(tempDir(), 'telemetry');
    reporter(crashDir).recordCrash(new TypeError('cannot read x of undefined while calling https://svc.test/a'));
    const files = fs.readdirSync(crashDir);
    assert.equal(files.length, 1);
    const next = reporter(crashDir);
    next.start();
    await next.close();
    assert.equal(received.length, 1);
    const [crash] = received[0].crashes;
    assert.equal(crash.error, 'TypeError');
    assert.equal(crash.message, 'cannot read x of undefined while calling <url>');
    assert.ok(crash.frames.every((f: string) => !f.includes(path.sep + 'work' + path.sep) && !f.includes('file://')));
    assert.deepEqual(fs.readdirSync(crashDir), []);
  });
});
