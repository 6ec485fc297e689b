// The runner's warm isolates: one context prepared ahead for the next run, and isolates
// idle between runs. Each run in flight owns its isolate until it gives it back.
import { createEngine, disposeEngine, memoryInUse, type CatastrophicHandler, type Engine } from './engines';
import { prepareContext, releaseContext, type Prepared, type RunnerLink } from './context';

/** Isolate retirement: after this many runs, or when the heap left after a run passes this share of the limit. */
const MAX_RUNS_PER_ISOLATE = 200;
const RETIRE_HEAP_SHARE = 0.4;
/** Idle isolates kept warm beyond the prepared one (more runs at once make more, then they go). */
const IDLE_ENGINES_KEPT = 4;

export class Shelf {
  private readonly idle: Engine[] = [];
  private ready: Prepared | null = null;
  private preparing = false;

  constructor(
    private readonly link: RunnerLink,
    private readonly onCatastrophic: CatastrophicHandler,
  ) {}

  /** At start: one context ready for the first run. */
  warm(memoryMb: number): void {
    this.ready = prepareContext(createEngine(memoryMb, this.onCatastrophic), this.link);
  }

  /** A fresh context for a run with this memory limit (the prepared one when it fits). */
  take(memoryMb: number): Prepared {
    const ready = this.ready;
    if (ready && ready.engine.memoryMb === memoryMb && !ready.engine.isolate.isDisposed) {
      this.ready = null;
      return ready;
    }
    return this.prepareOn(this.engineFor(memoryMb));
  }

  /** A context on a new isolate (the run's own isolate was disposed or holds too much). */
  fresh(memoryMb: number): Prepared {
    return this.prepareOn(createEngine(memoryMb, this.onCatastrophic));
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
    if (keep && this.idle.length < IDLE_ENGINES_KEPT) this.idle.push(engine);
    else disposeEngine(engine);
    this.prepareAhead(engine.memoryMb);
  }

  /** Off the request path: the next run's context (on an idle isolate, or a new one). */
  prepareAhead(memoryMb: number): void {
    if (this.ready !== null || this.preparing) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      if (this.ready !== null) return;
      try {
        this.ready = this.prepareOn(this.engineFor(memoryMb));
      } catch {
        this.ready = null;
      }
    });
  }

  private engineFor(memoryMb: number): Engine {
    while (this.idle.length > 0) {
      const engine = this.idle.pop()!;
      if (engine.memoryMb === memoryMb && !engine.isolate.isDisposed) return engine;
      disposeEngine(engine);
    }
    return createEngine(memoryMb, this.onCatastrophic);
  }
}
