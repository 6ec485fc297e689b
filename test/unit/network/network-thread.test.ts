// The network thread (src/network/thread) against a real loopback far end and the real built
// worker: bodies arrive intact through its flow control, an exchange keeps its body cap, limit
// and redirect answers in the thread, cancelling a request closes its
// connection at the far end, and a thread that runs out of memory or stops fails exactly the
// requests it had in flight, with an error saying so, closes their connections, and the next
// request is sent by a new thread. Stand-ins only count and hold; nothing waits on a clock.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { NetworkThread, NetworkThreadLostError, type FromNetwork } from '../../../src/network';

const FAILING_WORKER = new URL('../../../fixtures/network/failing-network-worker.mjs', import.meta.url);
const BODY = Buffer.alloc(6 * 1024 * 1024 + 123);
for (let i = 0; i < BODY.length; i++) BODY[i] = (i * 7) & 0xff;

/** A far end: `/body` answers BODY, `/answer` a word, anything else is held open (counted, and counted again when its socket closes). */
function farEnd() {
  let held = 0;
  let closed = 0;
  const waiters: Array<{ count: () => number; n: number; resolve: () => void }> = [];
  const check = () => {
    for (const w of waiters.splice(0)) (w.count() >= w.n ? w.resolve() : waiters.push(w));
  };
  const until = (count: () => number, n: number) => new Promise<void>((resolve) => {
    waiters.push({ count, n, resolve });
    check();
  });
  const server = http.createServer((req, res) => {
    if (req.url === '/body') return void res.end(BODY);
    if (req.url === '/answer') return void res.end('fine');
    if (req.url === '/moved') return void res.writeHead(302, { location: '/answer' }).end('moved');
    held++;
    req.socket.once('close', () => {
      closed++;
      check();
    });
    check();
  });
  return {
    server,
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    counts: () => ({ held, closed }),
    held: (n: number) => until(() => held, n),
    closed: (n: number) => until(() => closed, n),
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const stops: Array<{ reason: string; lost: number }> = [];
const thread = new NetworkThread({
  file: FAILING_WORKER,
  heapMb: 64,
  grants: { allowLocalhost: true, allowPrivate: false, allowIp: [] },
  hosts: {},
  onBlocked: () => {},
  countConnection: () => {},
  onStopped: (reason, lost) => stops.push({ reason, lost }),
});
const far = farEnd();
const origin = await far.listen();
after(async () => {
  far.stop();
  await thread.close();
});

const get = (path: string, signal?: AbortSignal) => thread.request({ origin, path, method: 'GET', signal });

test('a 6 MiB body arrives intact through the thread, piece by piece', async () => {
  const response = await get('/body');
  assert.equal(response.statusCode, 200);
  const hash = createHash('sha256');
  for await (const chunk of response.body) hash.update(chunk as Buffer);
  assert.equal(hash.digest('hex'), createHash('sha256').update(BODY).digest('hex'));
});

/** One exchange the thread carries out: what arrives, up to its end, failure or redirect head (pieces acknowledged). */
function exchange(path: string, limits: { limitMs: number; maxBytes: number; redirects: boolean }): Promise<FromNetwork[]> {
  return new Promise((resolve, reject) => {
    const seen: FromNetwork[] = [];
    const id = thread.exchange({ origin, path, method: 'GET', headers: {}, exchange: limits }, {
      receive(message) {
        seen.push(message);
        if (message.t === 'data') thread.acknowledge(id, message.bytes.byteLength);
        if (message.t === 'end' || message.t === 'fail' || (message.t === 'head' && message.redirect)) resolve(seen);
      },
      lost: reject,
    }, null);
  });
}

test('an exchange: the thread keeps its body cap, its limit and reads a redirect answer away', async () => {
  const whole = await exchange('/body', { limitMs: 60_000, maxBytes: BODY.length, redirects: true });
  assert.equal(whole.filter((m) => m.t === 'data').reduce((n, m) => n + (m as { bytes: ArrayBuffer }).bytes.byteLength, 0), BODY.length);
  assert.equal(whole.at(-1)!.t, 'end');

  const over = await exchange('/body', { limitMs: 60_000, maxBytes: BODY.length - 1, redirects: true });
  // `allowed` (connections opened since the last count) depends on whether the first exchange's
  // connection was back in the pool yet, so only the failure itself is compared.
  const overEnd = over.at(-1) as { t: string; error?: unknown };
  assert.deepEqual([overEnd.t, overEnd.error], ['fail', { kind: 'too_large', message: 'the body is over its cap' }]);

  const moved = await exchange('/moved', { limitMs: 60_000, maxBytes: 1024, redirects: true });
  assert.equal(moved.length, 1);
  assert.deepEqual([moved[0].t, (moved[0] as { status: number }).status, (moved[0] as { redirect?: true }).redirect], ['head', 302, true]);
  const manual = await exchange('/moved', { limitMs: 60_000, maxBytes: 1024, redirects: false });
  assert.deepEqual(manual.map((m) => m.t), ['head', 'data', 'end']);

  // Held by the far end until the exchange's own limit ends it: the thread closes the connection.
  const { held, closed } = far.counts();
  const limited = await exchange('/held-limit', { limitMs: 50, maxBytes: 1024, redirects: true });
  assert.equal((limited.at(-1) as { error: { kind: string } }).error.kind, 'limit');
  await far.closed(closed + 1);
  assert.equal(far.counts().held, held + 1);
  assert.equal(thread.inFlight, 0);
});

test('cancelling a request closes its connection at the far end and rejects with the reason', async () => {
  const controller = new AbortController();
  const pending = get('/held/cancelled', controller.signal);
  await far.held(1);
  const reason = new Error('the run ended');
  controller.abort(reason);
  await assert.rejects(pending, (error) => error === reason);
  await far.closed(1);
  assert.equal(thread.inFlight, 0);
});

for (const [path, reason] of [
  ['/oom', /^ran out of memory \(network_thread_memory: 64 MB\)$/],
  ['/exit', /^stopped \(exit code 7\)$/],
] as const) {
  test(`a thread that ${path === '/oom' ? 'runs out of memory' : 'stops'} fails its requests in flight, closes their connections, and the next request gets a new thread`, async () => {
    const before = { stops: stops.length, ...far.counts() };
    const held = Array.from({ length: 5 }, (_, i) => get(`/held${path}/${i}`).then(() => 'answered', (error: Error) => error));
    await far.held(before.held + 5);
    const killer = get(path).then(() => 'answered', (error: Error) => error);
    for (const outcome of [...(await Promise.all(held)), await killer]) {
      assert.ok(outcome instanceof NetworkThreadLostError, String(outcome));
      assert.match(outcome.message, /^the server's network thread .+ and was replaced; this request was abandoned/);
    }
    assert.equal(stops.length, before.stops + 1);
    assert.match(stops.at(-1)!.reason, reason);
    assert.equal(stops.at(-1)!.lost, 6);
    // The dead thread's sockets are closed: the far end sees every held connection go.
    await far.closed(before.closed + 5);
    const response = await get('/answer');
    assert.equal(await response.body.text(), 'fine');
  });
}
