// Resident memory and CPU time of a process and its children, from /proc (Linux).
import fs from 'node:fs';

export function rssOf(pid: number): number {
  // Resident set of the server process and its runner children, from /proc (Linux).
  const pids = [pid, ...childPids(pid)];
  let total = 0;
  for (const p of pids) {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      if (match) total += Number(match[1]) * 1024;
    } catch {
      // The process ended between listing and reading; it holds no memory any more.
    }
  }
  return total;
}

/** CPU time (user + system, ms) of one process (or, with `tid`, of one of its threads), from /proc; 0 once it has ended. */
export function cpuOfProcess(pid: number, tid?: number): number {
  try {
    const fields = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

/** CPU time (ms) of the server process itself and of its children (runners, esbuild's service). */
export function cpuOf(pid: number): { server: number; children: number } {
  return { server: cpuOfProcess(pid), children: childPids(pid).reduce((sum, child) => sum + cpuOfProcess(child), 0) };
}

/**
 * CPU time (ms) of the main threads alone: the server's event loop, and the runners' (their
 * isolates run on isolated-vm's threads). Work serialised there is what a burst waits for.
 */
export function mainThreadCpuOf(pid: number): { server: number; runners: number } {
  const children = childPids(pid).filter((child) => {
    try {
      return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('runner');
    } catch {
      return false;
    }
  });
  return { server: cpuOfProcess(pid, pid), runners: children.reduce((sum, child) => sum + cpuOfProcess(child, child), 0) };
}

export function childPids(pid: number): number[] {
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return children ? children.split(/\s+/).map(Number).flatMap((c) => [c, ...childPids(c)]) : [];
  } catch {
    return [];
  }
}


/** BENCH_JOURNAL=off: the server journals no run (max_run_journal_size 0), to measure what journalling costs. */
export function journalEnv(): Record<string, string> {
  return process.env.BENCH_JOURNAL === 'off' ? { SVC_MAX_RUN_JOURNAL_SIZE: '0' } : {};
}
