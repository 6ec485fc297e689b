// The runner's warm isolates: contexts prepared ahead for the next runs (so a burst of runs
// starts without preparing on its path), as many as this runner's recent demand, and
// isolates idle between runs. Each run in flight owns its isolate until it gives it back.
import { createEngine, createEngineAsync, disposeEngine, memoryInUse, warmPreludeCache, type CatastrophicHandler, type Engine } from './engines';
import { prepareContext, prepareContextAsync, releaseContext, type Prepared, type RunnerLink } from './context';
import { reportMemoryIfAsked } from './memory-report';

/**
 * Isolate retirement: after this many runs, or when the heap left after a run passes this share
 * of the limit. An isolate's V8 heap grows over the runs it hosts (what V8 keeps of each
 * compiled program until the isolate goes): with 200 the shelf's heaps grew 102 -> 134 MiB from
 * the first quarter to the end of 20,000 new programs, the runner +39/+44 MiB; with 50,
 * 100 -> 111 MiB and +20/+24 (bench/PROFILE.md, round 32). A new isolate is made off the request
 * path (prepareAhead), from the prelude's code cache.
 */
const MAX_RUNS_PER_ISOLATE = 50;
const RETIRE_HEAP_SHARE = 0.4;
/**
 * Isolates kept, counting those busy with runs: SPARE_READY more than the most runs this
 * runner had in flight at once lately (or than READY_FLOOR, if that is more), never more than
 * READY_CEILING, and never more than the runs the pool sends this runner at once
 * (`runs_per_runner`) plus their spares (no more spares than those runs). The spares count in
 * that bound: without them in it, a runner sent at most 4 runs at once held its quota in
 * prepared contexts alone, so every isolate a run gave back was disposed and each run's next
 * context needed a new isolate (~4 ms of CPU; bench/PROFILE.md, round 67). A burst like a
 * recent one then finds a prepared context each and still SPARE_READY ready for a run beyond
 * it, and the isolates it gives back become the next burst's contexts, instead of new isolates
 * made on the path of its requests and the returned ones thrown away (before: 16 made and 16
 * disposed per runner per burst of 64; with the spares outside the kept count, 4 made during
 * and 4 disposed after each burst). A prepared isolate holds about 2 MiB of RSS (measured:
 * 1.9); the shelf shrinks back to the floor once the demand has not been seen for two windows.
 * While runs are in flight, new isolates are made only to keep SPARE_READY contexts beyond the
 * demand. Refilled one per turn of the event loop, off the request path, with the heavy steps
 * (a new isolate's compiles, collecting an old one's garbage, the prelude) on isolated-vm's
 * threads: the main thread keeps serving the runs in flight.
 *
 * The floor (and the spares) is what a first burst after a start finds (the shelf fills to it
 * when the first run arrives): with 32, the first burst of 64 waiting runs on two runners took
 * a median 1.39-1.46x one run, against 1.46-1.66x with 16 (BENCH_ONLY=cold-bursts, three
 * alternating sets of seven fresh servers), for about 30 MiB more per runner that has run.
 * `runner_shelf_floor` sets another: the suite's servers, living seconds, set 0 (filling to 32
 * after the first run cost the runner about 0.25 CPU-s; bench/PROFILE.md, round 36).
 *
 * The floor is for a burst after a quiet spell. While runs have overlapped in the last
 * QUIET_MS, new isolates are made only up to the recent demand plus the spares (`fillTo`): the
 * isolates a runner holds under steady load, busy ones included, are then that many, each
 * 3-3.5 MiB of heap and external (12 isolates, about 40 MiB, for a runner with 8 runs at once;
 * 4-8 at every sample of the memory soak, the runners 82-104 MiB). Before, the refill also
 * made new isolates towards the floor whenever it caught up with the runs, so the count swung
 * with how far behind it was (4 to 17 isolates on the shelf at the memory soak's samples, the
 * runner's RSS 93-136 MiB; bench/PROFILE.md, round 63). Isolates held beyond that demand (the
 * floor's, or a peak's that has passed) go as runs give them back. QUIET_MS after runs last
 * overlapped, the shelf fills to the floor again; with 1 s, a stall of the server under a
 * loaded machine's soak refilled a runner to 23 isolates at one sample, and a load with gaps
 * longer than QUIET_MS makes the floor's isolates anew after each gap (about 0.25 CPU-s a
 * runner).
 */
const READY_FLOOR = 32;
const READY_CEILING = 64;
const SPARE_READY = 4;
const REFILL_PAUSE_MS = 10;
const DEMAND_WINDOW_MS = 60_000;
const QUIET_MS = 5_000;

/** The most runs in flight at once over the current and the previous window. */
export class RecentPeak {
  private current = 0;
  private previous = 0;
  private windowStart: number;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowStart = now();
  }

  note(inFlight: number): void {
    this.roll();
    if (inFlight > this.current) this.current = inFlight;
  }

  get value(): number {
    this.roll();
    return Math.max(this.current, this.previous);
  }

  private roll(): void {
    const now = this.now();
    if (now - this.windowStart < this.windowMs) return;
    // A whole window or more without a note: the older window says nothing any more.
    this.previous = now - this.windowStart < 2 * this.windowMs ? this.current : 0;
    this.current = 0;
    this.windowStart = now;
  }
}

export class Shelf {
  private readonly idle: Engine[] = [];
  private readonly ready: Prepared[] = [];
  private preparing = false;
  /** Runs whose context is being made on a new isolate (not attached yet, but demand). */
  private starting = 0;
  /** Until a run takes a context the shelf holds only the one warm() made (see warm). */
  private serving = false;
  private memoryMb = 0;
  private readonly demand: RecentPeak;
  /** When a run last arrived while another was in flight (steady load; see fillTo). */
  private lastOverlapAt = -Infinity;
  /** Fills the shelf to the floor once runs stop overlapping (see fillTo). */
  private quietTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly link: RunnerLink,
    private readonly onCatastrophic: CatastrophicHandler,
    /** Runs this runner hosts now (the shelf's demand). */
    private readonly runsInFlight: () => number,
    /** The most runs the pool sends this runner at once: more isolates would never be used. */
    private readonly runsAtOnce: number,
    /** Isolates kept however low the demand, once a run has taken a context (`runner_shelf_floor`). */
    private readonly floor: number = READY_FLOOR,
    private readonly now: () => number = Date.now,
  ) {
    this.demand = new RecentPeak(DEMAND_WINDOW_MS, now);
  }

  /** Contexts kept ready beyond the runs in flight. */
  private get spares(): number {
    return Math.min(SPARE_READY, this.runsAtOnce);
  }

  /** Isolates to keep now, busy or on the shelf. */
  get wanted(): number {
    const spares = this.spares;
    return Math.min(READY_CEILING, this.runsAtOnce + spares, Math.max(this.floor, this.demand.value) + spares);
  }

  /**
   * Isolates held (busy ones included) up to which the refill makes new ones: `wanted` once
   * runs have not overlapped for QUIET_MS, only the recent demand and the spares while they do.
   */
  get fillTo(): number {
    if (this.now() - this.lastOverlapAt >= QUIET_MS) return this.wanted;
    return Math.min(this.wanted, this.demand.value + this.spares);
  }

  /**
   * At start: one context ready for the first run, and no more. The shelf fills to its
   * floor when that run takes it: a runner that has run nothing holds one isolate, not
   * READY_FLOOR (about 0.08 CPU-s and 28 MiB less per runner start, measured).
   */
  warm(memoryMb: number): void {
    this.memoryMb = memoryMb;
    const first = prepareContext(createEngine(memoryMb, this.onCatastrophic), this.link);
    warmPreludeCache(first.engine);
    this.ready.push(first);
    // An idle runner still gives back what an old burst left on the shelf.
    setInterval(() => this.prepareAhead(this.memoryMb), DEMAND_WINDOW_MS).unref();
    reportMemoryIfAsked(this, this.runsInFlight);
  }

  /** The isolates on the shelf now: idle ones and those holding a prepared context (the memory soak's report). */
  held(): { idle: readonly Engine[]; ready: readonly Engine[] } {
    return { idle: this.idle, ready: this.ready.map((prepared) => prepared.engine) };
  }

  /** A context is being prepared, or a run's new isolate made: the shelf is not yet what its bounds say. */
  get refilling(): boolean {
    return this.preparing || this.starting > 0;
  }

  /** A fresh context for a run with this memory limit (the prepared one when it fits). */
  async take(memoryMb: number): Promise<Prepared> {
    this.serving = true;
    // The run asking is not attached yet.
    const inFlight = this.runsInFlight() + this.starting + 1;
    this.demand.note(inFlight);
    if (inFlight > 1) this.noteOverlap();
    while (this.ready.length > 0) {
      const ready = this.ready.pop()!;
      if (ready.engine.memoryMb === memoryMb && !ready.engine.isolate.isDisposed) {
        this.prepareAhead(memoryMb);
        return ready;
      }
      releaseContext(ready);
      disposeEngine(ready.engine);
    }
    const idle = this.idleEngine(memoryMb);
    if (idle) {
      this.prepareAhead(memoryMb);
      return this.prepareOn(idle);
    }
    // A burst beyond the shelf: this run's isolate is made while the runner serves the
    // others. The refill waits until the last such run has its isolate (see prepareAhead).
    this.starting++;
    try {
      return await this.prepareOnNew(memoryMb);
    } finally {
      this.starting--;
      this.prepareAhead(memoryMb);
    }
  }

  /** Busy (this run's, given back now, no longer counted), starting, idle and ready. */
  private isolatesHeld(): number {
    return this.runsInFlight() + this.starting + this.idle.length + this.ready.length;
  }

  /** Runs overlap: the floor waits until they have not for QUIET_MS, then the shelf fills to it. */
  private noteOverlap(): void {
    this.lastOverlapAt = this.now();
    if (this.quietTimer) this.quietTimer.refresh();
    // A millisecond late: Date.now can read the timer's moment as a little short of it.
    else this.quietTimer = setTimeout(() => this.prepareAhead(this.memoryMb), QUIET_MS + 1).unref();
  }

  /** A context on a new isolate (the run's own isolate was disposed or holds too much). */
  fresh(memoryMb: number): Prepared {
    return this.prepareOn(createEngine(memoryMb, this.onCatastrophic));
  }

  /** A context on a new isolate, made mostly on isolated-vm's threads. */
  private async prepareOnNew(memoryMb: number): Promise<Prepared> {
    return this.prepareAsyncOn(await createEngineAsync(memoryMb, this.onCatastrophic));
  }

  /** A context on this isolate, its collection and prelude on isolated-vm's thread; the isolate goes if that fails. */
  private async prepareAsyncOn(engine: Engine): Promise<Prepared> {
    try {
      return await prepareContextAsync(engine, this.link);
    } catch (error) {
      disposeEngine(engine);
      throw error;
    }
  }

  /** A context on this isolate, or on a new one if preparing it fails. */
  prepareOn(engine: Engine): Prepared {
    try {
      return prepareContext(engine, this.link);
    } catch (error) {
      disposeEngine(engine);
      throw error;
    }
  }

  /**
   * After a run: its context is never used again; the isolate is kept warm unless the
   * run may have left something in it, it ran often enough, or it holds a large heap.
   */
  giveBack(prepared: Prepared, reusable: boolean): void {
    const { engine } = prepared;
    engine.owner = null;
    let keep = reusable && !engine.isolate.isDisposed;
    if (keep) {
      releaseContext(prepared);
      engine.runs++;
      try {
        keep = engine.runs < MAX_RUNS_PER_ISOLATE && memoryInUse(engine.isolate) < engine.memoryMb * 1024 * 1024 * RETIRE_HEAP_SHARE;
      } catch {
        keep = false;
      }
    }
    // Once, after the first run that ends well: the cache then carries the prelude functions a run uses too.
    if (keep) warmPreludeCache(engine, 'ran');
    // Under steady load, isolates beyond the demand go as they come back (see fillTo; never
    // more than wanted: fillTo is at most that, and the isolates held count the shelf's).
    if (keep && this.isolatesHeld() < this.fillTo) this.idle.push(engine);
    else disposeEngine(engine);
    this.prepareAhead(engine.memoryMb);
  }

  /** Off the request path: contexts for the next runs (on idle isolates, or new ones), one per turn. */
  prepareAhead(memoryMb: number): void {
    this.memoryMb = memoryMb;
    // Runs that arrived beyond the shelf are waiting for their own new isolates: contexts
    // for runs that have not arrived would take this thread and the cores from them.
    if (this.preparing || this.starting > 0) return;
    if (!this.shouldPrepare()) {
      this.trim();
      return;
    }
    this.preparing = true;
    const prepareOne = async () => {
      if (this.starting > 0 || !this.shouldPrepare()) {
        this.preparing = false;
        return;
      }
      const memoryMb = this.memoryMb;
      const idle = this.idleEngine(memoryMb);
      try {
        this.ready.push(idle ? await this.prepareAsyncOn(idle) : await this.prepareOnNew(memoryMb));
      } catch {
        return;
      } finally {
        this.preparing = false;
      }
      this.prepareAhead(this.memoryMb);
    };
    // With runs in flight and a few contexts ready, the refill yields: runs that end
    // together (a burst whose far end answers them all at once) report before this
    // thread spends 1-3 ms per context on runs that have not arrived.
    if (this.runsInFlight() > 0 && this.ready.length >= this.spares) setTimeout(prepareOne, REFILL_PAUSE_MS);
    else setImmediate(prepareOne);
  }

  /**
   * An idle isolate to prepare while the shelf holds fewer than wanted, or a new one while
   * fewer than the runs to come need (fillTo). Asked only while no run waits for a new
   * isolate (see prepareAhead), so the runs in flight are all the demand there is.
   */
  private shouldPrepare(): boolean {
    if (!this.serving) return false;
    if (this.idle.length > 0 && this.ready.length < this.wanted) return true;
    const fillTo = this.fillTo;
    return this.ready.length < Math.min(fillTo, Math.max(this.spares, fillTo - this.runsInFlight()));
  }

  /** Demand fell: isolates beyond it go (prepared ones last, newest kept). */
  private trim(): void {
    const wanted = this.wanted;
    while (this.idle.length > 0 && this.idle.length + this.ready.length > wanted) disposeEngine(this.idle.shift()!);
    while (this.ready.length > wanted) {
      const surplus = this.ready.shift()!;
      releaseContext(surplus);
      disposeEngine(surplus.engine);
    }
  }

  /** An idle isolate with this memory limit, if the shelf has one (others go). */
  private idleEngine(memoryMb: number): Engine | null {
    while (this.idle.length > 0) {
      const engine = this.idle.pop()!;
      if (engine.memoryMb === memoryMb && !engine.isolate.isDisposed) return engine;
      disposeEngine(engine);
    }
    return null;
  }
}
