// Bench-only: what a runner's memory holds, part by part, for the memory soak (bench/soak.ts,
// issue 39). With the soak's variable set (sandbox/confine/environment.ts passes it through;
// nothing here runs otherwise) the runner writes one line to its stderr every few seconds:
// its own V8 heap by space, the isolates on its shelf and their heaps (V8's and the native
// memory V8 allocated for them), and its code caches. What the process holds beyond these is
// glibc's and isolated-vm's native memory, which the soak reads from /proc/<pid>/smaps.
import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import type ivm from 'isolated-vm';
import { MEMORY_REPORT_VARIABLE } from '../confine/environment';
import type { Engine } from './engines';
import { scriptCacheHolds } from './script-cache';

/** The line's prefix: the soak picks these out of the server's stderr. */
export const MEMORY_REPORT_PREFIX = 'svc-runner-memory ';
const REPORT_MS = 2_000;
const MIB = 1048576;
/** Names this runner's lines (inside a pid namespace every runner may have the same pid). */
const ID = randomUUID().slice(0, 8);

/** The isolates a runner keeps between runs (its shelf), and how many runs hold one now. */
export interface IsolatesHeld {
  held(): { idle: readonly Engine[]; ready: readonly Engine[] };
}

const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

async function isolatesHeap(engines: readonly Engine[]): Promise<{ total: number; used: number; external: number; malloced: number }> {
  const sum = { total: 0, used: 0, external: 0, malloced: 0 };
  for (const engine of engines) {
    if (engine.isolate.isDisposed) continue;
    try {
      const stats = (await engine.isolate.getHeapStatistics()) as ivm.HeapStatistics & { externally_allocated_size?: number; malloced_memory?: number };
      sum.total += stats.total_physical_size;
      sum.used += stats.used_heap_size;
      sum.external += stats.externally_allocated_size ?? 0;
      sum.malloced += stats.malloced_memory ?? 0;
    } catch {
      // Disposed meanwhile (taken by a run that retired it): it holds nothing any more.
    }
  }
  return { total: mib(sum.total), used: mib(sum.used), external: mib(sum.external), malloced: mib(sum.malloced) };
}

async function reportOnce(shelf: IsolatesHeld, runsInFlight: () => number): Promise<void> {
  const usage = process.memoryUsage();
  const { idle, ready } = shelf.held();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, mib(space.physical_space_size)]));
  const caches = scriptCacheHolds();
  const line = {
    id: ID,
    rss: mib(usage.rss),
    heapTotal: mib(usage.heapTotal),
    heapUsed: mib(usage.heapUsed),
    external: mib(usage.external),
    spaces,
    isolates: { idle: idle.length, ready: ready.length, busy: runsInFlight(), heap: await isolatesHeap([...idle, ...ready]) },
    scriptCache: { entries: caches.entries, mib: mib(caches.bytes), compiledOnce: caches.compiledOnce },
  };
  process.stderr.write(`${MEMORY_REPORT_PREFIX}${JSON.stringify(line)}\n`);
}

/** Starts the report when the soak asked for it (a no-op otherwise). */
export function reportMemoryIfAsked(shelf: IsolatesHeld, runsInFlight: () => number, env: NodeJS.ProcessEnv = process.env): void {
  if (env[MEMORY_REPORT_VARIABLE] !== '1') return;
  setInterval(() => void reportOnce(shelf, runsInFlight).catch(() => {}), REPORT_MS).unref();
}
