// Run journals through the real server: tape export, `svc replay` offline (the far end is
// closed during the replay), a tampered tape, fork with a substituted answer, another
// token, and secrets kept out of tapes (issue 38 item 3; server-operations.md §4.9). One
// server serves both blocks. The first replay is a bin/svc process; the other commands,
// about what they print and return, run in-process (svcInProcess).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { newToken, startServer, tempDir, type TestServer } from '../harness';
import { runSvc, svcInProcess } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';

interface FarEnd {
  port: number;
  /** Authorization headers the far end received. */
  authorizations: string[];
  close(): Promise<void>;
}

/** A loopback far end answering `hello <path>` to every request. */
async function farEnd(): Promise<FarEnd> {
  const authorizations: string[] = [];
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    res.setHeader('content-type', 'text/plain');
    res.end(`hello ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Timers, fan-out fetches, randomness, clocks and a caught failure, all in one run. */
const program = (port: number) => `export async function main() {
  const started = Date.now();
  const roll = Math.random();
  const id = crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  await new Promise((resolve) => setTimeout(resolve, 3));
  const texts = await Promise.all(["/a", "/b", "/c"].map(async (p) => (await fetch("http://127.0.0.1:${port}" + p)).text()));
  let failed = "";
  try { await fetch("http://127.0.0.1:1/refused"); } catch (error) { failed = String(error.name); }
  console.log("roll", roll, "after", performance.now() >= 0, new Date().getTime() >= started);
  return { roll, id, bytes: [...bytes], texts, failed };
}`;

const otherToken = newToken();
let started: Promise<TestServer> | null = null;
/**
 * The file's one server, for both blocks (their Blueprints and store secrets have names of
 * their own): loopback allowed, a second token, a secret store, and @vault/peek published
 * into its home by the real `svc build publish-local` (in-process) before it starts.
 */
function tapesServer(): Promise<TestServer> {
  started ??= (async () => {
    const home = tempDir('svc-tapes-home-');
    fs.writeFileSync(path.join(home, 'other.token'), otherToken);
    const project = writeFiles(tempDir('svc-tapes-project-'), {
      'svc.toml': manifest([{ name: '@vault/peek', path: 'peek' }]),
      'peek/docs/readme.md': '# peek\n',
      'peek/src/lib.ts': 'import { get } from "svc:secrets";\n/**\n * The secret\'s length.\n * @returns Its length.\n */\nexport function peek(): number {\n  return (get("API") ?? "").length;\n}\n',
    });
    const published = await svcInProcess(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
    assert.equal(published.code, 0, published.stdout + published.stderr);
    return startServer({ runners: 1, home, args: ['--allow-localhost'], env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') }, config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] }, timeoutMs: 60_000 });
  })();
  return started;
}
after(async () => (await started)?.stop());

describe('run journals', () => {
  let server: TestServer;
  let far: FarEnd;
  const secret = `sekret-${randomBytes(8).toString('hex')}`;
  const work = tempDir('svc-tapes-');

  before(async () => {
    server = await tapesServer();
    far = await farEnd();
    await server.request('POST', '/v1/secrets', { body: { key: 'api', value: secret } });
    for (const yaml of [
      // typecheck: off (types stripped, not checked): no program here is about types (a server's first checked one loads a type checker, about 1 CPU-s).
      'name: tapes\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n',
      'name: proxied\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\nsecrets: {API: {store: api}}\nauth_proxy:\n  - host: 127.0.0.1\n    allow_insecure_http: true\n    auth: {bearer: API}\n',
    ]) {
      const created = await server.request('POST', '/v1/blueprints', { body: { yaml } });
      assert.ok(created.status < 300, created.text);
    }
  });
  after(async () => {
    await far?.close().catch(() => {});
  });

  const execute = async (blueprint: string, code: string, token = server.userToken) => {
    const run = await server.request('POST', '/v1/execute', { token, body: { blueprint, code } });
    assert.equal(run.status, 200, run.text);
    return run.json;
  };
  const tapeOf = async (executionId: string, token = server.userToken) => server.request('GET', `/v1/runs/${executionId}/tape`, { token });

  let recorded: any;

  test('a finished run exports its tape: the program, its result, and each value that entered it in order', async () => {
    const run = await execute('tapes', program(far.port));
    assert.equal(run.error, null, JSON.stringify(run.error));
    const reply = await tapeOf(run.execution_id);
    assert.equal(reply.status, 200, reply.text);
    recorded = reply.json;
    assert.equal(recorded.format, 'svc.tape/1');
    assert.equal(recorded.execution_id, run.execution_id);
    assert.equal(recorded.program, program(far.port));
    assert.equal(recorded.blueprint, 'tapes');
    assert.deepEqual(recorded.result.result, run.result);
    const kinds = new Set(recorded.journal.map((e: any) => e.kind));
    for (const kind of ['host_call', 'clock', 'random', 'order']) assert.ok(kinds.has(kind), `the journal holds a ${kind} entry`);
    recorded.journal.forEach((entry: any, index: number) => assert.equal(entry.step, index));
    const calls = recorded.journal.filter((e: any) => e.kind === 'host_call');
    assert.ok(calls.every((e: any) => /^sha256:[0-9a-f]{64}$/.test(e.request_digest) && ('answer' in e || 'error' in e)), JSON.stringify(calls[0]));
    assert.ok(calls.some((e: any) => e.capability === 'web.fetch'), 'the fetches are host calls');
  });

  test('svc replay reproduces result, console and fuel with the far end closed (exit 0), calling nothing', async () => {
    const file = path.join(work, 'tape.json');
    fs.writeFileSync(file, JSON.stringify(recorded));
    const before = far.authorizations.length;
    await far.close();
    const replay = await runSvc(['replay', file]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout.trim(), recorded.result.result);
    assert.match(replay.stderr, /replay matches/);
    assert.equal(far.authorizations.length, before, 'the replay reached no far end');
  });

  test('a tampered tape: a changed request digest is a divergence named by step; a changed answer changes the result (exit 1)', async () => {
    const digestStep = recorded.journal.find((e: any) => e.kind === 'host_call').step;
    const tamperedDigest = structuredClone(recorded);
    tamperedDigest.journal[digestStep].request_digest = `sha256:${'0'.repeat(64)}`;
    const file = path.join(work, 'tampered-digest.json');
    fs.writeFileSync(file, JSON.stringify(tamperedDigest));
    const diverged = await svcInProcess(['replay', file]);
    assert.equal(diverged.code, 1, diverged.stderr);
    assert.match(diverged.stderr, new RegExp(`replay diverged at step ${digestStep}: the journal holds host_call #\\d+ web\\.fetch sha256:0{64}, the program asked for host_call #\\d+ web\\.fetch sha256:[0-9a-f]{64}`));

    const randomStep = recorded.journal.find((e: any) => e.kind === 'random').step;
    const tamperedRandom = structuredClone(recorded);
    tamperedRandom.journal[randomStep].bytes = Buffer.alloc(Buffer.from(recorded.journal[randomStep].bytes, 'base64').length, 7).toString('base64');
    const other = path.join(work, 'tampered-random.json');
    fs.writeFileSync(other, JSON.stringify(tamperedRandom));
    const differs = await svcInProcess(['replay', other]);
    assert.equal(differs.code, 1, differs.stderr);
    assert.match(differs.stderr, /result differs/);
  });

  test('another token cannot see a run or fork it (404 unknown_run); an unknown id is the same 404', async () => {
    for (const route of [`/v1/runs/${recorded.execution_id}/tape`, '/v1/runs/no-such-run/tape']) {
      const reply = await server.request('GET', route, { token: otherToken });
      assert.equal(reply.status, 404, reply.text);
      assert.equal(reply.json.error, 'unknown_run');
    }
    const fork = await server.request('POST', `/v1/runs/${recorded.execution_id}/fork`, { token: otherToken, body: { step: 0, answer: { value: null } } });
    assert.equal(fork.status, 404, fork.text);
    const admin = await tapeOf(recorded.execution_id, server.adminToken);
    assert.equal(admin.status, 200, 'an admin token reads any tape');
  });

  test('fork: the run replayed to a host call, its answer substituted, continues live as a new run with a changed result', async () => {
    const code = `export async function main() {
  const roll = Math.random();
  let first;
  try { first = await (await fetch("http://127.0.0.1:1/first")).text(); } catch (error) { first = "failed: " + error.message; }
  return { roll, first };
}`;
    const run = await execute('tapes', code);
    assert.equal(run.error, null, JSON.stringify(run.error));
    const original = JSON.parse(run.result);
    assert.match(original.first, /^failed: /);
    const tape = (await tapeOf(run.execution_id)).json;
    const step = tape.journal.find((e: any) => e.kind === 'host_call' && e.capability === 'web.fetch').step;
    const bad = await server.request('POST', `/v1/runs/${run.execution_id}/fork`, { token: server.userToken, body: { step: 0, answer: { value: 1 } } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json.error, 'invalid_step');
    const fork = await server.request('POST', `/v1/runs/${run.execution_id}/fork`, { token: server.userToken, body: { step, answer: { error: { name: 'TypeError', message: 'substituted by the fork' } } } });
    assert.equal(fork.status, 202, fork.text);
    assert.equal(fork.json.state, 'running');
    assert.notEqual(fork.json.execution_id, run.execution_id);
    let forked: any;
    for (let i = 0; i < 600; i++) {
      const reply = await tapeOf(fork.json.execution_id);
      if (reply.status === 200) {
        forked = reply.json;
        break;
      }
      assert.ok(reply.status === 409 || reply.status === 404, reply.text);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(forked, 'the fork finished');
    const result = JSON.parse(forked.result.result);
    assert.equal(result.roll, original.roll, 'the replayed part saw the recorded random seed');
    assert.match(result.first, /^failed: .*substituted by the fork$/);
  });

  test('a journal past max_run_journal_size: the run goes on, its tape is marked truncated, and neither replay nor fork accepts it', async () => {
    // About 7 MB of random bytes (base64) against the default bound of 4 MB.
    const run = await execute('tapes', 'export function main() { let sum = 0; for (let i = 0; i < 80; i++) sum += crypto.getRandomValues(new Uint8Array(65536))[0] >= 0 ? 1 : 0; return sum; }');
    assert.equal(run.error, null, JSON.stringify(run.error));
    assert.equal(run.result, '80', 'the run kept running');
    const tape = await tapeOf(run.execution_id);
    assert.equal(tape.status, 200, tape.text);
    assert.equal(tape.json.journal_truncated, true);
    assert.deepEqual(tape.json.journal, []);
    const fork = await server.request('POST', `/v1/runs/${run.execution_id}/fork`, { token: server.userToken, body: { step: 0, answer: { value: null } } });
    assert.equal(fork.status, 400, fork.text);
    assert.equal(fork.json.error, 'not_replayable');
    const file = path.join(work, 'truncated.json');
    fs.writeFileSync(file, tape.text);
    const replay = await svcInProcess(['replay', file]);
    assert.equal(replay.code, 3, replay.stderr);
    assert.match(replay.stderr, /max_run_journal_size/);
  });

  test('secrets never enter a tape: an auth_proxy bearer secret reaches the far end but not the tape', async () => {
    const echo = await farEnd();
    try {
      const run = await execute('proxied', `import * as http from "svc:http";\nexport function main() { return http.get("http://127.0.0.1:${echo.port}/private").body; }`);
      assert.equal(run.error, null, JSON.stringify(run.error));
      assert.deepEqual(echo.authorizations, [`Bearer ${secret}`], 'the far end got the secret');
      const tape = await tapeOf(run.execution_id);
      assert.equal(tape.status, 200, tape.text);
      assert.ok(tape.text.includes('hello /private'), 'the answer is in the tape');
      assert.ok(!tape.text.includes(secret), 'the secret is not');
    } finally {
      await echo.close();
    }
  });
});

describe('run journals of runs with Packages', () => {
  let server: TestServer;
  const secret = `vault-${randomBytes(8).toString('hex')}`;

  before(async () => {
    server = await tapesServer();
    await server.request('POST', '/v1/secrets', { body: { key: 'vault_api', value: secret } });
    const created = await server.request('POST', '/v1/blueprints', {
      body: { yaml: "name: vault\ndefault: deny\ntypecheck: off\nsecrets: {API: {store: vault_api}}\npackages: ['@vault/peek']\npermissions:\n  '@vault/peek':\n    - {capability: secrets.get, action: allow}\n" },
    });
    assert.ok(created.status < 300, created.text);
  });

  test('a Package reads a store secret: the answer is withheld from the journal, and the tape never holds the value', async () => {
    const run = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'vault', code: 'import { peek } from "@vault/peek";\nexport function main() { return peek(); }' } });
    assert.equal(run.json.error, null, run.text);
    assert.equal(JSON.parse(run.json.result), secret.length, 'the Package got the secret');
    const tape = await server.request('GET', `/v1/runs/${run.json.execution_id}/tape`, { token: server.userToken });
    assert.equal(tape.status, 200, tape.text);
    assert.ok(!tape.text.includes(secret), 'the secret is not in the tape');
    const call = tape.json.journal.find((e: any) => e.kind === 'host_call' && e.capability === 'svc:secrets.get');
    assert.ok(call, tape.text);
    assert.equal(call.withheld, true);
    assert.ok(!('answer' in call) && !('error' in call), 'no answer is recorded');
    assert.deepEqual(tape.json.packages.map((p: any) => p.name), ['@vault/peek']);
  });
});
