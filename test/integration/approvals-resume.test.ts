// Runs parked on approvals with no isolate, resumed from their journal (issue 38, "Resume"),
// through the real server: a run whose only pending work is an approval ends its isolate
// (svc_runs_parked counts it) and, approved, resumes and finishes with the far end's answer;
// one token parking many runs leaves the other token's runs their answers; a run parked when
// the server stops is still `waiting_for_approval` after the restart, and, approved (or
// denied) there, resumes from its journal: the calls it made before are not made again, the
// approved one reaches the far end exactly once, and the result lands in its record.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, tempDir, type LogRecord, type TestServer } from '../harness';
import { metricValue, startWithOther } from '../support/tenants';
import { GATED_BLUEPRINT } from '../support/approvals';
import { eventually } from '../support/wait';

let far: http.Server;
let port = 0;
const received: string[] = [];


before(async () => {
  far = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.end(`ok ${req.url}`);
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  port = (far.address() as AddressInfo).port;
});
after(() => {
  far.closeAllConnections();
  far.close();
});

const hits = (line: string) => received.filter((r) => r === line).length;

let tenants: ReturnType<typeof startWithOther> | undefined;
/** The server of the first two tests (one start for both), with a second token, `other`. */
async function tenantServer(): ReturnType<typeof startWithOther> {
  tenants ??= startWithOther({ args: ['--allow-localhost'], config: { max_runs_in_flight: 64 } }).then(async (started) => {
    await register(started.server);
    return started;
  });
  return tenants;
}

after(async () => {
  await Promise.all([tenants, restart].map(async (started) => (await started?.catch(() => undefined))?.server.stop()));
});

/** A GET the Blueprint allows, then an ask-human POST, with a clock reading and random numbers between (replayed, not read again). */
const program = (tag: string) => `export async function main() {
  const before = await (await fetch("http://127.0.0.1:${port}/before/${tag}")).text();
  const stamp = Date.now() > 0 && Math.random() < 1;
  try {
    const paid = await (await fetch("http://127.0.0.1:${port}/pay/${tag}", { method: "POST", body: "x" })).text();
    return [before, stamp, paid].join(" | ");
  } catch (e: any) {
    return [before, stamp, e.cause?.name, e.cause?.source].join(" | ");
  }
}`;

async function register(server: TestServer): Promise<void> {
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: GATED_BLUEPRINT } });
  assert.ok(created.status < 300, created.text);
}

const parkedRuns = async (server: TestServer) => (await metricValue(server, 'svc_runs_parked')) ?? 0;

async function pending(server: TestServer, count: number): Promise<any[]> {
  return eventually(`${count} pending approvals`, async () => {
    const listed = (await server.request('GET', '/v1/approvals')).json.approvals as any[];
    return listed.length >= count ? listed : null;
  });
}

test('a run waiting only for an approval ends its isolate (svc_runs_parked) and, approved, resumes from its journal with the far end\'s answer; nothing before the approval is called twice', async () => {
  const { server } = await tenantServer();
  const reply = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'gated', code: program('a') } });
  const [approval] = await pending(server, 1);
  await eventually('the run to park', async () => (await parkedRuns(server)) === 1);
  assert.equal(hits('POST /pay/a'), 0);
  const approved = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'approve' } });
  assert.equal(approved.status, 200, approved.text);
  const answer = await reply;
  assert.equal(answer.json.error, null, answer.text);
  assert.equal(answer.json.result, 'ok /before/a | true | ok /pay/a');
  assert.deepEqual([hits('GET /before/a'), hits('POST /pay/a')], [1, 1]);
  assert.equal(await parkedRuns(server), 0);
  assert.equal(server.logs({ msg: 'a run lost with its runner after it called the host resumes on another runner from its journal' }).length, 0);
});

test("two tokens: one token's 20 runs parked on approvals hold no isolate; the other token's runs complete with their answers meanwhile", async () => {
  const { server, other } = await tenantServer();
  const parked = Array.from({ length: 20 }, (_, i) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'gated', code: program(`many${i}`) } }));
  const approvals = await pending(server, 20);
  await eventually('the twenty runs to park', async () => (await parkedRuns(server)) === 20);
  const others = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'gated', code: `export async function main() { let s = 0; for (let k = 0; k < 1e5; k++) s += k; return s + " " + (await (await fetch("http://127.0.0.1:${port}/other/${i}")).text()); }` } }),
    ),
  );
  others.forEach((reply, i) => assert.deepEqual([reply.json.error, reply.json.result], [null, `4999950000 ok /other/${i}`], reply.text));
  for (const approval of approvals) assert.equal((await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'approve' } })).status, 200);
  const answers = await Promise.all(parked);
  answers.forEach((reply, i) => assert.equal(reply.json.result, `ok /before/many${i} | true | ok /pay/many${i}`, reply.text));
  for (let i = 0; i < 20; i++) assert.deepEqual([hits(`GET /before/many${i}`), hits(`POST /pay/many${i}`)], [1, 1]);
});

/** A POST the Blueprint asks a human about, answered with the far end's text (or the denial's source). */
const pay = (path: string) => `fetch("http://127.0.0.1:${port}/pay/${path}", { method: "POST", body: "x" }).then((r) => r.text(), (e) => e.cause?.source)`;

interface ParkedRun {
  executionId: string;
  approvalIds: string[];
  /** The first server's execution records of the run. */
  firstAudit: LogRecord[];
}

let restart: Promise<{ server: TestServer; parked: Map<string, ParkedRun> }> | undefined;

/**
 * The restart tests share one restart (two server starts instead of two per test): a first
 * server parks one run per test on its approvals, stops, and a second starts on the same
 * home. Each test reads and answers only its own run's approvals and far-end paths.
 */
async function parkedAcrossRestart(tag: string): Promise<{ server: TestServer; approvalId: string } & ParkedRun> {
  restart ??= restartWithParkedRuns();
  const { server, parked } = await restart;
  const run = parked.get(tag)!;
  return { server, ...run, approvalId: run.approvalIds[0] };
}

async function restartWithParkedRuns(): Promise<{ server: TestServer; parked: Map<string, ParkedRun> }> {
  const runs = [
    ...['restart', 'denied', 'audited'].map((tag) => ({ tag, code: program(tag), paths: [`/pay/${tag}`] })),
    // Two approvals pending at once.
    { tag: 'two', code: `export async function main() { const [a, b] = await Promise.all([${pay('two-1')}, ${pay('two-2')}]); return a + " | " + b; }`, paths: ['/pay/two-1', '/pay/two-2'] },
  ];
  const home = tempDir();
  const first = await startServer({ home, args: ['--allow-localhost'], config: { shutdown_grace: 1 } });
  let approvals: any[];
  try {
    await register(first);
    for (const run of runs) void first.request('POST', '/v1/execute', { token: first.userToken, body: { blueprint: 'gated', code: run.code } }).catch(() => {});
    approvals = await pending(first, runs.flatMap((run) => run.paths).length);
    await eventually('the runs to park', async () => (await parkedRuns(first)) === runs.length);
  } finally {
    await first.stop();
  }
  const parked = new Map<string, ParkedRun>();
  for (const run of runs) {
    const mine = run.paths.map((path) => approvals.find((approval) => approval.context.path === path));
    assert.ok(mine.every(Boolean), JSON.stringify(approvals));
    const executionId = mine[0].execution_id;
    parked.set(run.tag, { executionId, approvalIds: mine.map((approval) => approval.approval_id), firstAudit: first.audit({ type: 'execution', execution_id: executionId }) });
  }
  const server = await startServer({ home, args: ['--allow-localhost'], adminToken: first.adminToken, userToken: first.userToken });
  return { server, parked };
}

async function finishedRecord(server: TestServer, executionId: string): Promise<any> {
  return eventually('the resumed run to finish', async () => {
    const record = await server.request('GET', `/v1/runs/${executionId}?wait=30`, { token: server.userToken });
    return record.json.state === 'finished' ? record.json : null;
  });
}

test('a run parked when the server stops is still waiting_for_approval after the restart; approved there, it resumes from its journal and its record ends succeeded with the result; the far end saw each call once', async () => {
  const { server, executionId, approvalId } = await parkedAcrossRestart('restart');
  const waiting = await server.request('GET', `/v1/runs/${executionId}`, { token: server.userToken });
  assert.equal(waiting.json.state, 'waiting_for_approval', waiting.text);
  assert.equal((await server.request('GET', `/v1/approvals/${approvalId}`)).json.state, 'pending');
  assert.deepEqual([hits('GET /before/restart'), hits('POST /pay/restart')], [1, 0]);
  const approved = await server.request('POST', `/v1/approvals/${approvalId}`, { body: { decision: 'approve' } });
  assert.equal(approved.status, 200, approved.text);
  const finished = await eventually('the resumed run to finish', async () => {
    const record = await server.request('GET', `/v1/runs/${executionId}?wait=30`, { token: server.userToken });
    return record.json.state === 'finished' ? record.json : null;
  });
  assert.equal(finished.result.error, null, JSON.stringify(finished));
  assert.equal(finished.result.result, 'ok /before/restart | true | ok /pay/restart');
  assert.deepEqual([hits('GET /before/restart'), hits('POST /pay/restart')], [1, 1]);
});

test('denied after the restart: the resumed run gets PermissionDeniedError with source human, and the far end never sees the call', async () => {
  const { server, executionId, approvalId } = await parkedAcrossRestart('denied');
  const denied = await server.request('POST', `/v1/approvals/${approvalId}`, { body: { decision: 'deny', reason: 'not today' } });
  assert.equal(denied.status, 200, denied.text);
  const finished = await eventually('the resumed run to finish', async () => {
    const record = await server.request('GET', `/v1/runs/${executionId}?wait=30`, { token: server.userToken });
    return record.json.state === 'finished' ? record.json : null;
  });
  assert.equal(finished.result.result, 'ok /before/denied | true | PermissionDeniedError | human', JSON.stringify(finished));
  assert.deepEqual([hits('GET /before/denied'), hits('POST /pay/denied')], [1, 0]);
});

test('a resumed run writes no second execution `started` audit record: the first server wrote `started` (and no `finished` for the parked run), the second only `finished`', async () => {
  const { server, executionId, approvalId, firstAudit } = await parkedAcrossRestart('audited');
  assert.deepEqual(firstAudit.map((record) => record.event), ['started']);
  assert.equal((await server.request('POST', `/v1/approvals/${approvalId}`, { body: { decision: 'approve' } })).status, 200);
  const finished = await finishedRecord(server, executionId);
  assert.equal(finished.result.result, 'ok /before/audited | true | ok /pay/audited', JSON.stringify(finished));
  const records = await eventually('the finished record', () => {
    const written = server.audit({ type: 'execution', execution_id: executionId });
    return written.some((record) => record.event === 'finished') ? written : null;
  });
  assert.deepEqual(records.map((record) => [record.event, record.outcome]), [['finished', 'ok']]);
});

test('a run with two pending approvals, resumed after the restart when one is approved, waits on the other one again (same id, no new approval asked); approved, it finishes with both answers', async () => {
  const { server, executionId, approvalIds } = await parkedAcrossRestart('two');
  const byPath = async (id: string) => (await server.request('GET', `/v1/approvals/${id}`)).json;
  const approvals = await Promise.all(approvalIds.map(byPath));
  const [first, second] = [approvals.find((a) => a.context.path === '/pay/two-1'), approvals.find((a) => a.context.path === '/pay/two-2')];
  assert.ok(first && second, JSON.stringify(approvals));
  assert.equal((await server.request('POST', `/v1/approvals/${first.approval_id}`, { body: { decision: 'approve' } })).status, 200);
  await eventually('the first call to reach the far end', () => hits('POST /pay/two-1') === 1);
  const listed = async (state: string) => (await server.request('GET', `/v1/approvals?execution_id=${executionId}&state=${state}`)).json.approvals.map((a: any) => a.approval_id);
  assert.deepEqual(await listed('pending'), [second.approval_id], 'the pending approval is kept, not asked anew');
  assert.equal((await server.request('POST', `/v1/approvals/${second.approval_id}`, { body: { decision: 'approve' } })).status, 200);
  const finished = await finishedRecord(server, executionId);
  assert.equal(finished.result.result, 'ok /pay/two-1 | ok /pay/two-2', JSON.stringify(finished));
  assert.deepEqual([hits('POST /pay/two-1'), hits('POST /pay/two-2')], [1, 1]);
  assert.deepEqual(await listed('pending'), []);
  assert.equal((await listed('approved')).length, 2);
});
