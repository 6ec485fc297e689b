// Runs parked for approval hold no run slot, without clocks: one token's runs parked on
// approvals fill what max_runs_in_flight would allow, and the other token's runs still start
// together (a far end that answers only when three of them wait at once: were the parked
// runs counted, the other token would get two slots and the third run would never start);
// parked runs are bounded apart by max_runs_parked, and a run past it waits with its isolate
// and still completes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestServer } from '../harness';
import { metricValue, startWithOther } from '../support/tenants';
import { eventually } from '../support/wait';

let far: http.Server;
let port = 0;
/** Requests to /gather held until GATHERED of them wait; then all are answered. */
const GATHERED = 3;
let held: http.ServerResponse[] = [];

const GATED = 'name: gated\nallow_insecure_http: true\ndefault: allow\npermissions:\n  main:\n    - capability: http.post\n      action: ask-human\n';
const ASYNC = { Prefer: 'respond-async' };

before(async () => {
  far = http.createServer((req, res) => {
    if (!req.url?.startsWith('/gather')) {
      res.end(`paid ${req.url}`);
      return;
    }
    held.push(res);
    if (held.length < GATHERED) return;
    for (const waiting of held) waiting.end('together');
    held = [];
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  port = (far.address() as AddressInfo).port;
});
after(() => {
  far.closeAllConnections();
  far.close();
});

const payProgram = (i: number) => `export async function main() { return await (await fetch("http://127.0.0.1:${port}/pay/${i}", { method: "POST", body: "x" })).text(); }`;

async function startParked(server: TestServer, count: number): Promise<string[]> {
  await server.request('POST', '/v1/blueprints', { body: { yaml: GATED } });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const started = await server.request('POST', '/v1/execute', { token: server.userToken, headers: ASYNC, body: { blueprint: 'gated', code: payProgram(i) } });
    assert.equal(started.status, 202, started.text);
    ids.push(started.json.execution_id);
  }
  return ids;
}

async function approveAll(server: TestServer, count: number): Promise<void> {
  const pending = await eventually(`${count} pending approvals`, async () => {
    const listed = (await server.request('GET', '/v1/approvals')).json.approvals as Array<{ approval_id: string }>;
    return listed.length >= count ? listed : null;
  });
  for (const approval of pending) {
    const approved = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'approve' } });
    assert.equal(approved.status, 200, approved.text);
  }
}

async function resultsOf(server: TestServer, ids: string[]): Promise<string[]> {
  const results: string[] = [];
  for (const id of ids) {
    const record = await eventually(`run ${id} finished`, async () => {
      const got = await server.request('GET', `/v1/runs/${id}?wait=30`, { token: server.userToken });
      return got.json.state === 'finished' ? got.json : null;
    });
    assert.equal(record.result.error, null, JSON.stringify(record.result));
    results.push(record.result.result);
  }
  return results;
}

test("two tokens: one token's runs parked on approvals hold no run slot; the other token's three runs start together under max_runs_in_flight 4", { timeout: 240_000 }, async () => {
  const { server, other } = await startWithOther({ args: ['--allow-localhost'], config: { max_runs_in_flight: 4 } });
  try {
    const ids = await startParked(server, 4);
    await eventually('4 runs parked', async () => (await metricValue(server, 'svc_runs_parked')) === 4);
    assert.equal((await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_runs_in_flight_per_token"}')) ?? 0, 0, 'parked runs are not in flight');
    assert.equal(await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_runs_parked"}'), 4);
    const gathered = await Promise.all(
      Array.from({ length: GATHERED }, () => server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'gated', code: `export async function main() { return await (await fetch("http://127.0.0.1:${port}/gather")).text(); }` } })),
    );
    for (const reply of gathered) assert.equal(reply.json.result, 'together', reply.text);
    await approveAll(server, 4);
    assert.deepEqual(await resultsOf(server, ids), ids.map((_, i) => `paid /pay/${i}`));
  } finally {
    await server.stop();
  }
});

test('max_runs_parked 1: the second waiting run keeps its isolate (counted as a refusal naming the setting) and both complete once approved', { timeout: 240_000 }, async () => {
  const { server } = await startWithOther({ args: ['--allow-localhost'], config: { max_runs_parked: 1 } });
  try {
    const ids = await startParked(server, 2);
    await eventually('the refusal counted', async () => (await metricValue(server, 'svc_token_quota_refusals_total{token="harness",quota="max_runs_parked"}')) === 1);
    // The first run holds its place from the moment its runner is asked to park it; it is
    // counted as parked only once the runner has ended its isolate, which may come later.
    await eventually('the first run parked', async () => (await metricValue(server, 'svc_runs_parked')) === 1);
    assert.ok(server.logs({ msg: 'a run waiting for a person could not park' }).some((record) => /max_runs_parked 1/.test(record.reason ?? '')));
    await approveAll(server, 2);
    assert.deepEqual(await resultsOf(server, ids), ['paid /pay/0', 'paid /pay/1']);
  } finally {
    await server.stop();
  }
});
