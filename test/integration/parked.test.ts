// A run whose timer is far ahead, or whose promise never settles while a timer is pending,
// is parked like any wait: it holds no runner and its runner serves other runs meanwhile.
// Proven without clocks: runs that each keep a timer 24 days ahead meet at a barrier of the
// far end on one runner process (they complete only if all are in flight at once) and
// return as soon as main settles; parked runs end by their time limit with its error.
// (What a parked run costs in CPU is measured, not asserted: BENCH_ONLY=parked npm run bench.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../harness';

/** No time limit: the barrier waits as long as the runs take to arrive. */
let server: TestServer;
/** A time limit of 1 s (the shortest): its runs wait it out, so it is the time they take. */
let limited: TestServer;
let far: http.Server;
let size = Infinity;
const waiting: http.ServerResponse[] = [];

before(async () => {
  far = http.createServer((_req, res) => {
    waiting.push(res);
    if (waiting.length >= size) for (const r of waiting.splice(0)) r.end('met');
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  server = await startServer({ runners: 1, args: ['--allow-localhost'] });
  limited = await startServer({ runners: 1, config: { max_execution_time: 1 } });
  for (const target of [server, limited]) {
    const created = await target.request('POST', '/v1/blueprints', { body: { yaml: 'name: parked\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n' } });
    assert.ok(created.status < 300, created.text);
  }
});
after(async () => {
  await server.stop();
  await limited.stop();
  far.closeAllConnections();
  far.close();
});

async function run(code: string, target = server) {
  const reply = await target.request('POST', '/v1/execute', { token: target.userToken, body: { blueprint: 'parked', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; error: { kind: string; message: string } | null };
}

test('runs each holding a timer far ahead are in flight together on one runner (a barrier of eight) and return when main settles', async () => {
  size = 8;
  const port = (far.address() as AddressInfo).port;
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      run(`export async function main() {
        setTimeout(() => { throw new Error("never fires"); }, 2147483647);
        setInterval(() => {}, 2000000000);
        return (await fetch("http://127.0.0.1:${port}/${i}")).text();
      }`),
    ),
  );
  assert.deepEqual(results.map((r) => [r.error, r.result]), Array(8).fill([null, 'met']));
});

test('runs awaiting a promise that never settles while a timer is pending far ahead are parked until their time limit, with its error', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, () => run('export async function main() { setTimeout(() => {}, 2000000000); await new Promise(() => {}); }', limited)));
  for (const result of results) {
    assert.equal(result.error?.kind, 'timeout', JSON.stringify(result));
    assert.match(result.error!.message, /time limit of 1 s \(max_execution_time\)/);
  }
  // The runner they were parked on serves the next run.
  assert.equal((await run('export function main() { return 6 * 7; }', limited)).result, '42');
});
