// AbortController and AbortSignal (abort, timeout, any) on the minimal EventTarget.
import { DOMException, Event, EventTarget } from './events';
import { reportError } from './host';
import { ArrayIsArray, ArrayPrototypePush, DateNow, MathMin, ReflectApply } from './primordials';
import { delayOf, schedule } from './timers';

const dispatch = EventTarget.prototype.dispatchEvent;

const CONSTRUCT = Symbol('AbortSignal');

// Module-private operations (handed out by the static block, never reachable by programs).
let abortSignal: (signal: AbortSignal, reason: unknown) => void;
let newSignal: () => AbortSignal;
export let deadlineOf: (signal: AbortSignal) => number;

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  #onabort: ((event: Event) => unknown) | null = null;
  /** When a timeout will abort this signal (ms since the epoch), for fetch's host timeout. */
  #deadline = -1;
  #dependents: AbortSignal[] = [];

  constructor(token?: unknown) {
    if (token !== CONSTRUCT) throw new TypeError('Illegal constructor: use new AbortController().signal, AbortSignal.abort() or AbortSignal.timeout()');
    super();
  }
  get aborted(): boolean {
    return this.#aborted;
  }
  get reason(): unknown {
    return this.#reason;
  }
  get onabort(): ((event: Event) => unknown) | null {
    return this.#onabort;
  }
  set onabort(value: ((event: Event) => unknown) | null) {
    this.#onabort = typeof value === 'function' ? value : null;
  }
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
  static abort(reason?: unknown): AbortSignal {
    const signal = new AbortSignal(CONSTRUCT);
    signal.#aborted = true;
    signal.#reason = reason === undefined ? new DOMException('signal is aborted without reason', 'AbortError') : reason;
    return signal;
  }
  static timeout(milliseconds: number): AbortSignal {
    const delay = delayOf(milliseconds);
    const signal = new AbortSignal(CONSTRUCT);
    signal.#deadline = DateNow() + delay;
    schedule(() => abortSignal(signal, new DOMException('signal timed out', 'TimeoutError')), delay, [], false);
    return signal;
  }
  static any(signals: AbortSignal[]): AbortSignal {
    if (!ArrayIsArray(signals)) throw new TypeError('AbortSignal.any: pass an array of AbortSignals');
    const combined = new AbortSignal(CONSTRUCT);
    for (let i = 0; i < signals.length; i++) {
      const source = signals[i];
      if (!(source instanceof AbortSignal)) throw new TypeError(`AbortSignal.any: element ${i} is not an AbortSignal`);
      if (source.#aborted) {
        combined.#aborted = true;
        combined.#reason = source.#reason;
        return combined;
      }
      if (source.#deadline >= 0) combined.#deadline = combined.#deadline < 0 ? source.#deadline : MathMin(combined.#deadline, source.#deadline);
      ArrayPrototypePush(source.#dependents, combined);
    }
    return combined;
  }
  static {
    abortSignal = (signal, reason) => {
      if (signal.#aborted) return;
      signal.#aborted = true;
      signal.#reason = reason === undefined ? new DOMException('signal is aborted without reason', 'AbortError') : reason;
      const event = new Event('abort');
      const handler = signal.#onabort;
      if (handler !== null) {
        try {
          ReflectApply(handler, signal, [event]);
        } catch (error) {
          reportError(error);
        }
      }
      ReflectApply(dispatch, signal, [event]);
      const dependents = signal.#dependents;
      signal.#dependents = [];
      for (let i = 0; i < dependents.length; i++) abortSignal(dependents[i], signal.#reason);
    };
    newSignal = () => new AbortSignal(CONSTRUCT);
    deadlineOf = (signal) => signal.#deadline;
  }
}


export class AbortController {
  readonly #signal = newSignal();
  get signal(): AbortSignal {
    return this.#signal;
  }
  abort(reason?: unknown): void {
    abortSignal(this.#signal, reason);
  }
}
