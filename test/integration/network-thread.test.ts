// Programs' outbound HTTP is sent from the server's network thread. Token A saturates it
// (runs fanning out fetches that the far end holds, and runs reading 4 MiB bodies at the same
// time) while token B's runs fetch and answer right; the thread reports A's requests in flight
// (svc_network_thread_requests) and the connections it allowed reach the server's metrics.
// Then the far end drops A's requests: each fails, and each body arrived intact. Counts at the
// far end, never clocks, say when everything is in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { TestServer } from '../harness';
import { metricValue, startFarEndTenants, type FarEndTenants } from '../support/tenants';

const HOLDING_RUNS = 4;
const FANOUT = 64;
const BODY_RUNS = 3;
const BODY = Buffer.alloc(4 * 1024 * 1024 + 4096);
for (let i = 0; i < BODY.length; i += 4096) BODY.writeUInt32LE(i, i);
const BODY_SHA = createHash('sha256').update(BODY).digest('hex');

let server: TestServer;
let tenants: FarEndTenants;
let farUrl = '';
let other = '';
let held = 0;
let bodiesStarted = 0;
let allHeld: () => void = () => {};
const everyoneHere = new Promise<void>((resolve) => (allHeld = resolve));
/** Bodies are sent in halves; the second halves go out once B has had its turn. */
const secondHalves: Array<() => void> = [];

before(async () => {
  tenants = await startFarEndTenants((req, res) => {
    if (req.url === '/b') return void res.end('b answered');
    if (req.url === '/big') {
      res.writeHead(200, { 'content-length': String(BODY.length) });
      res.write(BODY.subarray(0, BODY.length / 2));
      secondHalves.push(() => res.end(BODY.subarray(BODY.length / 2)));
      bodiesStarted++;
    } else held++;
    if (held === HOLDING_RUNS * FANOUT && bodiesStarted === BODY_RUNS) allHeld();
  }, { name: 'netthread', extraYaml: 'typecheck: off\n' });
  ({ server, other, farUrl } = tenants);
});
after(() => tenants?.stop());

test(`token B's fetches answer right while token A holds ${HOLDING_RUNS * FANOUT} requests and ${BODY_RUNS} 4 MiB bodies in the network thread`, async () => {
  const allowedBefore = (await metricValue(server, 'svc_outbound_connections_total{outcome="allowed"}')) ?? 0;
  const holding = Array.from({ length: HOLDING_RUNS }, () =>
    tenants.execute(server.userToken, `export async function main() { const all = await Promise.allSettled(Array.from({ length: ${FANOUT} }, (_, i) => fetch("${farUrl}/never/" + i))); return all.filter((a) => a.status === "rejected").length; }`),
  );
  const reading = Array.from({ length: BODY_RUNS }, () =>
    tenants.execute(server.userToken, `export async function main() { const bytes = await (await fetch("${farUrl}/big")).arrayBuffer(); const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join(""); }`),
  );
  await everyoneHere;

  // Every held request and every body is in flight in the network thread.
  assert.ok(((await metricValue(server, 'svc_network_thread_requests')) ?? 0) >= HOLDING_RUNS * FANOUT + BODY_RUNS);
  for (let i = 0; i < 3; i++) {
    const b = await tenants.execute(other, `export async function main() { return await (await fetch("${farUrl}/b")).text(); }`);
    assert.equal(b.json?.error, null, b.text);
    assert.equal(b.json.result, 'b answered');
  }
  assert.equal((await server.request('GET', '/healthz')).status, 200);
  // The thread's connection counts reach the server's metrics: A's and B's, at least one each.
  const allowed = (await metricValue(server, 'svc_outbound_connections_total{outcome="allowed"}')) ?? 0;
  assert.ok(allowed - allowedBefore >= HOLDING_RUNS * FANOUT + BODY_RUNS + 1, `allowed ${allowedBefore} -> ${allowed}`);

  for (const finish of secondHalves) finish();
  for (const reply of await Promise.all(reading)) {
    assert.equal(reply.json?.error, null, reply.text);
    assert.equal(reply.json.result, BODY_SHA);
  }
  tenants.dropConnections();
  for (const reply of await Promise.all(holding)) {
    assert.equal(reply.json?.error, null, reply.text);
    assert.equal(reply.json.result, String(FANOUT));
  }
  assert.equal(await metricValue(server, 'svc_network_thread_requests'), 0);
});
