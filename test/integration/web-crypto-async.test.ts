// crypto.subtle's work is an asynchronous host call, like fetch: the program keeps running
// while the host hashes, the calls count against max_host_calls_in_flight, and the fuel
// charged does not depend on when the replies arrive. Proven without clocks: a digest stays
// pending however many microtask turns the program takes (the host's reply can only be
// delivered once the program yields), and with the ceiling held by requests a far end never
// answers, a digest fails at once naming the setting.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { startServer, type TestServer } from '../harness';

let server: TestServer;
/** Holds every request; counts them. */
let holding: http.Server;
let held = 0;
before(async () => {
  holding = http.createServer(() => void held++);
  await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
  server = await startServer({ runners: 1, args: ['--allow-localhost'], config: { max_host_calls_in_flight: 2 } });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\nallow_insecure_http: true\ndefault: allow\n' } });
  assert.ok(created.status < 300, created.text);
});
after(async () => {
  await server.stop();
  holding.closeAllConnections();
  holding.close();
});

async function run(code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; error: { kind: string; message: string } | null; execution_id: string };
}

const HEX = "const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');";
const LARGE = 'new Uint8Array(4 * 1024 * 1024).fill(7)';
const large = Buffer.alloc(4 * 1024 * 1024, 7);

test('a digest of a large buffer stays pending through a thousand microtask turns, then resolves to the right hash', async () => {
  const out = await run(`${HEX}
export async function main() {
  let settled = false;
  const pending = crypto.subtle.digest('SHA-256', ${LARGE}).then((d) => { settled = true; return d; });
  for (let i = 0; i < 1000; i++) await null;
  const before = settled;
  return { before, digest: hex(await pending) };
}`);
  assert.equal(out.error, null, JSON.stringify(out.error));
  assert.deepEqual(JSON.parse(out.result!), { before: false, digest: createHash('sha256').update(large).digest('hex') });
});

test('crypto.subtle calls count against max_host_calls_in_flight: with the ceiling held, a digest fails at once naming the setting; once room is made it resolves', async () => {
  const out = await run(`${HEX}
export async function main() {
  const stop = new AbortController();
  const holds = [1, 2].map((i) => fetch("http://127.0.0.1:${(holding.address() as AddressInfo).port}/hold/" + i, { signal: stop.signal }).catch((e) => e.name));
  let refused;
  try { await crypto.subtle.digest('SHA-1', new TextEncoder().encode('abc')); refused = 'resolved'; } catch (e) { refused = e.message; }
  stop.abort();
  const aborted = await Promise.all(holds);
  const after = hex(await crypto.subtle.digest('SHA-1', new TextEncoder().encode('abc')));
  return { refused, aborted, after };
}`);
  assert.equal(out.error, null, JSON.stringify(out.error));
  const result = JSON.parse(out.result!);
  assert.match(result.refused, /^crypto\.subtle\.digest: 2 host calls are already in flight in this run \(max_host_calls_in_flight\)/);
  assert.deepEqual(result.aborted, ['AbortError', 'AbortError']);
  assert.equal(result.after, 'a9993e364706816aba3e25717850c26c9cd0d89d');
});

test('errors keep their DOMException names; fuel is the same run after run', async () => {
  const code = `export async function main() {
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 128 }, false, ['encrypt', 'decrypt']);
  const iv = new Uint8Array(12);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new Uint8Array(64 * 1024)));
  sealed[0] ^= 1;
  const names = [];
  try { await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed); } catch (e) { names.push(e.name, e instanceof DOMException); }
  try { await crypto.subtle.digest('MD5', new Uint8Array(1)); } catch (e) { names.push(e.name); }
  await Promise.all([crypto.subtle.digest('SHA-256', new Uint8Array(100000)), crypto.subtle.digest('SHA-384', new Uint8Array(200000))]);
  return names;
}`;
  const first = await run(code);
  const second = await run(code);
  assert.equal(first.error, null, JSON.stringify(first.error));
  assert.deepEqual(JSON.parse(first.result!), ['OperationError', true, 'NotSupportedError']);
  const fuel = (id: string) => {
    const record = server.audit({ type: 'execution', event: 'finished', execution_id: id })[0];
    return [record.fuel, record.host_fuel];
  };
  assert.deepEqual(fuel(second.execution_id), fuel(first.execution_id));
});
