// CPU slots: how many runs execute guest code at once, server-wide, shared fairly across
// tenants (the token that sent each run). A run holds a slot while its isolate computes
// and gives it back when it parks (awaiting the host or a timer); a wait costs no slot.
//
// A run that never awaits cannot be pre-empted, so fairness is decided at each grant:
// - a free slot goes to the waiting tenant with the fewest runs computing (ties: the one
//   granted longest ago), so a tenant above its share yields to one below it;
// - a tenant below its fair share, ceil(slots / tenants computing or waiting), starts even
//   when every slot is taken (over-commit), up to twice the slots in all: another
//   tenant's runaway loops cannot make its run wait for them to end.
import os from 'node:os';

export interface Tenanted {
  tenant: string;
}

/** Over-commit stops at this many times the slots (the threads the cores share then). */
const OVER_COMMIT_FACTOR = 2;

export class CpuSlots<T extends Tenanted> {
  private readonly computingBy = new Map<string, number>();
  /** Waiting runs per tenant, oldest first. */
  private readonly waitingBy = new Map<string, T[]>();
  /** When each tenant was last granted (round-robin among equals); one entry per token that ever ran. */
  private readonly lastGrant = new Map<string, number>();
  private readonly holders = new Set<T>();
  private grants = 0;
  private waiting = 0;

  /**
   * @param slots runs computing at once before only tenants below their share may start more
   * @param onGrant a run that waited now holds a slot
   */
  constructor(
    readonly slots: number,
    private readonly onGrant: (item: T) => void,
  ) {}

  get computingRuns(): number {
    return this.holders.size;
  }

  get waitingRuns(): number {
    return this.waiting;
  }

  holds(item: T): boolean {
    return this.holders.has(item);
  }

  /**
   * The run wants to compute: true when it holds a slot now (it may go on), false when it
   * waits (`onGrant` tells when it may). Asking again while holding or waiting changes nothing.
   */
  request(item: T): boolean {
    if (this.holders.has(item)) return true;
    const queue = this.waitingBy.get(item.tenant);
    if (queue?.includes(item)) return false;
    if (queue) queue.push(item);
    else this.waitingBy.set(item.tenant, [item]);
    this.waiting++;
    this.pump(item);
    return this.holders.has(item);
  }

  /** The run parked or ended: its slot (or its place in the queue) goes. */
  release(item: T): void {
    if (this.holders.delete(item)) {
      const computing = (this.computingBy.get(item.tenant) ?? 1) - 1;
      if (computing > 0) this.computingBy.set(item.tenant, computing);
      else this.computingBy.delete(item.tenant);
    } else {
      const queue = this.waitingBy.get(item.tenant);
      const index = queue ? queue.indexOf(item) : -1;
      if (!queue || index === -1) return;
      queue.splice(index, 1);
      this.waiting--;
      if (queue.length === 0) this.waitingBy.delete(item.tenant);
    }
    this.pump(null);
  }

  /** Grants while the rules allow; `onGrant` for each run granted except `asking` (it hears by its return value). */
  private pump(asking: T | null): void {
    while (this.waiting > 0) {
      const tenant = this.nextTenant();
      const computing = this.computingBy.get(tenant) ?? 0;
      const total = this.holders.size;
      const share = Math.ceil(this.slots / this.activeTenants());
      if (total >= this.slots && !(computing < share && total < this.slots * OVER_COMMIT_FACTOR)) return;
      const queue = this.waitingBy.get(tenant)!;
      const item = queue.shift()!;
      if (queue.length === 0) this.waitingBy.delete(tenant);
      this.waiting--;
      this.holders.add(item);
      this.computingBy.set(tenant, computing + 1);
      this.lastGrant.set(tenant, ++this.grants);
      if (item !== asking) this.onGrant(item);
    }
  }

  /** The waiting tenant with the fewest runs computing; among equals, the one granted longest ago. */
  private nextTenant(): string {
    let best = '';
    let bestComputing = Infinity;
    let bestGrant = Infinity;
    for (const tenant of this.waitingBy.keys()) {
      const computing = this.computingBy.get(tenant) ?? 0;
      const granted = this.lastGrant.get(tenant) ?? 0;
      if (computing < bestComputing || (computing === bestComputing && granted < bestGrant)) {
        best = tenant;
        bestComputing = computing;
        bestGrant = granted;
      }
    }
    return best;
  }

  /** Tenants with runs computing or waiting to (one that only waits on the host takes no share). */
  private activeTenants(): number {
    let count = this.computingBy.size;
    for (const tenant of this.waitingBy.keys()) if (!this.computingBy.has(tenant)) count++;
    return Math.max(1, count);
  }
}

/**
 * Eight slots per core, at least 16. A run waiting for a slot is handed one by the server (a
 * round trip through its event loop), and with one slot per core that hand-off left the
 * cores idle between runs: 16 clients sending one CPU-bound program got about 25% fewer runs
 * per second (`BENCH_ONLY=http`, same program). Operators who host many tenants with
 * runaway programs lower it towards one per core (`BENCH_ONLY=fairness` measures both).
 */
export function defaultComputingRuns(): number {
  return Math.max(16, os.availableParallelism() * 8);
}
