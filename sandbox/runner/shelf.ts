// The runner's warm isolates: contexts prepared ahead for the next runs (so a burst of runs
// starts without preparing on its path), and isolates idle between runs. Each run in
// flight owns its isolate until it gives it back.
import { createEngine, disposeEngine, memoryInUse, type CatastrophicHandler, type Engine } from './engines';
import { prepareContext, releaseContext, type Prepared, type RunnerLink } from './context';

/** Isolate retirement: after this many runs, or when the heap left after a run passes this share of the limit. */
const MAX_RUNS_PER_ISOLATE = 200;
const RETIRE_HEAP_SHARE = 0.4;
/**
 * Contexts kept prepared, and idle isolates kept beyond them: a burst of runs needs one
 * each, and preparing costs this thread ~15-25 ms per isolate (measured, 2 busy cores); a
 * prepared isolate holds ~2 MB. Refilled one per turn of the event loop, off the request path.
 */
const READY_KEPT = 16;
const IDLE_ENGINES_KEPT = 16;

export class Shelf {
  private readonly idle: Engine[] = [];
  private readonly ready: Prepared[] = [];
  private preparing = false;
  private memoryMb = 0;

  constructor(
    private readonly link: RunnerLink,
    private readonly onCatastrophic: CatastrophicHandler,
  ) {}

  /** At start: one context ready for the first run. */
  warm(memoryMb: number): void {
    this.memoryMb = memoryMb;
    this.ready.push(prepareContext(createEngine(memoryMb, this.onCatastrophic), this.link));
    this.prepareAhead(memoryMb);
  }

  /** A fresh context for a run with this memory limit (the prepared one when it fits). */
  take(memoryMb: number): Prepared {
    while (this.ready.length > 0) {
      const ready = this.ready.pop()!;
      if (ready.engine.memoryMb === memoryMb && !ready.engine.isolate.isDisposed) {
        this.prepareAhead(memoryMb);
        return ready;
      }
      releaseContext(ready);
      disposeEngine(ready.engine);
    }
    this.prepareAhead(memoryMb);
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

  /** Off the request path: contexts for the next runs (on idle isolates, or new ones), one per turn. */
  prepareAhead(memoryMb: number): void {
    this.memoryMb = memoryMb;
    if (this.ready.length >= READY_KEPT || this.preparing) return;
    this.preparing = true;
    setImmediate(() => {
      this.preparing = false;
      if (this.ready.length >= READY_KEPT) return;
      try {
        this.ready.push(this.prepareOn(this.engineFor(this.memoryMb)));
      } catch {
        return;
      }
      this.prepareAhead(this.memoryMb);
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
