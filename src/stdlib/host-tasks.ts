// Host work that grows with what a program wrote or asked for (a regex scan, a diff, git's
// hashing and checkouts) runs here: in the host worker threads (dist/host-worker.js, built
// from ./host-worker.ts), off the server's event loop. Without the built worker (unit tests
// under tsx, the CLI's local runs) the same handler runs in this thread.
import fs from 'node:fs';
import os from 'node:os';
import { delivered, OffloadError, WorkerPool } from '../offload';
import { hostTaskHandlers, type HostTaskKind, type HostTaskInput, type HostTaskOutput } from './host-task-handlers';

/** Two at least, so one long task never holds back every other run's. */
const POOL_SIZE = Math.max(2, Math.min(4, os.availableParallelism()));

function builtWorker(): URL | null {
  // The server bundle sits beside it; the CLI's chunks one folder down.
  for (const relative of ['./host-worker.js', '../host-worker.js']) {
    const candidate = new URL(relative, import.meta.url);
    if (candidate.protocol === 'file:' && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

let pool: WorkerPool | null | undefined;
function hostPool(): WorkerPool | null {
  if (pool === undefined) {
    const file = builtWorker();
    pool = file ? new WorkerPool({ file, size: POOL_SIZE }) : null;
  }
  return pool;
}

export interface HostTaskOptions {
  /** The call's signal: the run ended or gave up on the call. */
  signal: AbortSignal;
  /** Milliseconds the task may compute; past it the task fails with `overBudget`'s message. */
  budgetMs?: number;
  /** The message of the error when the budget runs out (the operation and what to do). */
  overBudget?: string;
  /** Prefix of other failures' messages, e.g. `git.add /repo`. */
  what: string;
  /** The token the work is for: tokens take turns at the workers (src/offload). */
  tenant: string;
  /** Buffers of the input moved to the worker thread, not copied (src/offload TaskOptions). */
  transfer?: ArrayBuffer[];
}

/** Runs a host task off the event loop; its own errors come back with their name and message. */
export async function hostTask<K extends HostTaskKind>(kind: K, input: HostTaskInput<K>, options: HostTaskOptions): Promise<HostTaskOutput<K>> {
  const workers = hostPool();
  if (!workers) return delivered(await hostTaskHandlers[kind](input as never)) as HostTaskOutput<K>;
  try {
    return await workers.run<HostTaskOutput<K>>(kind, input, { signal: options.signal, budgetMs: options.budgetMs, tenant: options.tenant, transfer: options.transfer });
  } catch (error) {
    if (!(error instanceof OffloadError)) throw error;
    if (error.reason === 'failed') throw Object.assign(new Error(error.message), { name: error.remoteName });
    if (error.reason === 'budget') throw new RangeError(options.overBudget ?? `${options.what}: the work took longer than ${options.budgetMs} ms`);
    throw new Error(`${options.what}: ${error.message}`);
  }
}
