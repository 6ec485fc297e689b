// Admission of runs: a server-wide ceiling on runs in flight and on the sum of their
// memory limits; past it runs queue, fairly across tenants (the token that sent them),
// and a full queue refuses at once with the limit, the setting that raises it and the use.
//
// One token cannot hold what another needs: each token has its own ceilings on runs in
// flight and queued (`max_runs_in_flight_per_token`, `max_queued_runs_per_token`, both the
// whole server by default, so a single tenant is held only by the server-wide ones), and a
// token below its fair share (each ceiling, runs and their memory, divided among the tokens
// with runs in flight or queued) is admitted, or queued, even when the server-wide ceiling is reached, up to twice
// it. Runs cannot be pre-empted: without that, a token whose runs wait on a far end that
// never answers would make every other token's run wait for them.

export interface AdmissionLimits {
  /** Runs in flight at once, server-wide (`max_runs_in_flight`). */
  runsInFlight: number;
  /** Sum of the memory limits of the runs in flight, in MB (`max_runs_memory`). */
  memoryMb: number;
  /** Runs waiting for admission (`max_queued_runs`). */
  queued: number;
  /** Runs one token may have in flight (`max_runs_in_flight_per_token`; default `runsInFlight`). */
  runsPerToken?: number;
  /** Runs one token may have waiting (`max_queued_runs_per_token`; default `queued`). */
  queuedPerToken?: number;
}

export interface Admittable {
  tenant: string;
  memoryMb: number;
}

/** Why a run was not queued (the message names the limit and the setting). */
export interface Refusal {
  refused: string;
  /** The setting that refused it. */
  quota: 'max_runs_memory' | 'max_queued_runs' | 'max_queued_runs_per_token';
}

/** A token below its fair share goes past a server-wide ceiling up to this many times it. */
export const OVER_COMMIT_FACTOR = 2;

/** Runs of one token (for the per-token metrics). */
export interface TenantRuns {
  inFlight: number;
  queued: number;
}

export class Admission<T extends Admittable> {
  private readonly queues = new Map<string, T[]>();
  private readonly running = new Map<string, number>();
  /** Sum of the memory limits of each tenant's runs in flight, MB. */
  private readonly memoryBy = new Map<string, number>();
  /** When each tenant was last admitted (round-robin among equals). */
  private readonly lastAdmitted = new Map<string, number>();
  private admissions = 0;
  private inFlight = 0;
  private memoryInFlight = 0;
  private waiting = 0;

  constructor(private readonly limits: AdmissionLimits) {}

  get queueDepth(): number {
    return this.waiting;
  }

  get runsInFlight(): number {
    return this.inFlight;
  }

  /** Runs in flight and queued per token with any (token names, never values). */
  byTenant(): Map<string, TenantRuns> {
    const out = new Map<string, TenantRuns>();
    for (const [tenant, count] of this.running) out.set(tenant, { inFlight: count, queued: 0 });
    for (const [tenant, queue] of this.queues) out.set(tenant, { inFlight: this.running.get(tenant) ?? 0, queued: queue.length });
    return out;
  }

  private get runsPerToken(): number {
    return this.limits.runsPerToken ?? this.limits.runsInFlight;
  }

  private get queuedPerToken(): number {
    return this.limits.queuedPerToken ?? this.limits.queued;
  }

  /** Tokens with runs in flight or queued, counting `also` (a token about to be). */
  private activeTenants(also?: string): number {
    let count = this.running.size;
    for (const tenant of this.queues.keys()) if (!this.running.has(tenant)) count++;
    if (also !== undefined && !this.running.has(also) && !this.queues.has(also)) count++;
    return Math.max(1, count);
  }

  /** Queues a run, or refuses it when the queue is full (or the run can never fit). */
  offer(item: T): Refusal | null {
    if (item.memoryMb > this.limits.memoryMb) {
      return { refused: `the run's memory limit of ${item.memoryMb} MB is above the server's ceiling of ${this.limits.memoryMb} MB for all runs in flight (max_runs_memory); raise max_runs_memory or lower max_execution_memory`, quota: 'max_runs_memory' };
    }
    const queue = this.queues.get(item.tenant);
    const mine = queue?.length ?? 0;
    const running = this.running.get(item.tenant) ?? 0;
    if (this.waiting >= this.limits.queued) {
      const share = Math.ceil(this.limits.queued / this.activeTenants(item.tenant));
      const belowShare = mine < share && this.waiting < this.limits.queued * OVER_COMMIT_FACTOR;
      if (!belowShare) {
        return {
          refused: `the server is at capacity: ${this.inFlight} runs are in flight (max_runs_in_flight ${this.limits.runsInFlight}, max_runs_memory ${this.limits.memoryMb} MB) and ${this.waiting} are queued (max_queued_runs ${this.limits.queued}), ${mine} of them this token's; retry later, or raise max_queued_runs or max_runs_in_flight`,
          quota: 'max_queued_runs',
        };
      }
    }
    if (mine >= this.queuedPerToken) {
      return {
        refused: `this token has ${mine} runs queued, the most max_queued_runs_per_token (${this.queuedPerToken}) allows, and ${running} in flight (max_runs_in_flight_per_token ${this.runsPerToken}); retry when some have ended, or ask the operator to raise max_queued_runs_per_token`,
        quota: 'max_queued_runs_per_token',
      };
    }
    if (queue) queue.push(item);
    else this.queues.set(item.tenant, [item]);
    this.waiting++;
    return null;
  }

  /**
   * Queues again, first of its tenant's, a run admitted before that let go of its slot (it
   * parked while it waited for a person and has an answer now): it was accepted once, so no
   * queue ceiling refuses it; it starts when its tenant's turn and the ceilings allow.
   */
  requeue(item: T): void {
    const queue = this.queues.get(item.tenant);
    if (queue) queue.unshift(item);
    else this.queues.set(item.tenant, [item]);
    this.waiting++;
  }

  /** Takes a queued run out (its caller gave up); false when it was not queued. */
  withdraw(item: T): boolean {
    const queue = this.queues.get(item.tenant);
    const index = queue ? queue.indexOf(item) : -1;
    if (!queue || index === -1) return false;
    queue.splice(index, 1);
    if (queue.length === 0) this.queues.delete(item.tenant);
    this.waiting--;
    return true;
  }

  /**
   * The next run to start: the oldest run of the tenant with the fewest runs in flight (then
   * the one admitted longest ago) that is below its own ceiling and fits under the
   * server-wide ones, or, being below its fair share, under twice them. `place` says
   * whether a runner may take `item` now (`beyond`: the run goes past the server-wide ceiling;
   * a quarantined tenant's run goes only to the quarantine runner).
   */
  next(place: (beyond: boolean, item: T) => boolean = () => true): T | null {
    const tenants = this.activeTenants();
    const share = Math.ceil(this.limits.runsInFlight / tenants);
    const memoryShare = this.limits.memoryMb / tenants;
    for (const tenant of this.tenantsInTurn()) {
      const running = this.running.get(tenant) ?? 0;
      if (running >= this.runsPerToken) continue;
      const queue = this.queues.get(tenant)!;
      const item = queue[0];
      const within = this.inFlight < this.limits.runsInFlight && this.memoryInFlight + item.memoryMb <= this.limits.memoryMb;
      const mayGoBeyond =
        running < share &&
        (this.memoryBy.get(tenant) ?? 0) + item.memoryMb <= memoryShare &&
        this.inFlight < this.limits.runsInFlight * OVER_COMMIT_FACTOR &&
        this.memoryInFlight + item.memoryMb <= this.limits.memoryMb * OVER_COMMIT_FACTOR;
      if (!((within && place(false, item)) || (mayGoBeyond && place(true, item)))) continue;
      queue.shift();
      if (queue.length === 0) this.queues.delete(tenant);
      this.waiting--;
      this.inFlight++;
      this.memoryInFlight += item.memoryMb;
      this.running.set(tenant, running + 1);
      this.memoryBy.set(tenant, (this.memoryBy.get(tenant) ?? 0) + item.memoryMb);
      this.lastAdmitted.set(tenant, ++this.admissions);
      return item;
    }
    return null;
  }

  /** Tenants with queued runs: fewest in flight first, then the one admitted longest ago. */
  private tenantsInTurn(): string[] {
    return [...this.queues.keys()].sort(
      (a, b) => (this.running.get(a) ?? 0) - (this.running.get(b) ?? 0) || (this.lastAdmitted.get(a) ?? 0) - (this.lastAdmitted.get(b) ?? 0),
    );
  }

  /** Everything queued, in no particular order (the pool cancels them when it stops). */
  drain(): T[] {
    const all = [...this.queues.values()].flat();
    this.queues.clear();
    this.waiting = 0;
    return all;
  }

  /** A run that `next` admitted has ended. */
  ended(item: T): void {
    this.inFlight--;
    this.memoryInFlight -= item.memoryMb;
    const running = (this.running.get(item.tenant) ?? 1) - 1;
    if (running <= 0) {
      this.running.delete(item.tenant);
      this.memoryBy.delete(item.tenant);
    } else {
      this.running.set(item.tenant, running);
      this.memoryBy.set(item.tenant, (this.memoryBy.get(item.tenant) ?? item.memoryMb) - item.memoryMb);
    }
  }
}
