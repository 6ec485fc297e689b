// Issue 36: a request's exchange is owned by the network thread (its limit, body cap and
// redirect answers), and the server decides every redirect hop. A hop denied by policy is
// refused with the same error and audit line as before; token A's runs saturate the thread
// with redirected fetches that end at a far end that never answers, and token B's fetches,
// redirected too, answer right meanwhile (shown by counts at the far end, never by clocks).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFarEndTenants, type FarEndTenants } from '../support/tenants';
import { aHeldWhileBAnswers, HeldRequests } from '../support/held-fanout';

const FANOUT_RUNS = 4;
const FANOUT = 64;

let tenants: FarEndTenants;
/** A's second hops, held at the far end. */
const held = new HeldRequests(FANOUT_RUNS * FANOUT);
const denied: string[] = [];

before(async () => {
  tenants = await startFarEndTenants((req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/hop/')) {
      // Redirect answers with a body the thread reads away.
      res.writeHead(302, { location: url.replace('/hop/', '/') });
      res.end('moved');
    } else if (url === '/b') res.end('b answered');
    else if (url.startsWith('/denied')) {
      denied.push(url);
      res.end('must not be reached');
    } else if (url.startsWith('/never/')) held.hold();
    else res.end('?');
  }, { name: 'exchange', extraYaml: 'typecheck: off\npermissions:\n  main:\n    - {capability: http.get, filter: \'path == "/denied"\', action: deny}\n' });
});
after(() => tenants?.stop());

test('a redirect hop denied by policy is refused with the decision on record; nothing reaches the denied path', async () => {
  const program = `import * as http from "svc:http";
export async function main() {
  const attempt = async (f) => { try { return await f(); } catch (e) { return e.name + ": " + e.message; } };
  return [
    await attempt(async () => (await fetch("${tenants.farUrl}/hop/denied")).text()),
    await attempt(() => http.get("${tenants.farUrl}/hop/denied").body),
    await attempt(async () => { const r = await fetch("${tenants.farUrl}/hop/b"); return r.status + " " + r.redirected + " " + await r.text(); }),
    await attempt(async () => { const r = await fetch("${tenants.farUrl}/hop/b", { redirect: "manual" }); return r.status + " " + r.headers.get("location"); }),
  ];
}`;
  const reply = await tenants.execute(tenants.server.userToken, program);
  assert.equal(reply.json?.error, null, reply.text);
  const results: string[] = JSON.parse(reply.json.result);
  assert.match(results[0], /permission denied: caller=main capability=http\.get/, results[0]);
  assert.match(results[1], /permission denied: caller=main capability=http\.get/, results[1]);
  assert.equal(results[2], '200 true b answered');
  assert.equal(results[3], '302 /b');
  // The redirect hop is judged again: its denial is on record, with the hop's path.
  const rows = tenants.server.audit({ type: 'decision', execution_id: reply.json.execution_id, capability: 'http.get', decision: 'deny' });
  assert.deepEqual(rows.map((r) => r['context.path']), ['/denied', '/denied']);
  assert.deepEqual(denied, [], 'the denied path was never reached');
});

test(`token B's redirected fetches answer right while token A's ${FANOUT_RUNS} runs x ${FANOUT} redirected fetches wait on a far end that never answers`, async () => {
  await aHeldWhileBAnswers(tenants, held, {
    runs: FANOUT_RUNS,
    fanout: FANOUT,
    heldUrl: `${tenants.farUrl}/hop/never/`,
    bProgram: `export async function main() { const r = await fetch("${tenants.farUrl}/hop/b"); return r.redirected + " " + (await r.text()); }`,
    bResult: 'true b answered',
  });
});
