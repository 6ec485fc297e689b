// The V8 heap of every worker thread of the server, by what the thread is for (checker,
// compile, host, packages, ...): `svc_thread_heap_bytes` and the soak's output (issue 39).
// Node 20 cannot read another thread's heap statistics, so each worker entry calls
// reportThreadHeap once: it posts its statistics on a BroadcastChannel (no port of a pool is
// needed, piscina's included) every few seconds and when asked. The main thread keeps the
// latest report of each thread and forgets a thread that has not reported for a while (one
// that ended). With SVC_THREAD_HEAP_SNAPSHOTS=<dir> in the environment a worker writes a heap
// snapshot there when asked (writeThreadHeapSnapshots; bench/soak-hook.cjs on SIGUSR2).
import path from 'node:path';
import v8 from 'node:v8';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

const CHANNEL = 'svc:thread-heap';
/** How often a worker reports on its own: often enough for a scrape, rare enough to cost nothing (one statistics call). */
const REPORT_EVERY_MS = 2_000;
/** A thread silent this long has ended (or is stuck in one synchronous task; it shows again when it reports). */
const FORGET_AFTER_MS = 5 * REPORT_EVERY_MS;

/** One thread's V8 heap in bytes, as it last reported. */
export interface ThreadHeap {
  /** What the thread is for, a name an operator knows (checker, compile, host, packages, network). */
  thread: string;
  threadId: number;
  /** Bytes of live and not yet collected objects. */
  used: number;
  /** Bytes V8 reserved for the heap (what shows in the RSS). */
  total: number;
  /** The heap's limit (resourceLimits), past which the thread ends. */
  limit: number;
  /** Bytes V8 allocated with malloc beside the heap (compiler zones, for one). */
  malloced: number;
}

type Message = { ask: true } | { snapshot: string } | { heap: ThreadHeap };

function ownHeap(thread: string): ThreadHeap {
  const stats = v8.getHeapStatistics();
  return { thread, threadId, used: stats.used_heap_size, total: stats.total_heap_size, limit: stats.heap_size_limit, malloced: stats.malloced_memory };
}

/** Posts this thread's heap now (set by reportThreadHeap). */
let reportNow: (() => void) | null = null;

/** Reserved heap below which a worker never collects on its own account (its code and a job's working set). */
const COLLECT_FLOOR_BYTES = 16 * 1024 * 1024;
/** Growth of the reserved heap since the last collection before another: never a collection per job. */
const COLLECT_STEP_BYTES = 8 * 1024 * 1024;
/** What the thread's last full collection kept alive, and the heap it left reserved. */
let keptAfterCollection = 0;
let reservedAfterCollection = 0;

/**
 * Call after each job in a worker: when the thread's reserved heap has passed twice what its
 * last full collection kept, at least COLLECT_FLOOR_BYTES and COLLECT_STEP_BYTES more than
 * that collection left reserved, it collects its garbage now. A
 * worker's garbage otherwise stayed reserved: V8 collects an old generation only once it
 * passes a limit set for the largest job (a 2 MiB program's compile needs about 300 MiB), so
 * over 4,000 small compiles the two compile threads went 34 -> 96 MiB while they kept 7 MiB
 * alive, and a large compile left its 300 MiB reserved. Needs `gc`, which the server's
 * launcher exposes (--expose-gc); elsewhere (tests under tsx, the CLI) it does nothing.
 * Returns whether it collected.
 */
export function collectWhenBloated(): boolean {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (typeof collect !== 'function') return false;
  if (v8.getHeapStatistics().total_heap_size <= Math.max(COLLECT_FLOOR_BYTES, 2 * keptAfterCollection, reservedAfterCollection + COLLECT_STEP_BYTES)) return false;
  collect();
  const after = v8.getHeapStatistics();
  keptAfterCollection = after.used_heap_size;
  reservedAfterCollection = after.total_heap_size;
  reportNow?.();
  return true;
}

/** Call once in a worker thread's entry: the thread reports its heap under `thread` from now on. */
export function reportThreadHeap(thread: string): void {
  if (isMainThread || reportNow) return;
  const channel = new BroadcastChannel(CHANNEL);
  const report = () => channel.postMessage({ heap: ownHeap(thread) } satisfies Message);
  reportNow = report;
  channel.onmessage = (event) => {
    const message = (event as { data: Message }).data;
    if ('ask' in message) report();
    else if ('snapshot' in message) snapshot(thread, message.snapshot);
  };
  // Neither keeps the thread alive: a pool ends an idle worker as before.
  channel.unref();
  setInterval(report, REPORT_EVERY_MS).unref();
  report();
}

/** Writes this thread's heap snapshot when the operator asked for them (SVC_THREAD_HEAP_SNAPSHOTS names the folder). */
function snapshot(thread: string, name: string): void {
  const dir = process.env.SVC_THREAD_HEAP_SNAPSHOTS;
  if (!dir) return;
  try {
    v8.writeHeapSnapshot(path.join(dir, `${process.pid}-${thread}-${threadId}-${path.basename(name)}.heapsnapshot`));
  } catch {
    // A diagnostic: a full disk must not end the worker.
  }
}

/** The main thread's view: the latest report of each worker thread. */
export class ThreadHeaps {
  private readonly latest = new Map<number, { heap: ThreadHeap; at: number }>();
  private readonly channel = new BroadcastChannel(CHANNEL);

  constructor(private readonly now: () => number = Date.now) {
    this.channel.onmessage = (event) => {
      const message = (event as { data: Message }).data;
      if (message && typeof message === 'object' && 'heap' in message) this.latest.set(message.heap.threadId, { heap: message.heap, at: this.now() });
    };
    this.channel.unref();
  }

  /** Every thread's latest report (the main thread's own read now), threads silent too long left out; asks for fresh ones. */
  heaps(): ThreadHeap[] {
    this.channel.postMessage({ ask: true } satisfies Message);
    const since = this.now() - FORGET_AFTER_MS;
    for (const [id, { at }] of this.latest) if (at < since) this.latest.delete(id);
    return [ownHeap('main'), ...[...this.latest.values()].map(({ heap }) => heap)];
  }

  /** Asks every worker thread for a heap snapshot named `name` (written only with SVC_THREAD_HEAP_SNAPSHOTS set). */
  snapshots(name: string): void {
    this.channel.postMessage({ snapshot: name } satisfies Message);
  }

  close(): void {
    this.channel.close();
  }
}
