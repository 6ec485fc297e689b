// Issue 36: host calls that one token's programs make in bulk never hold another token's
// runs. Token A's runs fan out fetches to a far end that never answers, and token B's runs
// still answer, right, while every one of A's requests is waiting there (shown by counts at
// the far end, never by clocks); then A's runs see each request fail. Large call arguments
// (parsed in a worker thread, off the server's event loop) arrive intact, strings and bytes,
// while B's runs answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { TestServer } from '../harness';
import { startFarEndTenants, type FarEndTenants } from '../support/tenants';

const FANOUT_RUNS = 6;
const FANOUT = 64;

let server: TestServer;
let tenants: FarEndTenants;
let farUrl = '';
let other = '';
/** A's requests waiting at the far end; resolved once all of them are there. */
let waiting = 0;
let allWaiting: () => void = () => {};
const allHere = new Promise<void>((resolve) => (allWaiting = resolve));

before(async () => {
  tenants = await startFarEndTenants((req, res) => {
    if (req.url === '/b') {
      res.end('b answered');
      return;
    }
    // A's requests are never answered.
    if (++waiting === FANOUT_RUNS * FANOUT) allWaiting();
  }, { name: 'fanout', extraYaml: 'typecheck: off\nvfs: per_session\n' });
  ({ server, other, farUrl } = tenants);
});
after(() => tenants?.stop());

function execute(token: string, code: string) {
  return tenants.execute(token, code);
}

const B_PROGRAM = 'export async function main() { let sum = 0; for (let i = 0; i < 100000; i++) sum += i % 7; return (await (await fetch("URL/b")).text()) + " " + sum; }';
const B_ANSWER = `b answered ${Array.from({ length: 100000 }, (_, i) => i % 7).reduce((a, b) => a + b, 0)}`;

test(`token B's runs answer right while token A's ${FANOUT_RUNS} runs x ${FANOUT} fetches wait on a far end that never answers`, async () => {
  const fanouts = Array.from({ length: FANOUT_RUNS }, () =>
    execute(server.userToken, `export async function main() { const all = await Promise.allSettled(Array.from({ length: ${FANOUT} }, (_, i) => fetch("${farUrl}/never/" + i))); return all.filter((a) => a.status === "rejected").length; }`),
  );
  let fanoutsAnswered = 0;
  for (const run of fanouts) void run.then(() => fanoutsAnswered++);
  await Promise.race([allHere, Promise.all(fanouts).then((replies) => assert.fail(`A's runs answered early: ${replies.map((r) => r.text.slice(0, 200)).join('; ')}`))]);

  for (let i = 0; i < 3; i++) {
    const b = await execute(other, B_PROGRAM.replace('URL', farUrl));
    assert.equal(b.json?.error, null, b.text);
    assert.equal(b.json.result, B_ANSWER);
  }
  assert.equal((await server.request('GET', '/healthz')).status, 200);
  assert.equal(fanoutsAnswered, 0, 'every A request still waits at the far end');

  // The far end drops A's connections: each of A's fetches fails, and each run says so.
  tenants.dropConnections();
  for (const reply of await Promise.all(fanouts)) {
    assert.equal(reply.json?.error, null, reply.text);
    assert.equal(reply.json.result, String(FANOUT));
  }
});

test('large call arguments (strings and bytes, either side of the size parsed inline) arrive intact while the other token\'s runs answer', async () => {
  // 100 kB is parsed on the event loop, 3 MB in a worker thread: both must give the same answer.
  const sizes = [100_000, 3_000_000];
  const expected = sizes.map((size) => {
    const text = Array.from({ length: size / 10 }, (_, i) => `é${String(i % 100_000).padStart(8, '0')}`).join('');
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31) & 0xff;
    return { chars: text.length, text: createHash('sha256').update(text).digest('hex'), bytes: createHash('sha256').update(bytes).digest('hex') };
  });
  const program = (size: number) => `import * as fs from "svc:fs";
export async function main() {
  const text = Array.from({ length: ${size / 10} }, (_, i) => "é" + String(i % 100000).padStart(8, "0")).join("");
  fs.writeText("/big.txt", text);
  const back = fs.readText("/big.txt");
  const bytes = new Uint8Array(${size});
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
  const hex = (d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
  return { chars: back.length, text: hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(back))), bytes: hex(await crypto.subtle.digest("SHA-256", bytes)) };
}`;
  const large = sizes.map((size) => execute(server.userToken, program(size)));
  const b = await execute(other, 'export function main() { return 6 * 7; }');
  assert.equal(b.json?.error, null, b.text);
  assert.equal(b.json.result, '42');
  const replies = await Promise.all(large);
  replies.forEach((reply, i) => {
    assert.equal(reply.json?.error, null, reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), expected[i]);
  });
});
