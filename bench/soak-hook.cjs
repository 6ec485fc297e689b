// Preloaded (NODE_OPTIONS=--require) into the server by bench/soak.ts when SOAK_DIAGNOSE=<dir>:
// - one line per full (mark-compact) collection of the main thread to <dir>/<pid>.gc (of a
//   worker thread to <dir>/<pid>-thread<id>.gc) as
//   `epochMs heapUsedMiB heapTotalMiB externalMiB arrayBuffersMiB rssMiB`: the heap used right
//   after a full collection is what the main thread keeps alive (the samples in between include
//   garbage not yet collected);
// - a heap snapshot to <dir>/<pid>-<n>.heapsnapshot on each SIGUSR2 (the soak sends one at
//   the first quarter and one at the end, so the two can be compared in DevTools), and each
//   worker thread one of its own to <dir>/<pid>-<thread>-<threadId>-<n>.heapsnapshot
//   (sandbox/thread-heap.ts, with SVC_THREAD_HEAP_SNAPSHOTS=<dir>).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { BroadcastChannel, isMainThread, threadId } = require('node:worker_threads');
const dir = process.env.SVC_BENCH_SOAK_DIR;
if (dir) {
  const MiB = 1048576;
  // Worker threads (checkers, compile and host workers) log to a file of their own.
  const gcFile = path.join(dir, isMainThread ? `${process.pid}.gc` : `${process.pid}-thread${threadId}.gc`);
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const usage = process.memoryUsage();
      const line = [Date.now(), usage.heapUsed, usage.heapTotal, usage.external, usage.arrayBuffers, usage.rss].map((v, i) => (i === 0 ? v : (v / MiB).toFixed(1))).join(' ');
      fs.appendFileSync(gcFile, `${line}\n`);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  let snapshots = 0;
  if (isMainThread) process.on('SIGUSR2', () => {
    snapshots++;
    // The worker threads' snapshots: asked on the channel they report their heaps on.
    const channel = new BroadcastChannel('svc:thread-heap');
    channel.postMessage({ snapshot: String(snapshots) });
    channel.close();
    v8.writeHeapSnapshot(path.join(dir, `${process.pid}-${snapshots}.heapsnapshot`));
  });
}
