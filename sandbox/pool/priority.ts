// Runners compute below the server: a runner's process tree gets a higher nice value, so that
// the server's event loop (answers, heartbeats, host calls) finds a core while runs compute.
//
// Two levels of Linux's scheduler, both lowered without privileges (a process may always
// lower its own priority and its own processes'):
// - nice is per thread, and a thread starts with its creator's: each task of each process in
//   the tree is set (os.setPriority on a thread id), once at spawn, so what the wrapper starts
//   inherits it, and again once the runner is ready, for threads that started in between;
// - with autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled) the CPU is shared
//   between sessions first, and a runner under bubblewrap (`--new-session`) is a session of its
//   own, whose share a thread's nice does not change: its autogroup's nice is set as well
//   (/proc/<pid>/autogroup). Never the server's own autogroup: a runner started without a
//   session of its own shares the server's, and there the threads' nice is what counts.
// A scheduling preference, not a wall: code escaping a runner's isolate could set its own
// autogroup back to 0 (a nice value of 0 or more needs no privilege), never above the server.
import fs from 'node:fs';
import os from 'node:os';

/** Where the first failure of each kind is logged (later ones of that kind are not). */
export type PriorityLog = (msg: string, fields: Record<string, unknown>) => void;

/** The kernel takes one autogroup nice change per 100 ms, machine-wide, from processes without CAP_SYS_ADMIN (EAGAIN otherwise). */
const AUTOGROUP_RETRY_MS = 110;
const AUTOGROUP_ATTEMPTS = 20;

/** Passes over a tree's threads at most (each after the first only when the one before changed one). */
const MAX_PASSES = 3;

const reported = new Set<string>();

function reportOnce(log: PriorityLog, what: string, error: unknown, fields: Record<string, unknown>): void {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  if (reported.has(`${what}:${code}`)) return;
  reported.add(`${what}:${code}`);
  log(`could not lower a runner's ${what}; runners keep running at the server's priority there`, { ...fields, error: (error as Error).message });
}

/** The thread ids of process `pid` (its own among them), read from /proc; none when it is gone. */
function tasksOf(pid: number): string[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const task of tasksOf(pid)) {
    try {
      for (const child of fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) if (child.trim()) children.push(Number(child));
    } catch {
      // Gone, or a kernel without CONFIG_PROC_CHILDREN: the root's own nice is then what its children inherit.
    }
  }
  return children;
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]!));
  return tree;
}

/** The autogroup `pid` is in ("/autogroup-123"), or null when the kernel has none or the process is gone. */
export function autogroupOf(pid: number | 'self'): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/autogroup`, 'utf8').split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

/** Sets `nice` on every thread of `pid`'s process tree; with `autogroups`, on the autogroups of the tree other than the server's too. */
export async function lowerPriority(pid: number, nice: number, log: PriorityLog, autogroups: boolean): Promise<void> {
  // Again while a pass finds a thread to change: one may have been started meanwhile by a thread not yet set.
  let tree: number[] = [];
  for (let pass = 0, changed = 1; changed > 0 && pass < MAX_PASSES; pass++) {
    tree = processTree(pid);
    changed = 0;
    for (const member of tree) for (const task of tasksOf(member)) changed += setThreadNice(Number(task), nice, log);
  }
  if (!autogroups) return;
  const own = autogroupOf('self');
  const groups = new Map<string, number>();
  for (const member of tree) {
    const group = autogroupOf(member);
    if (group !== null && group !== own && !groups.has(group)) groups.set(group, member);
  }
  for (const member of groups.values()) await setAutogroupNice(member, nice, log);
}

/** 1 when the thread's nice was changed, 0 when it already had it, is gone or may not be changed (logged once). */
function setThreadNice(tid: number, nice: number, log: PriorityLog): number {
  try {
    if (os.getPriority(tid) === nice) return 0;
    os.setPriority(tid, nice);
    return 1;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') reportOnce(log, 'thread priority', error, { nice });
    return 0;
  }
}

async function setAutogroupNice(pid: number, nice: number, log: PriorityLog): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      fs.writeFileSync(`/proc/${pid}/autogroup`, String(nice));
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ESRCH' || code === 'ENOENT') return; // the runner is gone
      if (code !== 'EAGAIN' || attempt >= AUTOGROUP_ATTEMPTS) return reportOnce(log, 'autogroup priority', error, { nice });
      await new Promise((resolve) => setTimeout(resolve, AUTOGROUP_RETRY_MS).unref());
    }
  }
}
