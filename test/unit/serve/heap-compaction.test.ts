// The main thread's heap is compacted whole when fragmented (src/serve/heap-compaction.ts),
// not at every full collection, and at most once a minute: by a collection of its own in a
// quiet second of the event loop, else by V8's next one. The decision is driven here with
// old-space figures; the flag it sets is V8's own (`--compact-on-every-full-gc`), whose effect
// on the server's pauses and memory the benches measure (bench/PROFILE.md, round 46).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FragmentationWatch, MIN_COMPACTION_INTERVAL_MS, QUIET_WAIT_MS, type HeapAccess } from '../../../src/serve/heap-compaction';

const MiB = 1024 * 1024;

function fakeHeap() {
  const state = { size: 40 * MiB, used: 36 * MiB, time: 0, busy: 0, canCollect: true, flags: [] as boolean[], collections: 0, checks: [] as Array<() => void> };
  const heap: HeapAccess = {
    oldSpace: () => ({ size: state.size, used: state.used }),
    compactNextFullCollection: (on) => state.flags.push(on),
    now: () => state.time,
    loopUtilization: () => state.busy,
    collectNow: () => {
      if (state.canCollect) state.collections++;
      return state.canCollect;
    },
    every: (_ms, check) => {
      state.checks.push(check);
      return () => state.checks.splice(state.checks.indexOf(check), 1);
    },
  };
  /** One tick of every pending check. */
  const tick = () => [...state.checks].forEach((check) => check());
  return { state, heap, tick };
}

test('a fragmented heap is compacted by a collection of its own once the event loop is quiet', () => {
  const { state, heap, tick } = fakeHeap();
  const watch = new FragmentationWatch(heap);
  watch.afterFullCollection();
  assert.equal(state.checks.length, 0, '40 MiB reserved for 36 live is not fragmented');
  Object.assign(state, { size: 100 * MiB, used: 52 * MiB, busy: 0.9 });
  watch.afterFullCollection();
  tick();
  assert.deepEqual(state.flags, [], 'busy: the compaction waits');
  state.busy = 0.05;
  tick();
  assert.deepEqual(state.flags, [true, false], 'quiet: the flag is on for its own collection only');
  assert.equal(state.collections, 1);
  assert.equal(state.checks.length, 0, 'the wait is over');
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true, false], 'its own collection, reported later, arms nothing more');
});

test('never quiet: past the wait, V8\'s next full collection compacts, and the one after it chooses its pages again', () => {
  const { state, heap, tick } = fakeHeap();
  Object.assign(state, { size: 100 * MiB, used: 40 * MiB, busy: 0.9, time: 1_000 });
  const watch = new FragmentationWatch(heap);
  watch.afterFullCollection();
  state.time += QUIET_WAIT_MS - 1;
  tick();
  assert.deepEqual(state.flags, []);
  state.time += 1;
  tick();
  assert.deepEqual(state.flags, [true], 'armed for the next full collection');
  assert.equal(state.collections, 0);
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true, false]);
});

test('at most one whole-heap compaction a minute, however fragmented; stop ends a wait and leaves the flag off', () => {
  const { state, heap, tick } = fakeHeap();
  Object.assign(state, { size: 100 * MiB, used: 40 * MiB, time: 1_000 });
  const watch = new FragmentationWatch(heap);
  watch.afterFullCollection();
  tick();
  assert.deepEqual(state.flags, [true, false]);
  state.time += MIN_COMPACTION_INTERVAL_MS - 1;
  watch.afterFullCollection();
  assert.equal(state.checks.length, 0, 'still within the minute');
  state.time += 1;
  watch.afterFullCollection();
  assert.equal(state.checks.length, 1, 'a minute on, waiting again');
  watch.stop();
  assert.equal(state.checks.length, 0);
  state.canCollect = false;
  watch.afterFullCollection();
  tick();
  assert.deepEqual(state.flags, [true, false, true, false, true], 'without a collection of its own, the next full collection compacts');
  watch.stop();
  assert.deepEqual(state.flags, [true, false, true, false, true, false]);
});
