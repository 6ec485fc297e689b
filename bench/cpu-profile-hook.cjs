// Preloaded (NODE_OPTIONS=--require) into the server and its runners by
// `BENCH_PROFILE=<dir> npm run bench`: Node refuses --cpu-prof in NODE_OPTIONS, so this
// starts V8's profiler through the inspector and writes <dir>/<pid>-<n>.cpuprofile every
// few seconds and at exit (the server SIGKILLs its runners at shutdown: no exit to hook).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');
const { threadId } = require('node:worker_threads');
const dir = process.env.SVC_BENCH_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  let chunk = 0;
  const flush = (again) => {
    // The same-thread session answers synchronously, so this works inside 'exit'.
    session.post('Profiler.stop', (error, result) => {
      if (!error) fs.writeFileSync(path.join(dir, `${process.pid}_${threadId}-${chunk++}.cpuprofile`), JSON.stringify(result.profile));
    });
    if (again) session.post('Profiler.start');
  };
  setInterval(() => flush(true), 3000).unref();
  process.on('exit', () => flush(false));
}
