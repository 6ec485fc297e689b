// Which waiting test files start next (scripts/run-tests.mjs, whole suite). The waiting
// files are kept longest first, so no long file starts last; `jobs` of them run at once as
// always, and more (up to `extraJobs`) while the files running are expected to leave a core
// idle: many files mostly wait (a watchdog's deadline, a runner's replacement: 44 s of wall
// for 4.5 CPU-s), and with 3 at a time 2 cores were busy about three quarters of a quiet
// run. A file joins only if the cores the running ones use plus its own stay within
// `cores`, so CPU-heavy files are not stacked.

/** Cores a file keeps busy on average (CPU over wall of its last run); unknown: a whole core. */
export function coresUsed({ wall, cpu }, cores) {
  return cpu === null || !(wall > 0) ? 1 : Math.min(cpu / wall, cores);
}

/**
 * The files of `waiting` (longest first) to start now, given those `running`; `timeOf(file)`
 * is its { wall, cpu } (cpu null when unknown).
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
