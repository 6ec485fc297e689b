// Issue 36: a fetch body travels to the runner chunk by chunk as it arrives (the server reads
// the next chunk only once the runner's channel took the one before). A body of unknown
// length (chunked, many chunks) arrives intact (SHA-256 at the far end and in the program);
// a body over the 50 MiB cap fails with the documented error, whether it says its length or
// not; a fetch given up mid-body (the program aborts it, or its run ends) closes the far
// end's connection, and token B's run answers right while token A's body is held mid-stream.
// Order is shown by the far end's events, never by clocks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { TestServer } from '../harness';
import { startFarEndTenants, type FarEndTenants } from '../support/tenants';

const CAP_BYTES = 52_428_800;
const CHUNK = 16 * 1024;
/** About 190 chunks of the far end's writes, not a multiple of any chunk size. */
const STREAMED_BYTES = 3 * 1024 * 1024 + 4_321;
const CAP_ERROR = `is larger than ${CAP_BYTES} bytes; use http.download to stream it into a file`;

let server: TestServer;
let tenants: FarEndTenants;
let farUrl = '';
let other = '';

/** What the far end sent on /chunked, hashed as it went. */
let sentDigest = '';
/** Resolved when a held body's connection closes (by path). */
const closed = new Map<string, () => void>();
const closedPromise = (name: string) => new Promise<void>((resolve) => closed.set(name, resolve));
/** Resolved once a held body's first part is written (by path). */
const started = new Map<string, Promise<void>>();
const startedResolvers = new Map<string, () => void>();
for (const name of ['/held-abort', '/held-end', '/held-tenant']) started.set(name, new Promise<void>((resolve) => startedResolvers.set(name, resolve)));

before(async () => {
  tenants = await startFarEndTenants((req, res) => {
    const url = req.url ?? '';
    if (url === '/chunked') {
      // No content-length: the body's end is known only when it comes.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const hash = createHash('sha256');
      let left = STREAMED_BYTES;
      const next = () => {
        while (left > 0) {
          const part = randomBytes(Math.min(CHUNK, left));
          left -= part.length;
          hash.update(part);
          if (!res.write(part)) return void res.once('drain', next);
        }
        sentDigest = hash.digest('hex');
        res.end();
      };
      next();
      return;
    }
    if (url === '/over-chunked') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const part = Buffer.alloc(1024 * 1024, 1);
      let left = CAP_BYTES + 1;
      const next = () => {
        while (left > 0) {
          const piece = part.subarray(0, Math.min(part.length, left));
          left -= piece.length;
          if (!res.write(piece)) return void res.once('drain', next);
        }
        res.end();
      };
      res.on('close', () => (left = 0));
      next();
      return;
    }
    if (url === '/over-declared') {
      res.writeHead(200, { 'content-length': String(CAP_BYTES + 1) });
      res.write(Buffer.alloc(1024, 2));
      res.on('close', () => closed.get(url)?.());
      return;
    }
    if (url === '/ready-abort' || url === '/ready-end') {
      // Answers once the held body's first part is out: the program then gives up on it.
      void started.get(url === '/ready-abort' ? '/held-abort' : '/held-end')!.then(() => res.end('ready'));
      return;
    }
    if (url === '/b') {
      res.end('b answered');
      return;
    }
    if (started.has(url)) {
      res.writeHead(200, { 'content-length': String(8 * 1024 * 1024) });
      res.on('close', () => closed.get(url)?.());
      res.write(Buffer.alloc(256 * 1024, 3), () => startedResolvers.get(url)!());
      return;
    }
    res.statusCode = 404;
    res.end();
  }, { name: 'streams', args: ['--max-execution-memory', '200'] });
  ({ server, other, farUrl } = tenants);
});
after(() => tenants?.stop());

function execute(token: string, code: string) {
  return tenants.execute(token, code);
}

test('a chunked body of unknown length arrives intact (digest at the far end and in the program)', async () => {
  const reply = await execute(server.userToken, `export async function main() {
    const bytes = new Uint8Array(await (await fetch("${farUrl}/chunked")).arrayBuffer());
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return { size: bytes.byteLength, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") };
  }`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, reply.text);
  assert.deepEqual(JSON.parse(reply.json.result), { size: STREAMED_BYTES, sha256: sentDigest });
});

test('a body over the cap fails with the documented error, with or without a declared length; the run goes on', async () => {
  const declaredClosed = closedPromise('/over-declared');
  const probe = (path: string) => `try { await (await fetch("${farUrl}${path}")).arrayBuffer(); out.push("read"); } catch (e) { out.push(e.name + ": " + e.message); }`;
  const reply = await execute(server.userToken, `export async function main() {
    const out: string[] = [];
    ${probe('/over-chunked')}
    ${probe('/over-declared')}
    out.push(await (await fetch("${farUrl}/b")).text());
    return out;
  }`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, reply.text);
  const [chunked, declared, after] = JSON.parse(reply.json.result) as string[];
  assert.match(chunked, new RegExp(`^TypeError: fetch ${farUrl}/over-chunked failed: http: the response from ${farUrl} ${CAP_ERROR}`));
  assert.match(declared, new RegExp(`^TypeError: fetch ${farUrl}/over-declared failed: http: the response from ${farUrl} ${CAP_ERROR}`));
  assert.equal(after, 'b answered');
  // Refused on its declared length: the far end's connection is closed, not read to the end.
  await declaredClosed;
});

test('a fetch the program aborts mid-body closes the far end connection; the run answers', async () => {
  const held = closedPromise('/held-abort');
  const reply = await execute(server.userToken, `export async function main() {
    const controller = new AbortController();
    const body = fetch("${farUrl}/held-abort", { signal: controller.signal }).then((r) => r.arrayBuffer());
    await (await fetch("${farUrl}/ready-abort")).text();
    controller.abort();
    try { await body; return "read"; } catch (e) { return e.name; }
  }`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, reply.text);
  assert.equal(reply.json.result, 'AbortError');
  await held;
});

test("a run that ends while its fetch is mid-body closes the far end connection; token B's run answers meanwhile", async () => {
  const heldEnd = closedPromise('/held-end');
  const reply = await execute(server.userToken, `export async function main() {
    void fetch("${farUrl}/held-end").then((r) => r.arrayBuffer(), () => null);
    return await (await fetch("${farUrl}/ready-end")).text();
  }`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.result, 'ready');
  await heldEnd;

  // Token A holds a body mid-stream; token B's run reaches the far end and answers.
  const heldTenant = closedPromise('/held-tenant');
  const a = execute(server.userToken, `export async function main() { return (await (await fetch("${farUrl}/held-tenant")).arrayBuffer()).byteLength; }`);
  await started.get('/held-tenant');
  const b = await execute(other, `export async function main() { return await (await fetch("${farUrl}/b")).text(); }`);
  assert.equal(b.status, 200, b.text);
  assert.equal(b.json.error, null, b.text);
  assert.equal(b.json.result, 'b answered');
  // A's run is still waiting for its body: closing the far end ends it.
  tenants.dropConnections();
  await heldTenant;
  const ended = await a;
  assert.equal(ended.status, 200, ended.text);
  assert.notEqual(ended.json.error, null, 'a body cut short is an error, not a result');
});
