// CPU slots are shared across tokens (max_computing_runs): one token's runaway loops cannot
// starve another token's run, and a run that waits (on the host, a timer that never fires)
// holds no slot. Proven without clocks: what the server reports (svc_runs_computing,
// svc_runs_waiting_for_cpu) and which requests have answered, never how long anything took.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../harness';
import { eventually } from '../support/wait';

// typecheck: off (types stripped, not checked): no program here is about types, and each of the
// file's servers would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = 'name: cpu\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n';
const RUNAWAY = 'export function main() { for (;;) {} }';
const BRIEF = 'export function main() { let sum = 0; for (let i = 0; i < 10000; i++) sum += i; return sum; }';

interface Pending {
  settled: boolean;
  reply: Promise<{ result: string | null; error: { kind: string } | null } | null>;
}

/** Sends a run without waiting for it; `settled` says whether its answer has arrived. */
function start(server: TestServer, token: string, code: string): Pending {
  const pending: Pending = { settled: false, reply: Promise.resolve(null) };
  pending.reply = server
    .request('POST', '/v1/execute', { token, body: { blueprint: 'cpu', code } })
    .then((reply) => reply.json as { result: string | null; error: { kind: string } | null })
    // A run still in flight when the server stops has no answer to give.
    .catch(() => null)
    .finally(() => (pending.settled = true));
  return pending;
}

async function execute(server: TestServer, token: string, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint: 'cpu', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; error: { kind: string; message: string } | null };
}

async function cpuGauges(server: TestServer): Promise<{ computing: number; waiting: number }> {
  const text = (await server.request('GET', '/metrics')).text;
  const gauge = (name: string) => {
    const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    assert.ok(match, `${name} is not among the metrics`);
    return Number(match[1]);
  };
  return { computing: gauge('svc_runs_computing'), waiting: gauge('svc_runs_waiting_for_cpu') };
}

/** Waits for the gauges to read `wanted` (a pause between reads: asking back to back kept a core busy). */
async function until(server: TestServer, wanted: { computing: number; waiting: number }): Promise<void> {
  await eventually(`${wanted.computing} runs computing and ${wanted.waiting} waiting for a CPU slot`, async () => {
    const seen = await cpuGauges(server);
    return seen.computing === wanted.computing && seen.waiting === wanted.waiting;
  }, { intervalMs: 10, attempts: 6000 });
}

// With one run per process, a run waiting for a slot holds its process: four runners carry
// A's three loops and B's run, so only the first part runs there.
for (const [label, args, again] of [
  ['many runs per runner', ['--runner-pool-size', '1'], true],
  ['runs_per_runner 1', ['--runner-pool-size', '4', '--runs-per-runner', '1'], false],
] as const) {
  test(`${label}: token A's runaways past the slots wait for one; token B's brief run starts at once and returns while all of A's are in flight`, async () => {
    // No grace at the stop: A's loops still in flight end at once instead of burning two cores for 5 s.
    const server = await startServer({ args: ['--max-computing-runs', '2', '--shutdown-grace', '0', ...args], config: { max_execution_time: 120 } });
    const runaways: Pending[] = [];
    try {
      await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
      for (let i = 0; i < 3; i++) runaways.push(start(server, server.adminToken, RUNAWAY));
      // Two slots: two of A's loops compute, the third waits for a slot.
      await until(server, { computing: 2, waiting: 1 });
      const brief = await execute(server, server.userToken, BRIEF);
      assert.deepEqual([brief.error, brief.result], [null, '49995000']);
      assert.deepEqual(
        runaways.map((run) => run.settled),
        [false, false, false],
        "none of A's runs has ended",
      );
      // B went past A's waiting run: that one still has not started.
      assert.deepEqual(await cpuGauges(server), { computing: 2, waiting: 1 });
      if (!again) return;
      // A, above its share, waits again with a brief run of its own; B's next starts at once.
      const aBrief = start(server, server.adminToken, BRIEF);
      await until(server, { computing: 2, waiting: 2 });
      assert.equal((await execute(server, server.userToken, BRIEF)).result, '49995000');
      assert.equal(aBrief.settled, false);
    } finally {
      await server.stop();
      await Promise.all(runaways.map((run) => run.reply));
    }
  });
}

describe('a run that waits holds no CPU slot', () => {
  let server: TestServer;
  let far: http.Server;
  let port = 0;
  const held: http.ServerResponse[] = [];
  const arrived: string[] = [];
  before(async () => {
    far = http.createServer((req, res) => {
      arrived.push(req.url ?? '');
      if (req.url?.startsWith('/hold')) held.push(res);
      else res.end('ok');
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    port = (far.address() as AddressInfo).port;
    // No grace at the stop: the timer run still in flight is cancelled at once.
    server = await startServer({ args: ['--allow-localhost', '--max-computing-runs', '1', '--shutdown-grace', '0'], runners: 1, config: { max_execution_time: 120 } });
    await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  });
  after(async () => {
    await server.stop();
    far.closeAllConnections();
    far.close();
  });

  test('with one slot, runs parked on a synchronous call, a fetch and a timer that never fires hold none; a brief run computes meanwhile; each reply gets the slot in turn', async () => {
    const sync = start(server, server.adminToken, `import * as http from "svc:http";\nexport function main() { return http.get("http://127.0.0.1:${port}/hold/sync").body; }`);
    const fetched = start(server, server.adminToken, `export async function main() { return await (await fetch("http://127.0.0.1:${port}/hold/fetch")).text(); }`);
    const timer = start(server, server.adminToken, `export async function main() { await fetch("http://127.0.0.1:${port}/timer-set"); await new Promise((resolve) => setTimeout(resolve, 3_600_000)); }`);
    await eventually('the three parked runs to reach the far end', () => ['/hold/sync', '/hold/fetch', '/timer-set'].every((url) => arrived.includes(url)), { intervalMs: 10, attempts: 6000 });
    // All three wait: none computes, none waits for the one slot.
    await until(server, { computing: 0, waiting: 0 });
    assert.equal((await execute(server, server.userToken, BRIEF)).result, '49995000');
    assert.equal((await execute(server, server.adminToken, BRIEF)).result, '49995000');
    for (const response of held.splice(0)) response.end('released');
    assert.deepEqual([(await sync.reply)?.result, (await fetched.reply)?.result], ['released', 'released']);
    assert.equal(timer.settled, false, 'the timer has not fired');
    await until(server, { computing: 0, waiting: 0 });
  });
});
