// Run slots and the queue are shared fairly across tokens: a token holding every slot with
// runs parked on a far end that never answers cannot make another token's run wait for
// them, and one token's queue is its own (`max_runs_in_flight_per_token`,
// `max_queued_runs_per_token`). Proven without clocks: which requests have answered, what
// the far end received and what the server's gauges read.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestServer } from '../harness';
import { eventually } from '../support/wait';
import { metricValue, startWithOther } from '../support/tenants';

// typecheck: off (types stripped, not checked): no program here is about types, and each of the
// file's servers would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = 'name: open\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n';
const HELLO = 'export function main() { return "hello " + (6 * 7); }';

interface Pending {
  settled: boolean;
  reply: Promise<{ result: string | null; error: { kind: string; message: string } | null } | null>;
}

function start(server: TestServer, token: string, code: string): Pending {
  const pending: Pending = { settled: false, reply: Promise.resolve(null) };
  pending.reply = server
    .request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } })
    .then((reply) => reply.json)
    .catch(() => null)
    .finally(() => (pending.settled = true));
  return pending;
}

describe('run slots and the queue per token', () => {
  let server: TestServer;
  let other: string;
  let far: http.Server;
  let port = 0;
  const held: http.ServerResponse[] = [];
  let answering = false;
  before(async () => {
    far = http.createServer((req, res) => {
      if (req.url?.startsWith('/hold') && !answering) held.push(res);
      else res.end('released');
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    port = (far.address() as AddressInfo).port;
    ({ server, other } = await startWithOther({
      args: ['--allow-localhost', '--max-runs-in-flight', '4', '--max-queued-runs-per-token', '2', '--shutdown-grace', '0'],
      config: { max_execution_time: 120 },
    }));
    await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  });
  after(async () => {
    await server?.stop();
    far.closeAllConnections();
    far.close();
  });

  test("token A holds every run slot with runs parked on a far end; token B's hello world still answers while all of A's wait", async () => {
    const parked = (i: number) => `export async function main() { return (await fetch("http://127.0.0.1:${port}/hold/${i}")).text(); }`;
    const runs = [0, 1, 2, 3].map((i) => start(server, server.userToken, parked(i)));
    await eventually("A's four runs to reach the far end", () => held.length === 4, { intervalMs: 10, attempts: 6000 });
    // A's fifth run queues: A holds the whole server (max_runs_in_flight 4).
    runs.push(start(server, server.userToken, parked(4)));
    await eventually("A's fifth run to queue", async () => (await metricValue(server, 'svc_runner_queue_depth')) === 1, { intervalMs: 10, attempts: 6000 });
    assert.equal(await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_runs_in_flight_per_token"}'), 4);
    assert.equal(await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_queued_runs_per_token"}'), 1);

    // B is below its fair share: its run starts past the full server and answers.
    const hello = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'open', code: HELLO } });
    assert.equal(hello.status, 200, hello.text);
    assert.deepEqual([hello.json.error, hello.json.result], [null, 'hello 42']);
    assert.deepEqual(runs.map((run) => run.settled), [false, false, false, false, false], "none of A's runs has ended");
    assert.equal(held.length, 4, "A's queued run still waits");

    // A's own queue is bounded: a third queued run is refused, naming the quota, its setting and the use; nothing is queued.
    runs.push(start(server, server.userToken, parked(5)));
    await eventually("A's sixth run to queue", async () => (await metricValue(server, 'svc_runner_queue_depth')) === 2, { intervalMs: 10, attempts: 6000 });
    const refused = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'open', code: HELLO } });
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.json.result, null);
    assert.match(refused.json.error?.message ?? '', /this token has 2 runs queued, the most max_queued_runs_per_token \(2\) allows, and 4 in flight/);
    assert.equal(await metricValue(server, 'svc_runner_queue_depth'), 2, 'the refused run was not queued');
    assert.equal(await metricValue(server, 'svc_token_quota_refusals_total{token="harness",quota="max_queued_runs_per_token"}'), 1);
    // B is not held to A's queue.
    const again = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'open', code: HELLO } });
    assert.equal(again.json.result, 'hello 42');

    // The far end answers: every one of A's runs, the queued ones too, completes with its answer.
    answering = true;
    for (const response of held.splice(0)) response.end('released');
    const answers = await Promise.all(runs.map((run) => run.reply));
    assert.deepEqual(answers.map((answer) => answer?.result), Array(6).fill('released'));
  });
});

describe('host calls in flight server-wide and per token', () => {
  let server: TestServer;
  let other: string;
  let far: http.Server;
  let port = 0;
  const held: http.ServerResponse[] = [];
  let answering = false;
  before(async () => {
    far = http.createServer((req, res) => {
      if (req.url?.startsWith('/hold') && !answering) held.push(res);
      else res.end(`answer ${req.url}`);
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    port = (far.address() as AddressInfo).port;
    ({ server, other } = await startWithOther({ args: ['--allow-localhost', '--max-server-host-calls-in-flight', '8', '--shutdown-grace', '0'], config: { max_execution_time: 120 } }));
    await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  });
  after(async () => {
    await server?.stop();
    far.closeAllConnections();
    far.close();
  });

  test("token A's fan-out to a far end that never answers holds the server's host-call slots; its further calls wait unsent, and token B's call still answers", async () => {
    const fanOut = start(server, server.userToken, `export async function main() {
      const texts = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch("http://127.0.0.1:${port}/hold/" + i).then((r) => r.text())));
      return texts.length + " " + texts[19];
    }`);
    await eventually('eight of A\'s calls to reach the far end', () => held.length === 8, { intervalMs: 10, attempts: 6000 });
    assert.equal(await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_host_calls_in_flight_per_token"}'), 8);

    const theirs = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'open', code: `export async function main() { return (await fetch("http://127.0.0.1:${port}/ok")).text(); }` } });
    assert.deepEqual([theirs.json.error, theirs.json.result], [null, 'answer /ok']);
    assert.equal(held.length, 8, "A's other twelve calls wait: none was sent");
    assert.equal(fanOut.settled, false);

    answering = true;
    for (const response of held.splice(0)) response.end('released');
    const done = await fanOut.reply;
    assert.deepEqual([done?.error, done?.result], [null, '20 answer /hold/19']);
  });
});
