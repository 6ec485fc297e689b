// deadlineSignal: aborts on time even when a garbage collection runs before the time is up
// (Node 20's AbortSignal.any over AbortSignal.timeout never aborted then), follows its first
// source to abort, and after release() neither fires nor keeps listeners on its sources.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import { deadlineSignal } from '../../../src/network';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

// The limit's timer does not keep a process alive (as AbortSignal.timeout's does not): this
// one keeps the test's alive while it waits.
const keepAlive = setInterval(() => {}, 1_000);
after(() => clearInterval(keepAlive));

test('the time limit fires after a garbage collection, with a TimeoutError', async () => {
  const source = new AbortController();
  const { signal } = deadlineSignal([source.signal], 50);
  const aborted = once(signal, 'abort');
  gc();
  gc();
  await aborted;
  assert.equal((signal.reason as DOMException).name, 'TimeoutError');
});

test('the first source to abort wins, with its reason; undefined sources are skipped', async () => {
  const first = new AbortController();
  const second = new AbortController();
  const { signal } = deadlineSignal([undefined, first.signal, second.signal], 60_000);
  first.abort('client left');
  second.abort('server stopping');
  assert.equal(signal.aborted, true);
  assert.equal(signal.reason, 'client left');
});

test('a source already aborted aborts it at once', () => {
  const { signal } = deadlineSignal([AbortSignal.abort('gone')], 60_000);
  assert.equal(signal.reason, 'gone');
});

test('release drops the timer and the listeners: nothing aborts afterwards', async () => {
  const source = new AbortController();
  let added = 0;
  let removed = 0;
  const add = source.signal.addEventListener.bind(source.signal);
  const remove = source.signal.removeEventListener.bind(source.signal);
  source.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => (added++, add(...args));
  source.signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => (removed++, remove(...args));
  const deadline = deadlineSignal([source.signal], 20);
  deadline.release();
  assert.equal(added, 1);
  assert.equal(removed, 1);
  source.abort('late');
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(deadline.signal.aborted, false);
});

test('a custom onTimeout decides how the controller aborts', async () => {
  const { signal } = deadlineSignal([], 10, (controller) => controller.abort('my reason'));
  await once(signal, 'abort');
  assert.equal(signal.reason, 'my reason');
});
