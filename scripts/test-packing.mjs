// Which waiting test files start next (scripts/run-tests.mjs, whole suite). The waiting
// files are kept longest first, so no long file starts last; `jobs` of them run at once as
// always, and more (up to `extraJobs`) while the files running are expected to leave a core
// idle: many files mostly wait (a watchdog's deadline, a runner's replacement: 44 s of wall
// for 4.5 CPU-s), and with 3 at a time 2 cores were busy about three quarters of a quiet
// run. A file joins only if the cores the running ones use plus its own stay within
// `cores`, so CPU-heavy files are not stacked. A file's CPU counts its runners' (which its
// own process never sees, scripts/runner-cpu.mjs): limits-trusted-loops spends 3.9 CPU-s
// itself and 20.4 in runners, and read as sleepy it was stacked with other busy files.

/** Cores a file keeps busy on average (its and its runners' CPU over the wall of its last run); unknown: a whole core. */
export function coresUsed({ wall, cpu, runners }, cores) {
  return cpu === null || !(wall > 0) ? 1 : Math.min((cpu + (runners ?? 0)) / wall, cores);
}

/**
 * The files of `waiting` (longest first) to start now, given those `running`; `timeOf(file)`
 * is its { wall, cpu, runners } (cpu null when unknown, runners null or absent when not sampled).
 */
export function filesToStart(waiting, running, timeOf, { jobs, extraJobs, cores }) {
  const started = [];
  let busy = running.reduce((sum, file) => sum + coresUsed(timeOf(file), cores), 0);
  let count = running.length;
  for (const file of waiting) {
    const own = coresUsed(timeOf(file), cores);
    if (count < jobs || (count < extraJobs && busy + own <= cores)) {
      started.push(file);
      busy += own;
      count++;
    }
  }
  return started;
}
