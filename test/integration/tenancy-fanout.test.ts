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
import { aHeldWhileBAnswers, HeldRequests } from '../support/held-fanout';

const FANOUT_RUNS = 6;
const FANOUT = 64;

let server: TestServer;
let tenants: FarEndTenants;
let farUrl = '';
let other = '';
/** A's requests, held at the far end. */
const held = new HeldRequests(FANOUT_RUNS * FANOUT);

before(async () => {
  tenants = await startFarEndTenants((req, res) => {
    if (req.url === '/b') {
      res.end('b answered');
      return;
    }
    // A's requests are never answered.
    held.hold();
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
  await aHeldWhileBAnswers(tenants, held, { runs: FANOUT_RUNS, fanout: FANOUT, heldUrl: `${farUrl}/never/`, bProgram: B_PROGRAM.replace('URL', farUrl), bResult: B_ANSWER });
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
