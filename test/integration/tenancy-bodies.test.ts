// Issue 36: large fetch bodies travel from the server to the runner as binary, in bounded
// chunks, so one token reading large bodies never holds another token's runs or /healthz.
// Token A's runs read 4 MiB bodies that the far end holds mid-stream until token B's
// request reaches it: B's run and /healthz answer while A's bodies are in flight (shown by
// order, never by clocks), then A's bodies arrive intact (SHA-256 digests). A body larger
// than the run's memory limit ends the run as memory_exhausted instead of being copied in.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { TestServer } from '../harness';
import { startFarEndTenants, type FarEndTenants } from '../support/tenants';

/** Over four chunks of the wire (REPLY_CHUNK_BYTES), the last one partial. */
const BODY_BYTES = 4 * 1024 * 1024 + 12_344;
const HALF = 2 * 1024 * 1024;
const READERS = 3;
const CAP_BYTES = 52_428_800;

let server: TestServer;
let tenants: FarEndTenants;
let farUrl = '';
let other = '';
/** Not all one byte value: a chunk lost, doubled or reordered changes the digest. */
const body = Buffer.alloc(BODY_BYTES);
for (let i = 0; i < BODY_BYTES; i += 4) body.writeUInt32LE((i * 2654435761) >>> 0, i);
const bodyDigest = createHash('sha256').update(body).digest('hex');

/** A's requests that have their first half; settled once READERS of them do. */
const heldBodies: http.ServerResponse[] = [];
let allHeld: () => void = () => {};
const readersHeld = new Promise<void>((resolve) => (allHeld = resolve));
/** B's request reached the far end. */
let bArrived: () => void = () => {};
const bHere = new Promise<void>((resolve) => (bArrived = resolve));

before(async () => {
  tenants = await startFarEndTenants((req, res) => {
    if (req.url === '/b') {
      bArrived();
      res.end('b answered');
      return;
    }
    if (req.url === '/cap') {
      res.writeHead(200, { 'content-length': String(CAP_BYTES) });
      res.end(Buffer.alloc(CAP_BYTES, 7));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BODY_BYTES) });
    res.write(body.subarray(0, HALF));
    heldBodies.push(res);
    if (heldBodies.length === READERS) allHeld();
  }, { name: 'bodies', extraYaml: 'typecheck: off\n' });
  ({ server, other, farUrl } = tenants);
});
after(() => tenants?.stop());

function execute(token: string, code: string) {
  return tenants.execute(token, code);
}

const DIGEST_PROGRAM = (url: string) => `export async function main() {
  const bytes = new Uint8Array(await (await fetch("${url}")).arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return { size: bytes.byteLength, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") };
}`;

test("token B's run and /healthz answer while token A's large bodies are held mid-stream; A's bodies then arrive intact", async () => {
  const readers = Array.from({ length: READERS }, (_, i) => execute(server.userToken, DIGEST_PROGRAM(`${farUrl}/a/${i}`)));
  let readersAnswered = 0;
  for (const reader of readers) void reader.then(() => readersAnswered++);
  // A run that answers before its body is complete cannot have read it: fail at once.
  await Promise.race([readersHeld, Promise.all(readers).then((replies) => assert.fail(`A's runs answered early: ${replies.map((r) => r.text.slice(0, 200)).join('; ')}`))]);

  // Every A body is half sent and held: B's run reaches the far end and answers.
  const b = await execute(other, `export async function main() { return await (await fetch("${farUrl}/b")).text(); }`);
  await bHere;
  assert.equal(b.status, 200, b.text);
  assert.equal(b.json.error, null, b.text);
  assert.equal(b.json.result, 'b answered');
  const health = await server.request('GET', '/healthz');
  assert.equal(health.status, 200, health.text);
  assert.equal(readersAnswered, 0, 'no A body was complete, so no A run can have answered');

  for (const res of heldBodies) res.end(body.subarray(HALF));
  for (const reply of await Promise.all(readers)) {
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error, null, reply.text);
    assert.deepEqual(JSON.parse(reply.json.result), { size: BODY_BYTES, sha256: bodyDigest });
  }
});

test('a body larger than the memory the run has left ends it as memory_exhausted; the next run is fine', async () => {
  const over = await execute(other, `export async function main() { const r = await fetch("${farUrl}/cap"); return (await r.arrayBuffer()).byteLength; }`);
  assert.equal(over.status, 200, over.text);
  assert.equal(over.json.error?.kind, 'memory_exhausted', over.text);
  const next = await execute(other, 'export function main() { return 1 + 1; }');
  assert.equal(JSON.parse(next.json.result), 2, next.text);
});
