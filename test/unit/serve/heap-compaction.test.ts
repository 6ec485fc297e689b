// The main thread's heap is compacted whole when fragmented (src/serve/heap-compaction.ts),
// not at every full collection, and at most once a minute. The decision is driven here with
// old-space figures; the flag it sets is V8's own (`--compact-on-every-full-gc`), whose effect
// on the server's pauses and memory the benches measure (bench/PROFILE.md, round 46).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FragmentationWatch, MIN_COMPACTION_INTERVAL_MS, type HeapAccess } from '../../../src/serve/heap-compaction';

const MiB = 1024 * 1024;

function fakeHeap() {
  const state = { size: 40 * MiB, used: 36 * MiB, time: 0, flags: [] as boolean[] };
  const heap: HeapAccess = {
    oldSpace: () => ({ size: state.size, used: state.used }),
    compactNextFullCollection: (on) => state.flags.push(on),
    now: () => state.time,
  };
  return { state, heap };
}

test('a full collection leaving old space dense arms nothing; a fragmented one arms the next, which disarms after it', () => {
  const { state, heap } = fakeHeap();
  const watch = new FragmentationWatch(heap);
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [], '40 MiB reserved for 36 live is not fragmented');
  Object.assign(state, { size: 100 * MiB, used: 52 * MiB });
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true], '100 MiB reserved for 52 live: the next full collection compacts everything');
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true, false], 'after that one, V8 chooses its pages again');
});

test('at most one whole-heap compaction a minute, however fragmented; stop leaves the flag off', () => {
  const { state, heap } = fakeHeap();
  Object.assign(state, { size: 100 * MiB, used: 40 * MiB, time: 1_000 });
  const watch = new FragmentationWatch(heap);
  watch.afterFullCollection();
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true, false]);
  state.time += MIN_COMPACTION_INTERVAL_MS - 1;
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true, false], 'still within the minute');
  state.time += 1;
  watch.afterFullCollection();
  assert.deepEqual(state.flags, [true, false, true], 'a minute on, armed again');
  watch.stop();
  assert.deepEqual(state.flags, [true, false, true, false]);
});
