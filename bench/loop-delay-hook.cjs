// Preloaded (NODE_OPTIONS=--require) into the server by bench/attacks.ts when
// BENCH_LOOP_DELAY=<dir>: how long the main thread's event loop is held, one line per
// 200 ms to <dir>/<pid>.loop as `epochMs maxMs p99Ms cpuMs maxTurnCpuMs maxGcMs gcKind heapMiB rssMiB maxTurnWallMs`:
// - maxMs, p99Ms: the loop's delay (perf_hooks' histogram, 1 ms resolution), wall time, so
//   on a shared machine it includes the time the thread waited for a core. The histogram
//   missed long stalls: an interval holding an 893 ms GC pause (a 2.1 s gap between two
//   rows) read max 0, hence maxTurnWallMs, the longest wall time between two ticks of a 1 ms timer;
// - cpuMs: the process's CPU (all threads) over the 200 ms;
// - maxTurnCpuMs: the most CPU the main thread spent between two ticks of a 1 ms timer
//   (/proc's schedstat of the thread, nanoseconds): what the loop was held for, in CPU
//   time, which another tenant's load on the machine does not stretch;
// - maxGcMs, gcKind: the longest garbage-collection pause and its kind; heapMiB: heap in use.
// Every pause also goes to <dir>/<pid>.gc as `epochMs ms kind` (the bench's p99). On SIGUSR2 the
// hook collects all garbage and appends `epochMs heapUsedBytes` to <dir>/<pid>.heap: what the
// server retains at that moment (the bench signals it before an attack and when all of its
// calls are in flight); with SVC_BENCH_HEAP_SNAPSHOT=1 it also writes a heap snapshot there.
// With a file named trace-gc-nvp in <dir>: V8's phases of each collection, in <dir>/<pid>.stdout
// (times in ms since the process began: <dir>/<pid>.origin holds that start, epoch ms).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');
const { isMainThread } = require('node:worker_threads');
const dir = process.env.SVC_BENCH_LOOP_DELAY_DIR;
if (dir && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const file = path.join(dir, `${process.pid}.loop`);
  const schedstat = `/proc/self/task/${process.pid}/schedstat`;
  const threadCpuNs = () => {
    try {
      return Number(fs.readFileSync(schedstat, 'latin1').split(' ')[0]);
    } catch {
      return 0;
    }
  };
  let lastCpu = threadCpuNs();
  let maxTurnNs = 0;
  let lastTick = process.hrtime.bigint();
  let maxTurnWallNs = 0n;
  const tick = () => {
    const now = threadCpuNs();
    maxTurnNs = Math.max(maxTurnNs, now - lastCpu);
    lastCpu = now;
    const wall = process.hrtime.bigint();
    if (wall - lastTick > maxTurnWallNs) maxTurnWallNs = wall - lastTick;
    lastTick = wall;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  // The longest garbage collection pause (main thread) per interval.
  let maxGcMs = 0;
  let gcKind = '-';
  const GC_KINDS = { 1: 'minor', 2: 'major', 4: 'incremental', 8: 'weakcb' };
  const gcFile = path.join(dir, `${process.pid}.gc`);
  new PerformanceObserver((list) => {
    let lines = '';
    for (const entry of list.getEntries()) {
      lines += `${Math.round(performance.timeOrigin + entry.startTime)} ${entry.duration.toFixed(2)} ${GC_KINDS[entry.detail?.kind] ?? entry.detail?.kind}\n`;
      if (entry.duration > maxGcMs) {
        maxGcMs = entry.duration;
        gcKind = GC_KINDS[entry.detail?.kind] ?? String(entry.detail?.kind);
      }
    }
    fs.appendFileSync(gcFile, lines);
  }).observe({ entryTypes: ['gc'] });
  const v8 = require('node:v8');
  v8.setFlagsFromString('--expose-gc');
  const collect = require('node:vm').runInNewContext('gc');
  process.on('SIGUSR2', () => {
    collect();
    collect();
    fs.appendFileSync(path.join(dir, `${process.pid}.heap`), `${Date.now()} ${process.memoryUsage().heapUsed}\n`);
    if (process.env.SVC_BENCH_HEAP_SNAPSHOT === '1') v8.writeHeapSnapshot(path.join(dir, `${process.pid}-${Date.now()}.heapsnapshot`));
  });
  // <dir>/trace-gc-nvp present: V8's phases of every collection (--trace-gc-nvp, read at each
  // collection) go to the server's stdout, copied to <dir>/<pid>.stdout when it exits; a file
  // and not a variable, since the server gets only the variables the harness passes.
  if (fs.existsSync(path.join(dir, 'trace-gc-nvp'))) {
    v8.setFlagsFromString('--trace-gc-nvp');
    // <dir>/trace-incremental-marking as well: each marking's start, steps and finish (verbose).
    if (fs.existsSync(path.join(dir, 'trace-incremental-marking'))) v8.setFlagsFromString('--trace-incremental-marking');
    fs.writeFileSync(path.join(dir, `${process.pid}.origin`), `${performance.timeOrigin}\n`);
    process.on('exit', () => fs.copyFileSync('/proc/self/fd/1', path.join(dir, `${process.pid}.stdout`)));
  }
  let cpu = process.cpuUsage();
  setInterval(() => {
    const now = process.cpuUsage();
    const cpuMs = (now.user - cpu.user + now.system - cpu.system) / 1000;
    cpu = now;
    fs.appendFileSync(file, `${Date.now()} ${(histogram.max / 1e6).toFixed(1)} ${(histogram.percentile(99) / 1e6).toFixed(1)} ${cpuMs.toFixed(0)} ${(maxTurnNs / 1e6).toFixed(1)} ${maxGcMs.toFixed(1)} ${gcKind} ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} ${(process.memoryUsage.rss() / 1048576).toFixed(0)} ${(Number(maxTurnWallNs) / 1e6).toFixed(1)}\n`);
    histogram.reset();
    maxTurnNs = 0;
    maxTurnWallNs = 0n;
    maxGcMs = 0;
    gcKind = '-';
  }, 200).unref();
}
