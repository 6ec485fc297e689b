// Preloaded (NODE_OPTIONS=--require) into the server by bench/attacks.ts when
// BENCH_LOOP_DELAY=<dir>: the main thread's event-loop delay (perf_hooks' histogram, 10 ms
// resolution would hide slices, so 1 ms) and its CPU, one line per 200 ms to
// <dir>/<pid>.loop as `epochMs maxMs p99Ms cpuMs`. The bench reads the lines of each attack's
// window: less sensitive to a shared machine than /healthz's latency seen from outside.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { isMainThread } = require('node:worker_threads');
const dir = process.env.SVC_BENCH_LOOP_DELAY_DIR;
if (dir && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const file = path.join(dir, `${process.pid}.loop`);
  let cpu = process.cpuUsage();
  setInterval(() => {
    const now = process.cpuUsage();
    const cpuMs = (now.user - cpu.user + now.system - cpu.system) / 1000;
    cpu = now;
    fs.appendFileSync(file, `${Date.now()} ${(histogram.max / 1e6).toFixed(1)} ${(histogram.percentile(99) / 1e6).toFixed(1)} ${cpuMs.toFixed(0)}\n`);
    histogram.reset();
  }, 200).unref();
}
