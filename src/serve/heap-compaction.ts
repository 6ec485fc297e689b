// The server's main-thread heap compacted when it has become fragmented, not at every full
// collection. V8 compacts only its most fragmented pages, so over many new programs the heap
// settled at twice what it kept alive and kept rising (bench/PROFILE.md, round 28); compacting
// at every full collection (`--compact-on-every-full-gc`) kept it level, but made every full
// collection under load move the whole heap: 94-118 ms pauses while 150 runs fanned out
// 9,600 calls, where V8's own choice paused 17-42 ms (round 46). So after a full collection
// that left old space reserved well past what it kept alive, the next one (whenever V8 runs it)
// compacts everything, at most once a minute. The flag is process-wide: a worker thread's
// collection in between may compact too, which costs only that worker.
// That next collection came while the server was busiest: in the fan-out (9,600 calls waiting)
// it was the longest pause left, 63-102 ms of evacuation (bench/PROFILE.md, round 51). So the
// whole-heap compaction waits for a quiet second of the event loop and is done then, by a
// collection of its own; past QUIET_WAIT_MS without one, V8's next full collection compacts.
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import v8 from 'node:v8';

/** Old space reserved past this times what it holds, plus the slack, is fragmented. */
const FRAGMENTED_RATIO = 1.25;
const SLACK_BYTES = 8 * 1024 * 1024;
/** At most one whole-heap compaction this often: a fragmented heap costs memory, a pause costs every request. */
export const MIN_COMPACTION_INTERVAL_MS = 60_000;
/** How often the event loop's load is read while a compaction waits, and below what share of that time busy it is quiet. */
export const QUIET_CHECK_MS = 1_000;
const QUIET_UTILIZATION = 0.2;
/** A compaction waits this long for a quiet second; after that the next full collection compacts, however busy. */
export const QUIET_WAIT_MS = 60_000;

/** What the watch reads and sets of V8 (the real ones by default; a test gives its own). */
export interface HeapAccess {
  oldSpace: () => { size: number; used: number } | undefined;
  compactNextFullCollection: (on: boolean) => void;
  now: () => number;
  /** The event loop's busy share since the last call (0-1). */
  loopUtilization: () => number;
  /** Runs a full collection now; false when the process cannot (no exposed `gc`). */
  collectNow: () => boolean;
  /** Calls `check` every `ms` until the returned cancel; never keeps the process alive. */
  every: (ms: number, check: () => void) => () => void;
}

const V8_HEAP: HeapAccess = {
  oldSpace: () => {
    const old = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
    return old && { size: old.space_size, used: old.space_used_size };
  },
  compactNextFullCollection: (on) => v8.setFlagsFromString(on ? '--compact-on-every-full-gc' : '--no-compact-on-every-full-gc'),
  now: Date.now,
  loopUtilization: (() => {
    let last = performance.eventLoopUtilization();
    return () => {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      return share;
    };
  })(),
  collectNow: () => {
    const collect = (globalThis as { gc?: () => void }).gc;
    if (!collect) return false;
    collect();
    return true;
  },
  every: (ms, check) => {
    const timer = setInterval(check, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Decides, after each full collection of the main thread, whether the next one compacts the whole heap. */
export class FragmentationWatch {
  private armed = false;
  private lastCompaction = -Infinity;
  /** Set while a compaction waits for a quiet second: stops that wait. */
  private stopWaiting: (() => void) | null = null;
  private waitingSince = 0;

  constructor(private readonly heap: HeapAccess = V8_HEAP) {}

  /** Called after each full collection. */
  afterFullCollection(): void {
    if (this.armed) {
      this.heap.compactNextFullCollection(false);
      this.armed = false;
      this.lastCompaction = this.heap.now();
      return;
    }
    if (this.stopWaiting || this.heap.now() - this.lastCompaction < MIN_COMPACTION_INTERVAL_MS) return;
    const old = this.heap.oldSpace();
    if (old && old.size > old.used * FRAGMENTED_RATIO + SLACK_BYTES) this.waitForQuiet();
  }

  private waitForQuiet(): void {
    this.waitingSince = this.heap.now();
    this.heap.loopUtilization();
    this.stopWaiting = this.heap.every(QUIET_CHECK_MS, () => {
      const quiet = this.heap.loopUtilization() < QUIET_UTILIZATION;
      if (!quiet && this.heap.now() - this.waitingSince < QUIET_WAIT_MS) return;
      this.endWait();
      if (quiet && this.compactNow()) return;
      // Never quiet (or no collection of our own): V8's next full collection compacts.
      this.heap.compactNextFullCollection(true);
      this.armed = true;
    });
  }

  /** Its own full collection, compacting everything (its report, later, falls within the interval). */
  private compactNow(): boolean {
    this.heap.compactNextFullCollection(true);
    try {
      if (!this.heap.collectNow()) return false;
      this.lastCompaction = this.heap.now();
      return true;
    } finally {
      this.heap.compactNextFullCollection(false);
    }
  }

  private endWait(): void {
    this.stopWaiting?.();
    this.stopWaiting = null;
  }

  /** Leaves V8 as it found it. */
  stop(): void {
    this.endWait();
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
