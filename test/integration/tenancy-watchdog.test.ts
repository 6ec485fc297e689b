// One tenant's crash is not another's (issue 36), through the real server and its runners:
// a server that was stalled past the heartbeat timeout keeps its runners; a run that breaks
// its runner (a fatal out-of-memory) gets the limit error, while
// the other runs it shared the runner with run again (no host call yet: the far end sees
// exactly one request), resume from their journal on another runner (a host call made: the
// calls already made are answered from the journal or the answers the server kept, never
// made again), or, without a journal to resume from, end as lost; an idempotency key does
// not keep a lost answer, and the breaker's token is then kept apart: its next crashes take
// none of the other token's runs. Counts and far-end hits, no clocks.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '../harness';
import { eventually } from '../support/wait';
import { openSession } from '../support/sessions';

// typecheck: off (types stripped, not checked): no program here is about types, and each of the
// file's servers would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = 'name: tenancy\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n';
const ATTACK = 'export function main() { const a = Array(2e8).fill(0); return a.length; }';
/**
 * A run that breaks its runner every time, as a fatal out-of-memory does (the runner reports
 * it as the cause, then exits): the runner's test hook, sandbox/runner/break-hook.ts. ATTACK
 * cannot be relied on for that: whether it ends in V8's fatal out-of-memory (the runner dies)
 * or in isolated-vm's memory limit (the isolate is disposed, the runner retires and its other
 * runs finish unharmed) depends on the heap the prelude leaves below the limit (measured at
 * 16 MB: the first with either web branch's prelude alone, the second with both merged).
 */
const BREAK_MARK = 'svc-test-break-this-runner';
const BREAKER = `export function main() { return "${BREAK_MARK}"; }`;

interface FarEnd {
  port: number;
  /** Requests received, by path. */
  hits(path: string): number;
  /** Answers every request held at /hold/*. */
  release(): void;
  close(): void;
}

/** /hold/<name> waits until released; anything else answers its own path at once. */
async function farEnd(): Promise<FarEnd> {
  const counts = new Map<string, number>();
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    counts.set(url, (counts.get(url) ?? 0) + 1);
    if (url.startsWith('/hold/')) held.push(res);
    else res.end(url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: (path) => counts.get(path) ?? 0,
    release: () => {
      for (const res of held.splice(0)) res.end('released');
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const until = (what: string, condition: () => boolean | Promise<boolean>) => eventually(what, condition, { intervalMs: 10, attempts: 6000 });

async function counter(server: TestServer, name: string): Promise<number> {
  const text = (await server.request('GET', '/metrics')).text;
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))) sum += Number(match[1]);
  return sum;
}

/** Runs in flight (placed on a runner) over every token. */
async function runsInFlight(server: TestServer): Promise<number> {
  const text = (await server.request('GET', '/metrics')).text;
  let sum = 0;
  for (const match of text.matchAll(/^svc_token_quota_use\{[^}]*quota="max_runs_in_flight_per_token"[^}]*\} (\d+)$/gm)) sum += Number(match[1]);
  return sum;
}

interface Answer {
  result: string | null;
  error: { kind: string; message: string } | null;
}

async function execute(server: TestServer, token: string, code: string): Promise<Answer> {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint: 'tenancy', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as Answer;
}

const fetching = (port: number, path: string, before = '') => `export async function main() { ${before} const r = await fetch("http://127.0.0.1:${port}${path}"); return await r.text(); }`;

/**
 * Seconds of runner silence judged stuck (`runner_heartbeat_timeout`, 3 by default): its
 * smallest value, so a runner an attack left stuck is replaced after 1 s, not 3. A runner
 * running no guest code on its main thread gets SILENT_RUNNER_FACTOR (10) times as long.
 */
const HEARTBEAT_TIMEOUT_S = 1;
const SILENT_RUNNER_FACTOR = 10;

/**
 * One runner (so every run shares it until a quarantine runner starts), a small memory limit
 * (the attack ends sooner); `journal: false`: runs keep no journal, so one that called the
 * host cannot be resumed.
 */
async function tenancyServer(journal = true): Promise<TestServer> {
  const server = await startServer({ args: ['--allow-localhost', '--runner-pool-size', '1', '--max-execution-memory', '16', '--runner-heartbeat-timeout', String(HEARTBEAT_TIMEOUT_S)], config: { max_execution_time: 120, ...(journal ? {} : { max_run_journal_size: 0 }) }, env: { SVC_TEST_RUNNER_BREAK_MARK: BREAK_MARK } });
  await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  return server;
}

/** A far end and a tenancy server for one describe block: started before its tests, stopped after. */
function withFarEnd(journal = true): { far: FarEnd; server: TestServer } {
  const env = {} as { far: FarEnd; server: TestServer };
  before(async () => {
    env.far = await farEnd();
    env.server = await tenancyServer(journal);
  });
  after(async () => {
    env.far.close();
    await env.server.stop();
  });
  return env;
}

// Each block below has its own server and far end: they run at once (the first mostly
// waits out a stopped server's silence, about 11.5 s, while the others break runners).
describe('one tenant\'s crash is not another\'s', { concurrency: true }, () => {
  describe('a busy server is not a stuck runner', () => {
    const env = withFarEnd();

    test('a server stopped for longer than a silent runner is allowed (10 heartbeat timeouts) replaces no runner, and the run in flight finishes', async () => {
      const { far, server } = env;
      const waiting = execute(server, server.userToken, fetching(far.port, '/hold/stall'));
      await until('the run to reach the far end', () => far.hits('/hold/stall') === 1);
      const restarts = await counter(server, 'svc_runner_restarts_total');
      // The whole server process stops (its event loop with it); its runners keep sending
      // heartbeats. The runner waits on the host (no guest code on its main thread), so only a
      // silence past SILENT_RUNNER_FACTOR heartbeat timeouts would have it replaced.
      process.kill(server.child.pid!, 'SIGSTOP');
      try {
        await sleep(HEARTBEAT_TIMEOUT_S * SILENT_RUNNER_FACTOR * 1000 + 1_500);
      } finally {
        process.kill(server.child.pid!, 'SIGCONT');
      }
      // Its watchdog has looked at the runners by the time it answers again.
      assert.equal((await server.request('GET', '/healthz')).status, 200);
      far.release();
      assert.deepEqual(await waiting, { ...(await waiting), error: null, result: 'released' });
      assert.equal(await counter(server, 'svc_runner_restarts_total'), restarts);
      assert.equal((await execute(server, server.userToken, 'export function main() { return 7; }')).result, '7');
    });
  });

  describe('a run that breaks its runner', () => {
    // Without journals: a neighbour that called the host has nothing to resume from.
    const env = withFarEnd(false);

    test("only the breaker gets the limit; a neighbour that had called the host (and keeps no journal) is lost (one request, a message naming another run's crash) and its idempotency key runs again; one that had not runs again (one request); the breaker's token is then kept apart", async () => {
      const { far, server } = env;
      const session = await openSession(server, { blueprint: 'tenancy' });
      const headers = { 'idempotency-key': 'charge-1' };
      const lostCode = fetching(far.port, '/hold/charge');
      // Token B: a session run waiting on the far end (a host call made), with an idempotency key ...
      const called = server.request('POST', `/v1/sessions/${session}/execute`, { token: server.userToken, body: { code: lostCode }, headers });
      await until('the session run to reach the far end', () => far.hits('/hold/charge') === 1);
      // ... and a run that has called nothing yet (it waits on a timer first: the attack below ends long before).
      const fresh = execute(server, server.userToken, fetching(far.port, '/fresh', 'await new Promise((resolve) => setTimeout(resolve, 6000));'));
      // Both are on the runner before the attack arrives (it breaks the runner at once).
      await until('both runs to be placed', async () => (await runsInFlight(server)) === 2);

      // Token A breaks the runner they share.
      const attack = await execute(server, server.adminToken, BREAKER);
      assert.equal(attack.error?.kind, 'memory_exhausted', JSON.stringify(attack));

      const lost = await called;
      assert.equal(lost.status, 200);
      assert.equal(lost.json.result, null);
      assert.equal(lost.json.error.kind, 'runtime_error');
      assert.match(lost.json.error.message, /^lost to another run's crash: .*not a limit of this run.*already called the host/);
      assert.equal(far.hits('/hold/charge'), 1);

      const again = (await fresh) as Answer & { execution_id: string };
      assert.deepEqual(again, { ...again, error: null, result: '/fresh' });
      assert.equal(far.hits('/fresh'), 1);
      // It did run again (it shared the runner the attack broke), as the server's log says.
      assert.equal(server.logs({ msg: 'a run lost with its runner before it called the host runs again on another runner', execution_id: again.execution_id }).length, 1);

      // The lost answer was not kept: the same key runs the program again.
      const retried = server.request('POST', `/v1/sessions/${session}/execute`, { token: server.userToken, body: { code: lostCode }, headers });
      await until('the retry to reach the far end', () => far.hits('/hold/charge') === 2);
      far.release();
      const retry = await retried;
      assert.equal(retry.headers.get('idempotent-replayed'), null);
      assert.equal(retry.json.error, null);
      assert.equal(retry.json.result, 'released');
      // ... and that answer, the program's own, is kept.
      const replay = await server.request('POST', `/v1/sessions/${session}/execute`, { token: server.userToken, body: { code: lostCode }, headers });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(far.hits('/hold/charge'), 2);

      // Token A is quarantined: its next crashes happen on a runner of its own, so token B's
      // run waiting on the far end meanwhile (a host call made, so it could not run again) survives them.
      const waiting = execute(server, server.userToken, fetching(far.port, '/hold/survivor'));
      await until('the survivor to reach the far end', () => far.hits('/hold/survivor') === 1);
      for (let crash = 0; crash < 3; crash++) assert.equal((await execute(server, server.adminToken, BREAKER)).error?.kind, 'memory_exhausted');
      far.release();
      assert.deepEqual(await waiting, { ...(await waiting), error: null, result: 'released' });
      assert.equal(far.hits('/hold/survivor'), 1);
    });

  });

  describe('a neighbour that had called the host, its runner broken by another run', () => {
    const env = withFarEnd();

    test("resumes on another runner from its journal and gets its real result: each call it had made (answered and streamed, answered but not yet in the journal, still waiting at the far end) reached the far end once", async () => {
      const { far, server } = env;
      const url = (path: string) => `"http://127.0.0.1:${far.port}${path}"`;
      const code = `export async function main() {
        const first = await (await fetch(${url('/first')})).text();
        const [second, third] = await Promise.all([fetch(${url('/second')}).then((r) => r.text()), fetch(${url('/hold/third')}).then((r) => r.text())]);
        return [first, second, third, Math.random() < 2].join(" ");
      }`;
      const reply = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'tenancy', code } });
      await until('the run to reach the far end three times', () => far.hits('/first') === 1 && far.hits('/second') === 1 && far.hits('/hold/third') === 1);

      const attack = await execute(server, server.adminToken, BREAKER);
      assert.equal(attack.error?.kind, 'memory_exhausted', JSON.stringify(attack));
      // The resumed run waits on the same far-end request its first runner made.
      far.release();
      const answer = (await reply).json as Answer & { execution_id: string };
      assert.deepEqual(answer, { ...answer, error: null, result: '/first /second released true' });
      assert.deepEqual([far.hits('/first'), far.hits('/second'), far.hits('/hold/third')], [1, 1, 1]);
      assert.equal(server.logs({ msg: 'a run lost with its runner after it called the host resumes on another runner from its journal', execution_id: answer.execution_id }).length, 1);
    });
  });

  describe('a real allocation attack beside a run waiting on the host', () => {
    const env = withFarEnd();

    test("whichever way V8 ends the attack (its fatal out-of-memory, or the memory limit leaving a stuck isolate), only the attacker gets the limit: the neighbour gets its own answer or ends as lost, nothing else", async () => {
      const { far, server } = env;
      const neighbour = execute(server, server.userToken, fetching(far.port, '/hold/beside'));
      await until('the neighbour to reach the far end', () => far.hits('/hold/beside') === 1);
      assert.equal((await execute(server, server.adminToken, ATTACK)).error?.kind, 'memory_exhausted');
      far.release();
      const answer = await neighbour;
      if (answer.error === null) assert.equal(answer.result, 'released');
      else assert.match(answer.error.message, /^lost to another run's crash: .*not a limit of this run.*already called the host/);
      assert.equal(far.hits('/hold/beside'), 1);
    });
  });

  describe('two tokens, one breaking runners', () => {
    let server: TestServer;
    before(async () => {
      server = await tenancyServer();
    });
    after(() => server.stop());

    test("two tokens: while token A's runs break runners over and over, every one of token B's runs succeeds with the right answer", async () => {
      const code = 'export async function main() { let sum = 0; for (let i = 0; i < 100000; i++) sum += i % 7; await new Promise((r) => setTimeout(r, 5)); return sum; }';
      const answer = String(Array.from({ length: 100000 }, (_, i) => i % 7).reduce((a, b) => a + b, 0));
      const restarts = await counter(server, 'svc_runner_restarts_total');
      let attacking = true;
      const outcomes: Answer[] = [];
      const victims = Array.from({ length: 4 }, async () => {
        while (attacking) outcomes.push(await execute(server, server.userToken, code));
      });
      const attacks: string[] = [];
      for (let crash = 0; crash < 4; crash++) attacks.push((await execute(server, server.adminToken, ATTACK)).error?.kind ?? 'ok');
      attacking = false;
      await Promise.all(victims);
      assert.deepEqual(attacks, Array(4).fill('memory_exhausted'));
      assert.ok((await counter(server, 'svc_runner_restarts_total')) - restarts >= 4);
      assert.ok(outcomes.length >= 4, `token B ran ${outcomes.length} times`);
      assert.deepEqual(
        outcomes.filter((outcome) => outcome.error !== null || outcome.result !== answer),
        [],
      );
    });
  });
});
