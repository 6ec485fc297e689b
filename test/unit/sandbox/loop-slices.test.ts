// Bursts of work spread over the event loop's turns (sandbox/loop-slices.ts): what waits is
// begun in order, at most a bounded number of pieces per turn, and a piece whose work used
// the slice's time sends the next to a later turn; I/O that arrives meanwhile (a message on a
// MessageChannel, standing in for a /healthz request) is served in between. Proved by order,
// not by clocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sliceWithRoom, startInSlice } from '../../../sandbox/loop-slices';

/** Waits until every piece queued so far has been begun (the queue drains within a few turns here). */
async function drained(): Promise<void> {
  for (let i = 0; i < 20; i++) await nextTurn();
}

test('a burst of 200 requests is resumed at most 64 per turn, in order, with other callbacks served in between', async () => {
  await drained();
  const resumed: number[] = [];
  const waits: Array<Promise<void>> = [];
  let atOnce = 0;
  for (let i = 0; i < 200; i++) {
    const slice = sliceWithRoom();
    if (slice === null) {
      atOnce++;
      continue;
    }
    waits.push(slice.then(() => void resumed.push(i)));
  }
  let resumedAtProbe = -1;
  setImmediate(() => (resumedAtProbe = resumed.length));
  await Promise.all(waits);
  assert.ok(atOnce >= 1 && atOnce <= 64, `${atOnce} went on at once`);
  assert.ok(resumedAtProbe >= 1 && resumedAtProbe <= 64, `${resumedAtProbe} were resumed before the callback queued after them`);
  assert.deepEqual(resumed, Array.from({ length: 200 - atOnce }, (_, k) => atOnce + k));
});

test('a resumed piece whose work used the slice sends the next piece to a later turn, after I/O', async () => {
  await drained();
  const order: string[] = [];
  const { port1, port2 } = new MessageChannel();
  port2.on('message', () => order.push('I/O'));
  // Fill this turn's slice so that both pieces wait.
  while (sliceWithRoom() === null) order.length = 0;
  const first = sliceWithRoom()!.then(() => {
    order.push('first');
    const start = performance.now();
    while (performance.now() - start < 6); // more than a slice's 5 ms of work
    port1.postMessage('healthz');
  });
  const second = sliceWithRoom()!.then(() => void order.push('second'));
  await Promise.all([first, second]);
  port2.close();
  assert.deepEqual(order, ['first', 'I/O', 'second']);
});

test('call starts and requests share one queue: begun in the order they came', async () => {
  await drained();
  const order: string[] = [];
  while (sliceWithRoom() === null);
  startInSlice(() => order.push('start A'));
  const request = sliceWithRoom()!.then(() => void order.push('request B'));
  startInSlice(() => order.push('start C'));
  await request;
  await drained();
  assert.deepEqual(order, ['start A', 'request B', 'start C']);
});
