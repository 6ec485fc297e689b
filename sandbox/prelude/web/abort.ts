// AbortController and AbortSignal (abort, timeout, any) per the DOM standard. Aborting runs
// the signal's abort algorithms (listeners added with `signal`, fetches, pipes) in a loop,
// then fires a trusted `abort` event, then aborts the dependent signals of AbortSignal.any.
import { SymbolCtor, ArrayPrototypePush, DateNow, MathMin, ReflectApply } from './primordials';
import { newDOMException, type DOMException } from '../dom-exception';
import { Event, EventTarget, setSignalHooks, trustedEvent } from './event';
import { listOf } from './headers';
import { delayOf, schedule } from './timers';
import { interfaceName } from '../idl';

const addListener = EventTarget.prototype.addEventListener;
const removeListener = EventTarget.prototype.removeEventListener;
const dispatch = EventTarget.prototype.dispatchEvent;

const CONSTRUCT = SymbolCtor('AbortSignal');

// Module-private operations (handed out by the static block, never reachable by programs).
let abortSignal: (signal: AbortSignal, reason: unknown) => void;
let newSignal: () => AbortSignal;
let link: (combined: AbortSignal, source: AbortSignal) => void;
export let deadlineOf: (signal: AbortSignal) => number;
/** Runs `algorithm` when the signal aborts, before its abort event; returns a remover. */
export let onAbort: (signal: AbortSignal, algorithm: () => void) => () => void;
export let isAbortSignal: (value: unknown) => value is AbortSignal;

function abortError(): DOMException {
  return newDOMException('signal is aborted without reason', 'AbortError');
}

export class AbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  #onabort: ((event: Event) => unknown) | null = null;
  #handlerInstalled = false;
  /** When a timeout will abort this signal (ms since the epoch), for fetch's host timeout. */
  #deadline = -1;
  #algorithms: Array<{ run: () => void; removed: boolean }> = [];
  #dependent = false;
  #sources: AbortSignal[] = [];
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
    this.#onabort = typeof value === 'function' || (typeof value === 'object' && value !== null) ? value : null;
    // An event handler is one listener, placed where it was first set (HTML event handlers).
    if (this.#onabort !== null && !this.#handlerInstalled) {
      this.#handlerInstalled = true;
      ReflectApply(addListener, this, ['abort', this.#runHandler]);
    } else if (this.#onabort === null && this.#handlerInstalled) {
      this.#handlerInstalled = false;
      ReflectApply(removeListener, this, ['abort', this.#runHandler]);
    }
  }
  readonly #runHandler = (event: Event): unknown => {
    const handler = this.#onabort;
    return typeof handler === 'function' ? ReflectApply(handler, this, [event]) : undefined;
  };
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
  static abort(reason?: unknown): AbortSignal {
    const signal = newSignal();
    signal.#aborted = true;
    signal.#reason = reason === undefined ? abortError() : reason;
    return signal;
  }
  static timeout(milliseconds: number): AbortSignal {
    if (arguments.length === 0) throw new TypeError('AbortSignal.timeout: pass a number of milliseconds');
    const delay = delayOf(milliseconds);
    const signal = newSignal();
    signal.#deadline = DateNow() + delay;
    schedule(() => abortSignal(signal, newDOMException('signal timed out', 'TimeoutError')), delay, [], false);
    return signal;
  }
  static any(signals: Iterable<AbortSignal>): AbortSignal {
    const list = listOf(signals, 'AbortSignal.any: the argument');
    const combined = newSignal();
    for (let i = 0; i < list.length; i++) {
      if (!isAbortSignal(list[i])) throw new TypeError(`AbortSignal.any: element ${i} is not an AbortSignal`);
    }
    for (let i = 0; i < list.length; i++) {
      const source = list[i] as AbortSignal;
      if (source.#aborted) {
        combined.#aborted = true;
        combined.#reason = source.#reason;
        return combined;
      }
    }
    combined.#dependent = true;
    for (let i = 0; i < list.length; i++) {
      const source = list[i] as AbortSignal;
      // A dependent signal's own sources stand in for it, so chains of any() stay flat.
      if (source.#dependent) {
        for (let j = 0; j < source.#sources.length; j++) link(combined, source.#sources[j]);
      } else link(combined, source);
    }
    return combined;
  }
  static {
    link = (combined, source) => {
      for (let i = 0; i < combined.#sources.length; i++) if (combined.#sources[i] === source) return;
      ArrayPrototypePush(combined.#sources, source);
      ArrayPrototypePush(source.#dependents, combined);
      if (source.#deadline >= 0) combined.#deadline = combined.#deadline < 0 ? source.#deadline : MathMin(combined.#deadline, source.#deadline);
    };
    abortSignal = (signal, reason) => {
      if (signal.#aborted) return;
      const value = reason === undefined ? abortError() : reason;
      // Every signal to abort, marked first (DOM "signal abort": dependents see the reason
      // before any event fires), then each one's algorithms and event, in a loop.
      const order: AbortSignal[] = [signal];
      signal.#aborted = true;
      signal.#reason = value;
      for (let i = 0; i < order.length; i++) {
        const dependents = order[i].#dependents;
        order[i].#dependents = [];
        for (let j = 0; j < dependents.length; j++) {
          const dependent = dependents[j];
          if (dependent.#aborted) continue;
          dependent.#aborted = true;
          dependent.#reason = value;
          ArrayPrototypePush(order, dependent);
        }
      }
      for (let i = 0; i < order.length; i++) {
        const target = order[i];
        const algorithms = target.#algorithms;
        target.#algorithms = [];
        for (let j = 0; j < algorithms.length; j++) if (!algorithms[j].removed) algorithms[j].run();
        ReflectApply(dispatch, target, [trustedEvent(new Event('abort'))]);
      }
    };
    deadlineOf = (signal) => signal.#deadline;
    onAbort = (signal, run) => {
      const entry = { run, removed: false };
      if (signal.#aborted) return () => undefined;
      ArrayPrototypePush(signal.#algorithms, entry);
      return () => {
        entry.removed = true;
      };
    };
    isAbortSignal = (value): value is AbortSignal => typeof value === 'object' && value !== null && #aborted in value;
  }
}
interfaceName(AbortSignal, 'AbortSignal');

// Outside the class body: a self-reference there makes the bundler rename the class (`_AbortSignal`).
newSignal = () => new AbortSignal(CONSTRUCT);

setSignalHooks({
  isSignal: (value) => isAbortSignal(value),
  aborted: (signal) => (signal as AbortSignal).aborted,
  onAbort: (signal, algorithm) => onAbort(signal as AbortSignal, algorithm),
});

export class AbortController {
  readonly #signal = newSignal();
  get signal(): AbortSignal {
    return this.#signal;
  }
  abort(reason?: unknown): void {
    abortSignal(this.#signal, reason);
  }
}
interfaceName(AbortController, 'AbortController');

/** Aborts a signal from platform code (streams' pipes, timers). */
export function signalAbort(signal: AbortSignal, reason: unknown): void {
  abortSignal(signal, reason);
}
