// Runs parked while they only wait for people: their isolate ended (the runner was asked to
// end it, sandbox/runner/context.ts suspendIfIdle) and no runner holds them until one of
// their waiting calls is answered; then they resume from their journal on any runner.
//
// A parked run holds no run slot (`max_runs_in_flight`, `max_runs_in_flight_per_token`): it
// computes nothing and holds no isolate, and a token whose runs wait for people must not
// keep another token's runs from starting. It queues again for a slot once answered.
// Parked runs are bounded apart (`max_runs_parked`), shared fairly: at the ceiling, a token
// with fewer parked runs than its share (the ceiling divided among the tokens with parked
// runs) may still park, up to twice the ceiling in all. A run refused keeps its isolate and
// its run slot while it waits, as a run that cannot park does. A run asked to park holds its
// place from the asking on (its runner may end its isolate later, once its loop is idle), so
// runs asked at once cannot together pass the ceiling.
import type { ToRunner } from '../runner/protocol';
import { OVER_COMMIT_FACTOR } from './admission';
import type { ActiveRun } from './runs';

export class Parking {
  private readonly parked = new Set<ActiveRun>();
  /** Runs whose runner was asked to end their isolate and has not yet: they count as parked. */
  private readonly asked = new Set<ActiveRun>();
  /** Parked and asked runs per token. */
  private readonly byToken = new Map<string, number>();

  /** @param limit runs parked at once, server-wide (`max_runs_parked`) */
  constructor(private readonly limit: number) {}

  /** Runs parked now (for the metrics: svc_runs_parked). */
  get size(): number {
    return this.parked.size;
  }

  /** Runs per token holding a place: parked, or asked to park (for the metrics: use of max_runs_parked). */
  byTenant(): Map<string, number> {
    return new Map(this.byToken);
  }

  /** Why a run of `tenant` may not park now (naming the setting), or null when it may. */
  refusal(tenant: string): string | null {
    const held = this.parked.size + this.asked.size;
    if (held < this.limit) return null;
    const mine = this.byToken.get(tenant) ?? 0;
    const tokens = this.byToken.size + (mine === 0 ? 1 : 0);
    const share = Math.ceil(this.limit / tokens);
    if (mine < share && held < this.limit * OVER_COMMIT_FACTOR) return null;
    return `${held} runs are parked waiting for people (max_runs_parked ${this.limit}), ${mine} of them this token's (its share: ${share}); the run keeps its isolate and run slot while it waits; raise max_runs_parked to park more`;
  }

  /**
   * Every call the run has in flight at the server waits for a person: its runner is asked
   * to end its isolate if the run has nothing else to do. Only a run whose journal can
   * resume it is asked, and only within max_runs_parked (checked when it is asked): the
   * refusal is returned then, else null.
   */
  offer(active: ActiveRun): string | null {
    const runner = active.runner;
    if (active.settled || !runner?.ready || !runner.child.connected || !active.journal?.resumable()) return null;
    if (active.clock.holds === 0 || active.calls.size !== active.clock.holds) return null;
    if (!this.asked.has(active)) {
      const refused = this.refusal(active.tenant);
      if (refused) return refused;
      this.asked.add(active);
      this.count(active.tenant, 1);
    }
    runner.child.send({ type: 'suspend', runId: active.runId, waiting: active.clock.holds } satisfies ToRunner);
    return null;
  }

  /**
   * Parks a run its runner let go of (the pool has made it ready to resume): `answered` is
   * called once, when the first of its waiting calls is answered, unless it left the
   * parking before (withdraw, drain) or ended.
   */
  park(active: ActiveRun, answered: () => void): void {
    // Not a lost placement: the resumed run may still be run again once if its runner is lost.
    active.attempts = Math.max(0, active.attempts - 1);
    if (!this.asked.delete(active)) this.count(active.tenant, 1);
    this.parked.add(active);
    active.job.onSuspended?.({ entries: active.job.journal?.entries ?? [], timeMs: active.job.limits.timeMs });
    const leave = () => {
      if (!this.withdraw(active) || active.settled) return;
      active.job.onSuspended?.(null);
      answered();
    };
    const waits = [...active.outstanding.values()].map((call) => call.reply);
    void Promise.race(waits.length > 0 ? waits : [Promise.resolve()]).then(leave, leave);
  }

  /** Takes a parked run out (its caller gave up); false when it was not parked. */
  withdraw(active: ActiveRun): boolean {
    if (!this.parked.delete(active)) return false;
    this.count(active.tenant, -1);
    return true;
  }

  /** The run ended: a place it held since its runner was asked to park it is free again. */
  ended(active: ActiveRun): void {
    if (this.asked.delete(active)) this.count(active.tenant, -1);
  }

  /** Every parked run, taken out (the pool cancels them when it stops). */
  drain(): ActiveRun[] {
    const all = [...this.parked];
    this.parked.clear();
    this.asked.clear();
    this.byToken.clear();
    return all;
  }

  private count(tenant: string, change: 1 | -1): void {
    const now = (this.byToken.get(tenant) ?? 0) + change;
    if (now > 0) this.byToken.set(tenant, now);
    else this.byToken.delete(tenant);
  }
}
