// A runner's memory bound (`runner_memory_recycle`): what a runner keeps of the programs it ran
// grows in its native heap (bench/PROFILE.md, round 20), so a runner past the bound when
// a run ends takes no new runs, finishes those it hosts and is replaced (the pool's drain).
import type { Runner } from './runs';

const MIB = 1048576;

/** The resident bytes a runner reported, if the value is one (a runner's message is never trusted); else what was known. */
export function reportedRss(value: unknown, known: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : known;
}

/** Whether the runner should drain for memory: a bound is set (MB, 0: none), it passed it, and it is not draining already. */
export function pastMemoryBound(runner: Runner, boundMb: number): boolean {
  return boundMb > 0 && !runner.draining && runner.rss > boundMb * MIB;
}

/** The log fields that say why a runner drains for memory. */
export function memoryBoundFields(runner: Runner, boundMb: number): Record<string, unknown> {
  return { pid: runner.child.pid, rss_mib: Math.round(runner.rss / MIB), runner_memory_recycle_mb: boundMb, runs: runner.runs.size };
}
