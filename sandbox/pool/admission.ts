// Admission of runs: a server-wide ceiling on runs in flight and on the sum of their
// memory limits; past it runs queue, fairly across tenants (the token that sent them),
// and a full queue refuses at once with the limit and the setting that raises it.

export interface AdmissionLimits {
  /** Runs in flight at once, server-wide (`max_runs_in_flight`). */
  runsInFlight: number;
  /** Sum of the memory limits of the runs in flight, in MB (`max_runs_memory`). */
  memoryMb: number;
  /** Runs waiting for admission (`max_queued_runs`). */
  queued: number;
}

export interface Admittable {
  tenant: string;
  memoryMb: number;
}

/** Why a run was not queued (the message names the limit and the setting). */
export interface Refusal {
  refused: string;
}

export class Admission<T extends Admittable> {
  private readonly queues = new Map<string, T[]>();
  private readonly running = new Map<string, number>();
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

  /** Queues a run, or refuses it when the queue is full (or the run can never fit). */
  offer(item: T): Refusal | null {
    if (item.memoryMb > this.limits.memoryMb) {
      return { refused: `the run's memory limit of ${item.memoryMb} MB is above the server's ceiling of ${this.limits.memoryMb} MB for all runs in flight (max_runs_memory); raise max_runs_memory or lower max_execution_memory` };
    }
    if (this.waiting >= this.limits.queued) {
      return {
        refused: `the server is at capacity: ${this.inFlight} runs are in flight (max_runs_in_flight ${this.limits.runsInFlight}, max_runs_memory ${this.limits.memoryMb} MB) and ${this.waiting} are queued (max_queued_runs ${this.limits.queued}); retry later, or raise max_queued_runs or max_runs_in_flight`,
      };
    }
    const queue = this.queues.get(item.tenant);
    if (queue) queue.push(item);
    else this.queues.set(item.tenant, [item]);
    this.waiting++;
    return null;
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
   * The next run to start, if one fits under the ceilings: the oldest run of the tenant
   * with the fewest runs in flight, so one tenant's many runs cannot starve another's.
   */
  next(): T | null {
    if (this.inFlight >= this.limits.runsInFlight) return null;
    let chosen: T[] | null = null;
    let fewest = Infinity;
    for (const [tenant, queue] of this.queues) {
      const running = this.running.get(tenant) ?? 0;
      if (running < fewest) {
        fewest = running;
        chosen = queue;
      }
    }
    if (!chosen) return null;
    const item = chosen[0];
    if (this.memoryInFlight + item.memoryMb > this.limits.memoryMb) return null;
    chosen.shift();
    if (chosen.length === 0) this.queues.delete(item.tenant);
    this.waiting--;
    this.inFlight++;
    this.memoryInFlight += item.memoryMb;
    this.running.set(item.tenant, (this.running.get(item.tenant) ?? 0) + 1);
    return item;
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
    if (running <= 0) this.running.delete(item.tenant);
    else this.running.set(item.tenant, running);
  }
}
