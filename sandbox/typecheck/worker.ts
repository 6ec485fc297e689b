// Worker-thread entry: type checks off the server's event loop. One long-lived worker keeps
// TypeScript, the parsed library files and a warm checker per declaration set between
// checks. A message brings one program or a batch of one declaration set (thread.ts), checked
// one after another; each program's start and answer are posted as they happen, so the pool
// times each against the budget. Built as dist/typecheck-worker.js. After its first check it
// writes the compiler's code cache if it had none (compiler.ts) and says so if that failed.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { Checkers } from './checker';
import { DeclarationSetMemory } from './set-memory';
import { saveCodeCache, useCodeCacheDirectory, useInterpretedFactories } from './compiler';
import type { CheckBatchMessage, CheckerThreadData, HeapReport, WarmMessage } from './types';
import { reportThreadHeap } from '../thread-heap';
import { V8FlagLock } from '../v8-flags';

reportThreadHeap('checker');

const data = workerData as CheckerThreadData | undefined;
useCodeCacheDirectory(data?.codeCacheDirectory ?? null);
useInterpretedFactories(new V8FlagLock(data?.flagLock));
const checkers = new Checkers();
/** The sets the pool sent whole; its later messages name them by hash. */
const sets = new DeclarationSetMemory();
let checked = false;

const failed = (id: number, error: unknown) => parentPort!.postMessage({ id, ok: false, failure: 'failed', message: (error as Error)?.message ?? String(error) });

/** V8's record of each collection since the last report: what a full one left is the live heap. */
let collections = new v8.GCProfiler();
collections.start();
let live = 0;

/** Set by V8's report of a full collection: what the heap keeps alive may have changed. */
let collectedFully = false;
new PerformanceObserver((entries) => {
  if (entries.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) collectedFully = true;
}).observe({ entryTypes: ['gc'] });
/** Batches after which the heap is reported even without a full collection (svc_typecheck_heap_bytes stays near). */
const REPORT_EVERY_BATCHES = 64;
let batchesSinceReport = 0;
let reported = false;

/**
 * The thread's V8 heap (svc_typecheck_heap_bytes; the pool replaces a thread near its limit,
 * thread.ts), after each warm-up (`warmedUp`: the pool counts its warm-ups' ends) and after a
 * batch when it is the thread's first, when a full collection has run since the last report
 * (only one changes what is live) or when REPORT_EVERY_BATCHES have passed.
 */
function reportHeap(warmedUp: boolean): void {
  if (reported && !warmedUp && !collectedFully && ++batchesSinceReport < REPORT_EVERY_BATCHES) return;
  reported = true;
  collectedFully = false;
  batchesSinceReport = 0;
  const { statistics } = collections.stop();
  collections = new v8.GCProfiler();
  collections.start();
  for (const collection of statistics) if (collection.gcType === 'MarkSweepCompact') live = collection.afterGC.heapStatistics.usedHeapSize;
  const { used_heap_size: used, total_heap_size: total, malloced_memory: malloced } = v8.getHeapStatistics();
  const heap: HeapReport = { live, used, total, malloced };
  parentPort!.postMessage(warmedUp ? { heap, warmedUp } : { heap });
}

/** What a warm-up checks against each set: the checker of the set is made, and TypeScript's checking code has run once. */
const WARM_PROGRAM = 'export function main(): string { const greeting: string = "hello"; return greeting; }';

parentPort!.on('message', (message: CheckBatchMessage | WarmMessage) => {
  if ('warm' in message) {
    checkers.warm();
    let warmed = 0;
    for (const { set: reference, mode } of message.sets) {
      // Received before the warm-up's try: the pool has noted the set as held whatever the warm-up does.
      const set = sets.receive(reference);
      try {
        checkers.check({ source: WARM_PROGRAM, mode, set });
        warmed++;
      } catch {
        // A warm-up is a help: the first real check of the set makes its checker then.
      }
    }
    if (warmed > 0) parentPort!.postMessage({ warmed });
    reportHeap(true);
    return;
  }
  // The budget runs from here: loading TypeScript and the libraries in a new worker is not the program's.
  checkers.warm();
  const { ids, sources, mode, announce } = message;
  const set = sets.receive(message.set);
  const made = checkers.made;
  let current = 0;
  // Announced, the pool starts the budget now; else it started it when it sent the batch, and
  // each next program's when the one before answered.
  if (announce) parentPort!.postMessage({ started: ids[0] });
  try {
    checkers.checkMany(
      { sources, mode, set },
      (index) => {
        current = index;
      },
      (index, result) => parentPort!.postMessage({ id: ids[index], ok: true, result }),
    );
  } catch (error) {
    failed(ids[current], error);
    // The rest of the batch is checked one by one, away from whatever failed.
    for (let index = current + 1; index < ids.length; index++) {
      try {
        parentPort!.postMessage({ id: ids[index], ok: true, result: checkers.check({ source: sources[index], mode, set }) });
      } catch (again) {
        failed(ids[index], again);
      }
    }
  }
  if (checkers.made > made) parentPort!.postMessage({ cold: true });
  reportHeap(false);
  if (checked) return;
  checked = true;
  const cache = saveCodeCache();
  if (!cache.ok) parentPort!.postMessage({ notice: `the type checker's code cache ${cache.file} could not be written (each checker start compiles TypeScript again): ${cache.message}` });
  // The pool keeps this thread from ending with its process until then (a CLI command ends after one check).
  parentPort!.postMessage({ cacheSettled: true });
});
