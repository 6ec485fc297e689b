// The pool's view of a run's time limit while host calls wait for a person: the first
// waiting call stops the runner's clock for the run (RunDeadline), the last one to finish
// starts it again, and the pool's own deadline backstop counts only the time the clock ran.
import type { ToRunner } from '../runner/protocol';
import type { ActiveRun } from './runs';

/** Milliseconds the run's time limit has counted so far (waits for a person left out). */
export function countedMs(active: ActiveRun, now: number): number {
  const pausedNow = active.clock.pausedSince === null ? 0 : now - active.clock.pausedSince;
  return now - active.started - active.clock.pausedMs - pausedNow;
}

/** Whether a call of the run waits for a person now. */
export function clockStopped(active: ActiveRun): boolean {
  return active.clock.pausedSince !== null;
}

/**
 * Holds the run's clock while `work` is pending; `resumed` runs when the clock counts again
 * (the pool re-arms its backstop there). Nested and overlapping waits stop it once.
 */
export function whileWaiting<T>(active: ActiveRun, work: Promise<T>, resumed: () => void): Promise<T> {
  const clock = active.clock;
  if (clock.holds++ === 0) {
    clock.pausedSince = Date.now();
    tell(active, true);
  }
  const release = () => {
    if (--clock.holds > 0) return;
    clock.pausedMs += Date.now() - (clock.pausedSince ?? Date.now());
    clock.pausedSince = null;
    if (active.settled) return;
    tell(active, false);
    resumed();
  };
  return work.finally(release);
}

function tell(active: ActiveRun, paused: boolean): void {
  const runner = active.runner;
  if (!runner?.ready || !runner.child.connected || active.settled) return;
  runner.child.send({ type: 'clock', runId: active.runId, paused } satisfies ToRunner);
}
