// What one token can make the server keep is bounded, and one token cannot push out
// another's: open sessions per token (`max_sessions_per_token`, REST and MCP), the
// idempotency ledger per session and server-wide (`max_idempotency_records`,
// `max_idempotency_session_size`, `max_idempotency_size`), and retained last-runs per token
// (`max_last_run_memory`).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { registerBlueprint } from '../support/sessions';
import { ONE_OFF_RUNS_KEPT } from '../../src/sessions';
import type { TestServer } from '../harness';
import { metricValue, startWithOther as startTwoTokens } from '../support/tenants';

// typecheck: off (types stripped, not checked): the programs here are about per-token bounds, and
// each of the file's servers would load a type checker for them (about 1 CPU-s).
const OPEN = 'name: open\ndefault: allow\ntypecheck: off\n';
const OPEN_MCP = 'name: open-mcp\ndefault: allow\ntypecheck: off\n';

/** Increments a counter in svc:session state: tells a run (new number) from a replay (same number). */
const COUNTER = 'import * as session from "svc:session";\nexport function main() { const n = (session.get("n") ?? 0) + 1; session.set("n", n); return n; }';
/** The same, with about `bytes` of padding in the result. */
const bigCounter = (bytes: number) =>
  `import * as session from "svc:session";\nexport function main() { const n = (session.get("n") ?? 0) + 1; session.set("n", n); return n + ":" + "x".repeat(${bytes}); }`;

/** A server with a second user token, `other`, next to the harness's `harness` token, and the open Blueprint. */
async function startWithOther(args: string[]): Promise<{ server: TestServer; other: string }> {
  const started = await startTwoTokens({ args });
  await registerBlueprint(started.server, OPEN);
  return started;
}

async function openAs(server: TestServer, token: string) {
  return server.request('POST', '/v1/sessions', { token, body: { blueprint: 'open' } });
}

async function openedAs(server: TestServer, token: string): Promise<string> {
  const reply = await openAs(server, token);
  assert.equal(reply.status, 200, reply.text);
  return reply.json.session_id;
}

function initializeMcp(server: TestServer, token: string, blueprint = 'open') {
  return fetch(`${server.url}/mcp/${blueprint}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
}

function sessionFiles(server: TestServer): string[] {
  return fs.readdirSync(path.join(server.home, 'server', 'sessions')).filter((name) => name.endsWith('.json'));
}

describe('max_sessions_per_token', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    ({ server, other } = await startWithOther(['--max-sessions-per-token', '2']));
  });
  after(async () => {
    await server.stop();
  });

  test('past the limit opening a session answers 429 naming the limit and the setting, and opens nothing; other tokens are not held back', async () => {
    const first = await openedAs(server, server.userToken);
    await openedAs(server, server.userToken);
    const filesBefore = sessionFiles(server).sort();

    const refused = await openAs(server, server.userToken);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.json.error, 'session_limit');
    assert.equal(refused.json.limit, 2);
    assert.match(refused.json.message, /2 open sessions.*max_sessions_per_token/);
    assert.deepEqual(sessionFiles(server).sort(), filesBefore, 'a refused open writes no session record');

    // Over MCP the same limit answers 429 too.
    const mcp = await initializeMcp(server, server.userToken);
    assert.equal(mcp.status, 429);
    assert.match(await mcp.text(), /max_sessions_per_token/);
    assert.equal(mcp.headers.get('mcp-session-id'), null);

    // Another token counts only its own open sessions.
    await openedAs(server, other);
    const otherMcp = await initializeMcp(server, other);
    assert.equal(otherMcp.status, 200, await otherMcp.text());

    // Only open sessions count: ending one makes room.
    const ended = await server.request('DELETE', `/v1/sessions/${first}`, { token: server.userToken });
    assert.equal(ended.status, 204);
    await openedAs(server, server.userToken);
    assert.equal((await openAs(server, server.userToken)).status, 429);
  });

  test('admin tokens are held to the limit for the sessions they open', async () => {
    await openedAs(server, server.adminToken);
    await openedAs(server, server.adminToken);
    const refused = await openAs(server, server.adminToken);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.json.error, 'session_limit');
  });
});

// The per-session idempotency bounds and the per-token last-run budget are kept apart (the
// ledger holds answers, last-run the latest run of each session), so one server has both.
describe('a server with small per-session idempotency bounds and a small last-run budget', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    ({ server, other } = await startWithOther(['--max-idempotency-records', '3', '--max-idempotency-session-size', '1', '--max-last-run-memory', '1']));
  });
  after(async () => {
    await server?.stop();
  });

  describe('idempotency ledger bounds per session', () => {
    const run = (sessionId: string, code: string, key: string) =>
      server.request('POST', `/v1/sessions/${sessionId}/execute`, { token: server.userToken, body: { code }, headers: { 'Idempotency-Key': key } });

    async function answer(sessionId: string, code: string, key: string): Promise<{ replayed: boolean; result: string }> {
      const reply = await run(sessionId, code, key);
      assert.equal(reply.status, 200, reply.text.slice(0, 500));
      assert.equal(reply.json.error, null, reply.text.slice(0, 500));
      return { replayed: reply.headers.get('idempotent-replayed') === 'true', result: String(reply.json.result).split(':')[0] };
    }

    test('a session keeps max_idempotency_records keys; the oldest goes and a retry with it runs again', async () => {
      const id = await openedAs(server, server.userToken);
      for (const [i, key] of ['k1', 'k2', 'k3', 'k4'].entries()) assert.deepEqual(await answer(id, COUNTER, key), { replayed: false, result: String(i + 1) });
      assert.deepEqual(await answer(id, COUNTER, 'k4'), { replayed: true, result: '4' });
      assert.deepEqual(await answer(id, COUNTER, 'k2'), { replayed: true, result: '2' });
      // k1 was dropped for k4: its retry is a new request.
      assert.deepEqual(await answer(id, COUNTER, 'k1'), { replayed: false, result: '5' });
    });

    test('a session keeps max_idempotency_session_size of answers; past it the oldest go', async () => {
      const id = await openedAs(server, server.userToken);
      const code = bigCounter(400_000);
      for (const [i, key] of ['b1', 'b2', 'b3'].entries()) assert.deepEqual(await answer(id, code, key), { replayed: false, result: String(i + 1) });
      // Three answers of 400 kB do not fit 1 MiB: b1 went.
      assert.deepEqual(await answer(id, code, 'b3'), { replayed: true, result: '3' });
      assert.deepEqual(await answer(id, code, 'b2'), { replayed: true, result: '2' });
      assert.deepEqual(await answer(id, code, 'b1'), { replayed: false, result: '4' });
    });
  });

  describe('max_last_run_memory is each token\'s own', () => {
    const LARGE = 'export function main() { return "r".repeat(600000); }';

    test('another token\'s large session results push out only its own older ones', async () => {
      const mine = await openedAs(server, server.userToken);
      const ran = await server.request('POST', `/v1/sessions/${mine}/execute`, { token: server.userToken, body: { code: LARGE } });
      assert.equal(ran.json.error, null, ran.text.slice(0, 300));

      const theirs = [await openedAs(server, other), await openedAs(server, other)];
      for (const id of theirs) {
        const reply = await server.request('POST', `/v1/sessions/${id}/execute`, { token: other, body: { code: LARGE } });
        assert.equal(reply.json.error, null, reply.text.slice(0, 300));
      }
      const statuses = [];
      for (const id of theirs) statuses.push((await server.request('GET', `/v1/sessions/${id}/last-run`, { token: other })).status);
      assert.deepEqual(statuses, [404, 200], 'two 600 kB records do not fit one token\'s 1 MiB: its older one went');
      const kept = await server.request('GET', `/v1/sessions/${mine}/last-run`, { token: server.userToken });
      assert.equal(kept.status, 200, 'the first token\'s record stays');
      assert.equal(kept.json.result, 'r'.repeat(600000));
    });

    test('another token\'s large one-off results push out only its own older ones', async () => {
      const oneOff = (token: string) => server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code: LARGE } });
      const mine = await oneOff(server.userToken);
      assert.equal(mine.json.error, null, mine.text.slice(0, 300));
      const theirs = [await oneOff(other), await oneOff(other)];
      const statuses = [];
      for (const reply of theirs) statuses.push((await server.request('GET', `/v1/sessions/${reply.json.session_id}/last-run`, { token: other })).status);
      assert.deepEqual(statuses, [404, 200]);
      const kept = await server.request('GET', `/v1/sessions/${mine.json.session_id}/last-run`, { token: server.userToken });
      assert.equal(kept.status, 200);
    });

    test(`a token keeps its ${ONE_OFF_RUNS_KEPT} newest one-off records, however small, and another's stay`, async () => {
      const small = (token: string, n: number) => server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code: `export function main() { return ${n}; }` } });
      const mine = await small(server.userToken, -1);
      assert.equal(mine.status, 200, mine.text);
      // The first eight one after another (their records in that order), the rest eight at a time.
      const ids: string[] = [];
      for (let n = 0; n <= ONE_OFF_RUNS_KEPT; ) {
        const count = n < 8 ? 1 : Math.min(8, ONE_OFF_RUNS_KEPT + 1 - n);
        const batch = await Promise.all(Array.from({ length: count }, (_, i) => small(other, n + i)));
        for (const reply of batch) {
          assert.equal(reply.status, 200, reply.text);
          ids.push(reply.json.session_id);
        }
        n += count;
      }
      const lastRun = (id: string, token: string) => server.request('GET', `/v1/sessions/${id}/last-run`, { token });
      // Past the count the oldest goes (before it, any older record of this token: the large one
      // above); this budget (1 MiB) holds all 1,001 small ones, so only the count takes any.
      const statuses = [];
      for (const id of ids.slice(0, 8)) statuses.push((await lastRun(id, other)).status);
      assert.deepEqual(statuses, [404, 200, 200, 200, 200, 200, 200, 200], `the oldest of ${ONE_OFF_RUNS_KEPT + 1} went, and only it`);
      const newest = await lastRun(ids[ids.length - 1], other);
      assert.equal(newest.status, 200);
      assert.equal(newest.json.result, String(ONE_OFF_RUNS_KEPT));
      const kept = await lastRun(mine.json.session_id, server.userToken);
      assert.equal(kept.status, 200, 'the first token\'s one record stays');
      assert.equal(kept.json.result, '-1');
    });
  });
});

// The server-wide idempotency bound, MCP sessions' protocol state (which keeps no answers),
// and the bound shared by two tokens, in this order on one server: the first fills the
// ledger with the harness token's answers alone; the last starts with some of them kept.
describe('a server with a small server-wide idempotency ledger', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    ({ server, other } = await startWithOther(['--max-idempotency-size', '1']));
    await registerBlueprint(server, OPEN_MCP);
  });
  after(async () => {
    await server?.stop();
  });

  describe('idempotency ledger bound server-wide', () => {
    test('all sessions together keep max_idempotency_size of answers; the oldest go first, whichever session they belong to', async () => {
      const code = bigCounter(400_000);
      const sessions = [await openedAs(server, server.userToken), await openedAs(server, server.userToken), await openedAs(server, server.userToken)];
      for (const id of sessions) {
        const first = await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code }, headers: { 'Idempotency-Key': 'same' } });
        assert.equal(first.json.error, null, first.text.slice(0, 300));
      }
      const retry = (id: string) => server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code }, headers: { 'Idempotency-Key': 'same' } });
      const newest = await retry(sessions[2]);
      assert.equal(newest.headers.get('idempotent-replayed'), 'true');
      const middle = await retry(sessions[1]);
      assert.equal(middle.headers.get('idempotent-replayed'), 'true');
      const oldest = await retry(sessions[0]);
      assert.equal(oldest.headers.get('idempotent-replayed'), null, 'the oldest answer was dropped: the retry ran');
      assert.ok(String(oldest.json.result).startsWith('2:'), String(oldest.json.result).slice(0, 20));
    });
  });

  describe('MCP protocol state of ended sessions', () => {
    const transports = async () => {
      const metrics = await server.request('GET', '/metrics');
      const line = metrics.text.split('\n').find((l) => l.startsWith('svc_mcp_transports '));
      assert.ok(line, 'the svc_mcp_transports gauge is exported');
      return Number(line.split(' ')[1]);
    };

    test('an MCP session ended over REST (or by idling out, or its Blueprint going) leaves no MCP state behind', async () => {
      const before = await transports();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const opened = await initializeMcp(server, server.userToken, 'open-mcp');
        assert.equal(opened.status, 200, await opened.text());
        ids.push(opened.headers.get('mcp-session-id')!);
      }
      assert.equal(await transports(), before + 3);
      // Ended through the REST route, not the MCP endpoint: the user can open and end sessions forever.
      for (const id of ids.slice(0, 2)) assert.equal((await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken })).status, 204);
      assert.equal(await transports(), before + 1);
      // Deleting the Blueprint ends the rest.
      assert.equal((await server.request('DELETE', '/v1/blueprints/open-mcp')).status < 300, true);
      assert.equal(await transports(), before);
    });
  });

  // The server-wide idempotency budget is shared fairly: the answers that go are those of the
  // token holding more than its share, so one token's many large answers never push out
  // another token's record (its retried `charge-1` replays, it does not run again).
  describe('the ledger shared by two tokens', () => {
    const run = (token: string, id: string, key: string) =>
      server.request('POST', `/v1/sessions/${id}/execute`, { token, body: { code: bigCounter(300_000) }, headers: { 'Idempotency-Key': key } });

    test("one token's large answers push out only its own oldest; the other token's record replays", async () => {
      const victim = await openedAs(server, other);
      const charged = await run(other, victim, 'charge-1');
      assert.ok(String(charged.json.result).startsWith('1:'), charged.text.slice(0, 200));

      const attacker = [await openedAs(server, server.userToken), await openedAs(server, server.userToken)];
      for (let i = 0; i < 6; i++) {
        const reply = await run(server.userToken, attacker[i % 2], `spam-${i}`);
        assert.equal(reply.json.error, null, reply.text.slice(0, 200));
      }
      const retried = await run(other, victim, 'charge-1');
      assert.equal(retried.headers.get('idempotent-replayed'), 'true', "the other token's record is still there");
      assert.ok(String(retried.json.result).startsWith('1:'));
      // The attacker's own oldest answer went: its retry runs again.
      const own = await run(server.userToken, attacker[0], 'spam-0');
      assert.equal(own.headers.get('idempotent-replayed'), null);
      const held = await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_idempotency_token_size"}');
      assert.ok(held !== null && held <= 1024 * 1024, String(held));
    });
  });
});
