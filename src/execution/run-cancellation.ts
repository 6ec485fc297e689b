// A run's one cancellation: the server's shutdown, the requester leaving and a cancel through
// the run's record each end it. Each listener on Node's EventTarget costs microseconds to add
// and remove, and every wait of every run listened to all three (bench/PROFILE.md, lean39s):
// a run listens once to each outside signal, and the shutdown reaches all runs through one.
import { setMaxListeners } from 'node:events';

/**
 * The reason every run's signal is aborted with. `abort()` without one builds a
 * DOMException (with a stack) per run; nothing reads the reason.
 */
const RUN_ENDED = new DOMException('the run has ended', 'AbortError');

/** What `RunCancellation.race` gives when the run was cancelled first. */
export const CANCELLED = Symbol('cancelled');

/** The runs in flight of one executor, so the server's shutdown reaches each of them. */
export class RunCancellations {
  private readonly live = new Set<RunCancellation>();

  constructor(private readonly shutdown: AbortSignal) {
    shutdown.addEventListener('abort', () => {
      for (const run of [...this.live]) run.cancel();
    }, { once: true });
  }

  /** A run's cancellation, cancelled at once when the server or any of `signals` already has. */
  open(signals: ReadonlyArray<AbortSignal | undefined>): RunCancellation {
    const run: RunCancellation = new RunCancellation(signals, () => this.live.delete(run));
    if (this.shutdown.aborted) run.cancel();
    else this.live.add(run);
    return run;
  }
}

export class RunCancellation {
  private readonly ended = new AbortController();
  private readonly signals: AbortSignal[] = [];
  private wakeCancelled: (() => void) | null = null;
  private cancelledOnce: Promise<typeof CANCELLED> | null = null;

  constructor(signals: ReadonlyArray<AbortSignal | undefined>, private readonly forget: () => void) {
    // Each host call in flight listens to the run's signal (at most max_host_calls_in_flight, then gone).
    setMaxListeners(0, this.ended.signal);
    for (const signal of signals) {
      if (!signal) continue;
      if (signal.aborted) this.cancel();
      signal.addEventListener('abort', this.cancel);
      this.signals.push(signal);
    }
  }

  /** Aborted when the run is cancelled and when it ends (close). */
  get signal(): AbortSignal {
    return this.ended.signal;
  }

  /** Whether the run was cancelled (or has ended). */
  get aborted(): boolean {
    return this.ended.signal.aborted;
  }

  readonly cancel = (): void => {
    if (!this.ended.signal.aborted) this.ended.abort(RUN_ENDED);
    this.wakeCancelled?.();
  };

  /** The work's result, or CANCELLED as soon as the run is cancelled (the work itself goes on). */
  race<T>(work: Promise<T>): Promise<T | typeof CANCELLED> {
    if (this.aborted) return Promise.resolve(CANCELLED);
    this.cancelledOnce ??= new Promise((resolve) => (this.wakeCancelled = () => resolve(CANCELLED)));
    return Promise.race([work, this.cancelledOnce]);
  }

  /** The program has ended: the run's signal aborts, so host calls still in flight stop. */
  end(): void {
    if (!this.ended.signal.aborted) this.ended.abort(RUN_ENDED);
  }

  /** The run is over: nothing listens for its cancellation any more. */
  close(): void {
    for (const signal of this.signals) signal.removeEventListener('abort', this.cancel);
    this.forget();
    this.end();
  }
}
