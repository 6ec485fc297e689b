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

/** The fields of /proc/<pid>/stat (or one thread's) after the command's name, or null once it has ended. */
function statFields(pid: number, tid?: number): string[] | null {
  try {
    return fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

// USER_HZ is 100 on Linux: a tick is 10 ms.
const TICK_MS = 10;

/** CPU time (user + system, ms) of one process (or, with `tid`, of one of its threads), from /proc; 0 once it has ended. */
export function cpuOfProcess(pid: number, tid?: number): number {
  const fields = statFields(pid, tid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

/** CPU time (ms) of the process's children that ended and were waited for (a retired runner, a compile thread's esbuild). */
function cpuOfEndedChildren(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[13]) + Number(fields[14])) * TICK_MS : 0;
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/**
 * CPU time (ms) of the server process itself and of its child processes, live or ended
 * (runners, esbuild's services), and of each live esbuild service by pid (esbuildBetween).
 */
export function cpuOf(pid: number): { server: number; children: number; esbuild: Map<number, number> } {
  let children = cpuOfEndedChildren(pid);
  const esbuild = new Map<number, number>();
  for (const child of childPids(pid)) {
    const own = cpuOfProcess(child);
    children += own + cpuOfEndedChildren(child);
    if (commandOf(child).includes('esbuild')) esbuild.set(child, own);
  }
  return { server: cpuOfProcess(pid), children, esbuild };
}

/**
 * esbuild's share of `children` between two readings: the services alive at the second (one
 * started between them counts whole). A service that ended between them (its compile thread
 * was replaced) is left in `children` only: its CPU after the first reading is not known apart.
 */
export function esbuildBetween(before: { esbuild: Map<number, number> }, after: { esbuild: Map<number, number> }): number {
  let total = 0;
  for (const [pid, ms] of after.esbuild) total += ms - (before.esbuild.get(pid) ?? 0);
  return total;
}

/**
 * CPU time (ms) of the main threads alone: the server's event loop, and the runners' (their
 * isolates run on isolated-vm's threads). Work serialised there is what a burst waits for.
 */
export function mainThreadCpuOf(pid: number): { server: number; runners: number } {
  const children = childPids(pid).filter((child) => commandOf(child).includes('runner'));
  return { server: cpuOfProcess(pid, pid), runners: children.reduce((sum, child) => sum + cpuOfProcess(child, child), 0) };
}

/**
 * The process's descendants. Linux lists a child under the thread that started it, so every
 * thread is read: esbuild's service is a child of the compile thread that first transformed.
 */
export function childPids(pid: number): number[] {
  let threads: string[];
  try {
    threads = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of threads) {
    try {
      const listed = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (listed) children.push(...listed.split(/\s+/).map(Number));
    } catch {
      // The thread ended between listing and reading; its children are listed under the process's reaper now.
    }
  }
  return children.flatMap((child) => [child, ...childPids(child)]);
}


/** BENCH_JOURNAL=off: the server journals no run (max_run_journal_size 0), to measure what journalling costs. */
export function journalEnv(): Record<string, string> {
  return process.env.BENCH_JOURNAL === 'off' ? { SVC_MAX_RUN_JOURNAL_SIZE: '0' } : {};
}
