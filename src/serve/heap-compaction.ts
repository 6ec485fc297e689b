// The server's main-thread heap compacted when it has become fragmented, not at every full
// collection. V8 compacts only its most fragmented pages, so over many new programs the heap
// settled at twice what it kept alive and kept rising (bench/PROFILE.md, round 28); compacting
// at every full collection (`--compact-on-every-full-gc`) kept it level, but made every full
// collection under load move the whole heap: 94-118 ms pauses while 150 runs fanned out
// 9,600 calls, where V8's own choice paused 17-42 ms (round 46). So after a full collection
// that left old space reserved well past what it kept alive, the next one (whenever V8 runs it)
// compacts everything, at most once a minute. The flag is process-wide: a worker thread's
// collection in between may compact too, which costs only that worker.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

/** Old space reserved past this times what it holds, plus the slack, is fragmented. */
const FRAGMENTED_RATIO = 1.25;
const SLACK_BYTES = 8 * 1024 * 1024;
/** At most one whole-heap compaction this often: a fragmented heap costs memory, a pause costs every request. */
export const MIN_COMPACTION_INTERVAL_MS = 60_000;

/** What the watch reads and sets of V8 (the real ones by default; a test gives its own). */
export interface HeapAccess {
  oldSpace: () => { size: number; used: number } | undefined;
  compactNextFullCollection: (on: boolean) => void;
  now: () => number;
}

const V8_HEAP: HeapAccess = {
  oldSpace: () => {
    const old = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
    return old && { size: old.space_size, used: old.space_used_size };
  },
  compactNextFullCollection: (on) => v8.setFlagsFromString(on ? '--compact-on-every-full-gc' : '--no-compact-on-every-full-gc'),
  now: Date.now,
};

/** Decides, after each full collection of the main thread, whether the next one compacts the whole heap. */
export class FragmentationWatch {
  private armed = false;
  private lastCompaction = -Infinity;

  constructor(private readonly heap: HeapAccess = V8_HEAP) {}

  /** Called after each full collection. */
  afterFullCollection(): void {
    if (this.armed) {
      this.heap.compactNextFullCollection(false);
      this.armed = false;
      this.lastCompaction = this.heap.now();
      return;
    }
    if (this.heap.now() - this.lastCompaction < MIN_COMPACTION_INTERVAL_MS) return;
    const old = this.heap.oldSpace();
    if (old && old.size > old.used * FRAGMENTED_RATIO + SLACK_BYTES) {
      this.heap.compactNextFullCollection(true);
      this.armed = true;
    }
  }

  /** Leaves V8 as it found it. */
  stop(): void {
    if (this.armed) this.heap.compactNextFullCollection(false);
    this.armed = false;
  }
}

/** Watches the main thread's full collections; returns the stop. */
export function compactWhenFragmented(): () => void {
  const watch = new FragmentationWatch();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) watch.afterFullCollection();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    watch.stop();
  };
}
