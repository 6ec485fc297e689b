// Idempotent session execute against the real server: replays byte for byte with one run
// (counted by the audit trail, by a fresh random result, and by a per-session file),
// concurrent duplicates, conflicts, invalid keys, keys scoped per session, and a
// reservation left by an earlier process after a restart.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { codeFingerprint } from '../../src/sessions';
import { startServer, tempDir, type TestServer } from '../harness';

/** No test here runs two programs at once: one runner process starts faster than two. */
const ONE_RUNNER = ['--runner-pool-size', '1'];

// typecheck: off (types stripped, not checked): no program here is about types, and each server
// would load a type checker for them (about 1 CPU-s).
const COUNTER = 'name: counter\ndefault: allow\nvfs: per_session\ntypecheck: off\n';

/** Each run adds one to count.txt and returns the new count. */
const COUNT_RUN = 'import * as fs from "svc:fs";\nexport function main() { const n = Number(fs.exists("count.txt") ? fs.readText("count.txt") : "0") + 1; fs.writeText("count.txt", String(n)); return n; }';
const READ_COUNT = 'import * as fs from "svc:fs";\nexport function main() { return Number(fs.exists("count.txt") ? fs.readText("count.txt") : "0"); }';

async function openSession(server: TestServer): Promise<string> {
  const reply = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'counter' } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.session_id;
}

function execute(server: TestServer, sessionId: string, code: string, key?: string) {
  return server.request('POST', `/v1/sessions/${sessionId}/execute`, {
    token: server.userToken,
    body: { code },
    headers: key === undefined ? {} : { 'Idempotency-Key': key },
  });
}

/** Every run answers something new, so identical bytes mean nothing ran again. */
const RANDOM_RUN = 'export function main() { return crypto.randomUUID(); }';

/**
 * Runs of the program in a session, from the audit trail (refusals are not `ok`). The
 * server writes `finished` synchronously before it answers, so every run whose reply has
 * arrived is already counted: no wait is needed, and a count of 1 means no second run.
 */
function runsIn(server: TestServer, sessionId: string): number {
  return server.audit({ type: 'execution', event: 'finished', session_id: sessionId, outcome: 'ok' }).length;
}

async function runCount(server: TestServer, sessionId: string): Promise<number> {
  const reply = await execute(server, sessionId, READ_COUNT);
  assert.equal(reply.json.error, null, reply.text);
  return Number(reply.json.result);
}

describe('idempotent session execute', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ONE_RUNNER });
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: COUNTER } });
    assert.ok(created.status < 300, created.text);
  });
  after(async () => {
    await server.stop();
  });

  test('a sequential duplicate replays the same bytes with one run and no new audit records', async () => {
    const id = await openSession(server);
    const first = await execute(server, id, RANDOM_RUN, 'order-1');
    assert.equal(first.status, 200);
    assert.equal(first.json.error, null, first.text);
    assert.equal(runsIn(server, id), 1);
    const auditBefore = server.audit().length;
    const replay = await execute(server, id, RANDOM_RUN, 'order-1');
    assert.equal(replay.status, 200);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get('content-type'), 'application/json');
    assert.equal(replay.headers.get('mcp-session-id'), id);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'a replay says so');
    assert.equal(first.headers.get('idempotent-replayed'), null, 'a run does not');
    assert.equal(runsIn(server, id), 1);
    assert.equal(server.audit().length, auditBefore, 'a replay writes no audit records');
  });

  test('a replayed write to a per-session file happened once', async () => {
    const id = await openSession(server);
    const first = await execute(server, id, COUNT_RUN, 'write-once');
    assert.equal(first.json.result, '1', first.text);
    const replay = await execute(server, id, COUNT_RUN, 'write-once');
    assert.equal(replay.text, first.text);
    assert.equal(await runCount(server, id), 1);
  });

  test('a replay does not change last-run', async () => {
    const id = await openSession(server);
    await execute(server, id, RANDOM_RUN, 'k');
    await execute(server, id, 'export function main() { console.log("between"); return "other"; }');
    await execute(server, id, RANDOM_RUN, 'k');
    const lastRun = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken });
    assert.deepEqual(lastRun.json, { result: 'other', console: ['between'], error: null });
  });

  test('a concurrent duplicate waits and returns the same bytes; the program ran once', async () => {
    const id = await openSession(server);
    const slowRandom = 'export function main() { let x = 0; for (let i = 0; i < 200000; i++) x += i; return crypto.randomUUID(); }';
    const replies = await Promise.all([1, 2, 3].map(() => execute(server, id, slowRandom, 'together')));
    for (const reply of replies) {
      assert.equal(reply.status, 200);
      assert.equal(reply.text, replies[0].text);
    }
    assert.equal(replies[0].json.error, null, replies[0].text);
    assert.equal(runsIn(server, id), 1);
  });

  test('the same key with different code is 409 idempotency_conflict and runs nothing', async () => {
    const id = await openSession(server);
    await execute(server, id, RANDOM_RUN, 'k');
    const conflict = await execute(server, id, `${RANDOM_RUN}\n// changed`, 'k');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json.error, 'idempotency_conflict');
    assert.equal(conflict.json.session_id, id);
    assert.equal(typeof conflict.json.detail, 'string');
    assert.equal(runsIn(server, id), 1);
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: conflict.json.execution_id });
    assert.equal(finished[0]?.error_class, 'idempotency_conflict');
  });

  test('empty and 121-byte keys are 400 idempotency_key_invalid and nothing is run or recorded', async () => {
    const id = await openSession(server);
    for (const key of ['', 'k'.repeat(121)]) {
      const reply = await execute(server, id, RANDOM_RUN, key);
      assert.equal(reply.status, 400, `key of ${key.length} bytes: ${reply.text}`);
      assert.equal(reply.json.error, 'idempotency_key_invalid');
    }
    assert.equal(runsIn(server, id), 0);
    const longest = await execute(server, id, RANDOM_RUN, 'k'.repeat(120));
    const again = await execute(server, id, RANDOM_RUN, 'k'.repeat(120));
    assert.equal(longest.json.error, null, longest.text);
    assert.equal(again.text, longest.text, 'a 120-byte key is accepted and guards');
    assert.equal(runsIn(server, id), 1);
  });

  test('the same key in two sessions runs in each', async () => {
    const a = await openSession(server);
    const b = await openSession(server);
    const inA = await execute(server, a, RANDOM_RUN, 'shared');
    const inB = await execute(server, b, RANDOM_RUN, 'shared');
    assert.notEqual(inA.json.result, inB.json.result);
    assert.equal(runsIn(server, a), 1);
    assert.equal(runsIn(server, b), 1);
  });

  test('a compile error records nothing, so the key can be used again', async () => {
    const id = await openSession(server);
    const broken = await execute(server, id, 'export function main() { return 1 +; }', 'retry');
    assert.equal(broken.json.error.kind, 'compile_error');
    const fixed = await execute(server, id, RANDOM_RUN, 'retry');
    assert.equal(fixed.status, 200);
    assert.equal(fixed.json.error, null, fixed.text);
  });

  test('session checks come before the key: an unknown session is 404 even with a key', async () => {
    const reply = await execute(server, '00000000-0000-4000-8000-000000000000', RANDOM_RUN, 'k');
    assert.equal(reply.status, 404);
    assert.equal(reply.json.error, 'unknown session');
  });
});

describe('idempotency across a restart', () => {
  test('a run that started but never recorded an outcome answers 409 idempotency_incomplete', async () => {
    const home = tempDir();
    let server = await startServer({ home, args: ONE_RUNNER });
    const tokens = { adminToken: server.adminToken, userToken: server.userToken };
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: COUNTER } });
    assert.ok(created.status < 300, created.text);
    const id = await openSession(server);
    const done = await execute(server, id, RANDOM_RUN, 'finished-before');
    assert.equal(done.json.error, null, done.text);
    await server.stop();

    // What a server stopped mid-run leaves behind: a reservation of its generation.
    const db = new Database(path.join(home, 'server', 'db', 'svc.db'));
    db.prepare(
      "INSERT INTO idempotent_requests (session_id, request_key, fingerprint, reservation_id, owner_generation, created_at_ms, state) VALUES (?, 'mid-run', ?, 'r-1', 'an-earlier-process', 0, 'reserved')",
    ).run(id, codeFingerprint(RANDOM_RUN));
    db.close();

    server = await startServer({ home, ...tokens, args: ONE_RUNNER });
    try {
      const incomplete = await execute(server, id, RANDOM_RUN, 'mid-run');
      assert.equal(incomplete.status, 409, incomplete.text);
      assert.equal(incomplete.json.error, 'idempotency_incomplete');
      assert.equal(incomplete.json.session_id, id);
      const replay = await execute(server, id, RANDOM_RUN, 'finished-before');
      assert.equal(replay.text, done.text, 'completed records survive the restart');
      assert.equal(runsIn(server, id), 0, 'neither request ran the program');
    } finally {
      await server.stop();
    }
  });
});
