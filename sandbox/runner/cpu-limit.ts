// A run's CPU time limit. Fuel counts only the program's own code (the instrumentation
// charges its regions), so time spent anywhere else costs none: a built-in looping over a
// 2^53-long array-like, trusted prelude code driven by an iterator whose `next` is a bound
// built-in, promise jobs a thenable keeps scheduling, the serialisation of a result whose
// getters loop. Such a run used to run on until max_execution_time, which is 0 (none) by
// default. The isolate's CPU time counts all of it, whichever thread runs the isolate, so
// the runner's main thread reads it (through the CpuLedger, which takes out the waits a
// loaded machine adds to it) and ends the run when it passes its limit: what its
// fuel buys (NS_PER_FUEL a unit, never less than MIN_FUEL_CPU_MS) or the server's ceiling
// (max_execution_cpu), whichever is lower. The counting of fuel itself is unchanged, so the
// same program still spends the same fuel every run.
import type { RunLimits } from './protocol';

/**
 * CPU nanoseconds one unit of fuel buys. Ordinary program code spends fuel much faster
 * (measured on the development machine: 0.25 to 2.3 units per ns for loops, calls and
 * object code), so a run that fuel alone would end still ends by fuel, where its trace
 * says; only time fuel cannot see reaches this bound.
 */
export const NS_PER_FUEL = 10;

/**
 * The least CPU time fuel buys: a small budget still pays for the runtime's own start-up work,
 * such as a lazy library's first load (a few ms; a large Package's first compile some tens).
 */
export const MIN_FUEL_CPU_MS = 250;

/** The CPU time a run may use, and the limit that sets it (the kind the run ends with). */
export interface CpuLimit {
  ms: number;
  kind: 'fuel_exhausted' | 'timeout';
}

/** The run's CPU limit: what its fuel buys, or the server's ceiling (`cpuMs`) when that is lower. */
export function cpuLimitOf(limits: Pick<RunLimits, 'fuel' | 'cpuMs'>): CpuLimit {
  const fuelMs = Math.max(MIN_FUEL_CPU_MS, (limits.fuel * NS_PER_FUEL) / 1e6);
  const ceiling = limits.cpuMs ?? 0;
  return ceiling > 0 && ceiling < fuelMs ? { ms: ceiling, kind: 'timeout' } : { ms: fuelMs, kind: 'fuel_exhausted' };
}

/** How a run that used its CPU time reads (the headline after the kind's stable marker). */
export function cpuLimitMessage(limits: Pick<RunLimits, 'fuel' | 'cpuMs'>): string {
  const limit = cpuLimitOf(limits);
  const seconds = limit.ms / 1000;
  if (limit.kind === 'timeout') {
    return `timeout exceeded: the run used ${seconds} s of CPU time, the server's ceiling for one run (max_execution_cpu); do less work per run or split it across runs`;
  }
  return `fuel exhausted: the run used ${seconds} s of CPU time, all that its budget of ${limits.fuel} fuel buys (max_execution_fuel; ${NS_PER_FUEL} ns a unit, at least ${MIN_FUEL_CPU_MS / 1000} s), counting time in built-ins and the runtime's own code, which spend no fuel; do less work per run or split it across runs`;
}

/** The isolate as the meter reads it (isolated-vm's Isolate). */
interface Metered {
  readonly cpuTime: bigint;
  readonly isDisposed: boolean;
}

/** The isolate's CPU time; null once it is disposed (a run ended, or cancelled while its isolate was made), where reading it throws. */
function cpuTimeOf(isolate: Metered): bigint | null {
  if (isolate.isDisposed) return null;
  try {
    return isolate.cpuTime;
  } catch {
    return null;
  }
}

/** The CPU time of the whole runner process (every thread), in ns. */
export function processCpuNs(): bigint {
  const { user, system } = process.cpuUsage();
  return BigInt(user + system) * 1000n;
}

/** How often the ledger reads all its runs at most (each run's watch asks every 100 ms). */
const LEDGER_TICK_MS = 50;

/**
 * The runner's CPU ledger: what each of its runs is charged. isolated-vm counts an isolate's
 * finished stretches of work in thread CPU time, exactly, but the stretch it is in as the
 * wall time since that stretch began: on a loaded machine a run waiting for a core is
 * charged the wait, and a small program beside a busy neighbour read as 0.25 s of "CPU" and
 * ended as fuel_exhausted (seen once in CI). The runs' growth in one tick together cannot
 * exceed what the whole process used in that tick, so when their readings add up to more,
 * each is charged its share of the process's time. A run alone is then charged at most the
 * process's CPU time, close to its own; a run beside a starved one may be charged less than
 * it used, by at most the number of runs computing at once (the server's CPU slots), and
 * still ends at its limit.
 */
export class CpuLedger {
  private readonly meters = new Set<CpuMeter>();
  private processLast: bigint;
  private tickedAt = -Infinity;

  constructor(
    private readonly processNs: () => bigint = processCpuNs,
    private readonly now: () => number = () => performance.now(),
    private readonly tickMs = LEDGER_TICK_MS,
  ) {
    this.processLast = processNs();
  }

  /** Starts charging a run from its isolate's current reading. */
  open(isolate: Metered, callbacks: { readonly callbackNs: bigint }, limit: CpuLimit): CpuMeter {
    const meter = new CpuMeter(this, isolate, callbacks, limit);
    this.meters.add(meter);
    return meter;
  }

  close(meter: CpuMeter): void {
    this.meters.delete(meter);
  }

  /** Reads every run's isolate once (at most once a tick) and charges each its share. */
  advance(): void {
    const at = this.now();
    if (at - this.tickedAt < this.tickMs) return;
    this.tickedAt = at;
    const processNow = this.processNs();
    const processUsed = processNow - this.processLast;
    this.processLast = processNow;
    const grown = new Map<CpuMeter, bigint>();
    let total = 0n;
    for (const meter of this.meters) {
      const growth = meter.read();
      if (growth === null) {
        this.meters.delete(meter);
        continue;
      }
      grown.set(meter, growth);
      total += growth;
    }
    for (const [meter, growth] of grown) {
      meter.charge(total > processUsed ? (growth * processUsed) / total : growth);
    }
  }
}

/**
 * One run's CPU time against its limit; the runner's main thread asks it periodically.
 * The run's CPU time is its isolate's (as the ledger charges it) plus what the context's
 * native callbacks spent on the runner's thread for it (`callbackNs`: isolated-vm does not
 * count a synchronous call out of the isolate, and a built-in can make such calls in a loop
 * that spends no fuel).
 */
export class CpuMeter {
  private readonly start: bigint;
  private last: bigint;
  private charged = 0n;

  constructor(
    private readonly ledger: CpuLedger,
    private readonly isolate: Metered,
    private readonly callbacks: { readonly callbackNs: bigint },
    readonly limit: CpuLimit,
  ) {
    // The isolate served earlier runs and prepared this run's context: only what follows counts.
    this.start = cpuTimeOf(isolate) ?? 0n;
    this.last = this.start;
  }

  /** The isolate's growth since the last read (never below 0); null once the isolate is gone. */
  read(): bigint | null {
    const now = cpuTimeOf(this.isolate);
    if (now === null) return null;
    const growth = now - this.last;
    this.last = now;
    return growth > 0n ? growth : 0n;
  }

  /**
   * Adds the run's share of a tick. A finished stretch replaces the wall time it was read as
   * by its CPU time, which may be less, so the reading can fall: the run is never charged
   * more than its isolate reads.
   */
  charge(ns: bigint): void {
    const read = this.last - this.start;
    this.charged = this.charged + ns < read ? this.charged + ns : read;
  }

  /** Whether the run has used its CPU time (false once the isolate is gone). */
  spent(): boolean {
    this.ledger.advance();
    if (this.isolate.isDisposed) return false;
    return Number(this.charged + this.callbacks.callbackNs) / 1e6 >= this.limit.ms;
  }

  /** The run ended: the ledger stops reading its isolate. */
  close(): void {
    this.ledger.close(this);
  }
}
