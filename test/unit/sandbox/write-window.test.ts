// The reply-bytes window: writes start in arrival order once they fit, a smaller later write
// never overtakes one waiting for room (a body's pieces would reach the runner out of order),
// and the bound holds while writes are pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteWindow } from '../../../sandbox/pool/write-window';

function pendingWrite(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => (finish = () => resolve(name)));
  return { run: () => (started.push(name), done), finish };
}

test('a small write waits behind a larger one that is waiting for room', async () => {
  const window = new WriteWindow(10);
  const started: string[] = [];
  const a = pendingWrite(started, 'a');
  const b = pendingWrite(started, 'b');
  const c = pendingWrite(started, 'c');
  const first = window.write(8, a.run);
  const second = window.write(6, b.run);
  const third = window.write(1, c.run);
  assert.deepEqual(started, ['a'], 'b (6) does not fit beside a (8); c (1) would, but waits behind b');
  assert.equal(window.bytesUnwritten, 8);
  a.finish();
  assert.equal(await first, 'a');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, ['a', 'b', 'c'], 'both start once a is written, in order');
  assert.equal(window.bytesUnwritten, 7);
  b.finish();
  c.finish();
  assert.deepEqual(await Promise.all([second, third]), ['b', 'c']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(window.bytesUnwritten, 0);
});

test('a write larger than the window goes alone; one that fails frees its bytes', async () => {
  const window = new WriteWindow(10);
  const started: string[] = [];
  const big = pendingWrite(started, 'big');
  const bigWritten = window.write(25, big.run);
  const small = pendingWrite(started, 'small');
  const smallWritten = window.write(1, small.run);
  assert.deepEqual(started, ['big']);
  big.finish();
  await bigWritten;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, ['big', 'small']);
  small.finish();
  await smallWritten;
  await assert.rejects(window.write(3, () => Promise.reject(new Error('channel closed'))), /channel closed/);
  assert.equal(window.bytesUnwritten, 0);
});
