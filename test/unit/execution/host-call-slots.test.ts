// Host calls in flight server-wide and per token: calls past a bound wait (never fail),
// a token at its own bound waits while others go, and a token below its fair share
// starts past a full server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostCallSlots } from '../../../src/execution/host-call-slots';

/** A handler whose calls stay open until released; counts how many it has started. */
function heldHandler() {
  const open: Array<() => void> = [];
  const handle = () => new Promise<{ ok: true; fuel: number; value: unknown }>((resolve) => open.push(() => resolve({ ok: true, fuel: 0, value: null })));
  return { handle, open };
}

const call = (signal?: AbortSignal) => ({ module: 'm', op: 'o', args: [], fuelLeft: 0, ...(signal ? { signal } : {}) });
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('past max_host_calls_in_flight_per_token a token\'s calls wait, unsent; another token\'s start', async () => {
  const slots = new HostCallSlots({ total: 100, perToken: 2 });
  const a = heldHandler();
  const b = heldHandler();
  const calls = [0, 1, 2].map(() => slots.wrap('a', a.handle)(call()));
  await tick();
  assert.equal(a.open.length, 2);
  assert.deepEqual(Object.fromEntries(slots.perToken()), { a: { inFlight: 2, waiting: 1 } });
  void slots.wrap('b', b.handle)(call());
  await tick();
  assert.equal(b.open.length, 1);
  a.open.shift()!();
  await tick();
  assert.equal(a.open.length, 2, 'the waiting call started when one ended');
  for (const release of [...a.open.splice(0), ...b.open.splice(0)]) release();
  await Promise.all(calls);
});

test('a token below its fair share starts past a full server, up to twice it; a waiting call whose signal aborts leaves the queue', async () => {
  const slots = new HostCallSlots({ total: 2, perToken: 100 });
  const a = heldHandler();
  const b = heldHandler();
  for (let i = 0; i < 3; i++) void slots.wrap('a', a.handle)(call()).catch(() => {});
  await tick();
  assert.equal(a.open.length, 2);
  void slots.wrap('b', b.handle)(call());
  await tick();
  assert.equal(b.open.length, 1, 'b holds none of its share of 1');
  const abort = new AbortController();
  const abandoned = slots.wrap('b', b.handle)(call(abort.signal));
  abort.abort(new Error('gone'));
  await assert.rejects(abandoned, /gone/);
  assert.deepEqual(Object.fromEntries(slots.perToken()), { a: { inFlight: 2, waiting: 1 }, b: { inFlight: 1, waiting: 0 } });
});
