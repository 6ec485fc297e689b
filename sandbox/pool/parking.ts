// Runs parked while they only wait for people: their isolate ended (the runner was asked to
// end it, sandbox/runner/context.ts suspendIfIdle) and no runner holds them until one of
// their waiting calls is answered; then they resume from their journal on any runner.
import type { ToRunner } from '../runner/protocol';
import type { ActiveRun } from './runs';

export class Parking {
  private readonly parked = new Set<ActiveRun>();

  /** Runs parked now (for the metrics: svc_runs_parked). */
  get size(): number {
    return this.parked.size;
  }

  /**
   * Every call the run has in flight at the server waits for a person: its runner is asked
   * to end its isolate if the run has nothing else to do. Only a run whose journal can
   * resume it is asked.
   */
  offer(active: ActiveRun): void {
    const runner = active.runner;
    if (active.settled || !runner?.ready || !runner.child.connected || !active.journal?.resumable()) return;
    if (active.clock.holds === 0 || active.calls.size !== active.clock.holds) return;
    runner.child.send({ type: 'suspend', runId: active.runId, waiting: active.clock.holds } satisfies ToRunner);
  }

  /**
   * Parks a run its runner let go of (the pool has made it ready to resume): `answered` is
   * called once, when the first of its waiting calls is answered, unless it left the
   * parking before (withdraw, drain) or ended.
   */
  park(active: ActiveRun, answered: () => void): void {
    // Not a lost placement: the resumed run may still be run again once if its runner is lost.
    active.attempts = Math.max(0, active.attempts - 1);
    this.parked.add(active);
    active.job.onSuspended?.({ entries: active.job.journal?.entries ?? [], timeMs: active.job.limits.timeMs });
    const leave = () => {
      if (!this.parked.delete(active) || active.settled) return;
      active.job.onSuspended?.(null);
      answered();
    };
    const waits = [...active.outstanding.values()].map((call) => call.reply);
    void Promise.race(waits.length > 0 ? waits : [Promise.resolve()]).then(leave, leave);
  }

  /** Takes a parked run out (its caller gave up); false when it was not parked. */
  withdraw(active: ActiveRun): boolean {
    return this.parked.delete(active);
  }

  /** Every parked run, taken out (the pool cancels them when it stops). */
  drain(): ActiveRun[] {
    const all = [...this.parked];
    this.parked.clear();
    return all;
  }
}
