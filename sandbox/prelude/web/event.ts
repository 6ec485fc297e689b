// Event, CustomEvent, ErrorEvent and EventTarget per the DOM standard, for targets without a
// tree (svc has no nodes): a dispatch reaches only its target, so the phase is AT_TARGET,
// capture listeners run before the others, and composedPath() is [target] while it runs.
// Listeners are kept in one array per type and invoked by a loop over a snapshot (no
// recursion, however many listeners). An exception in a listener is reported (see
// reportException) and the dispatch goes on, as in Deno and browsers.
import { newDOMException } from '../dom-exception';
import { reportError } from './host';
import { SafeWeakSet } from '../primordials';
import { ArrayPrototypePush, ArrayPrototypeSplice, DateNow, ObjectDefineProperty, ObjectFreeze, ReflectApply, SafeMap, MapPrototypeGet, MapPrototypeSet, StringCtor } from './primordials';
import { interfaceName } from '../idl';

const NONE = 0;
const CAPTURING_PHASE = 1;
const AT_TARGET = 2;
const BUBBLING_PHASE = 3;

/** A dictionary argument: undefined/null read as empty, anything else not an object refused. */
function dictionary(value: unknown, what: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' && typeof value !== 'function') throw new TypeError(`${what}: the options argument must be an object`);
  return value as Record<string, unknown>;
}
function flag(init: Record<string, unknown> | null, name: string): boolean {
  return init !== null && !!init[name];
}

/** The AbortSignal operations EventTarget needs (abort.ts installs them; abort.ts imports this file). */
export interface SignalHooks {
  isSignal(value: unknown): boolean;
  aborted(signal: unknown): boolean;
  /** Runs `algorithm` when the signal aborts (before its abort event); returns a remover. */
  onAbort(signal: unknown, algorithm: () => void): () => void;
}
let signals: SignalHooks | null = null;
export function setSignalHooks(hooks: SignalHooks): void {
  signals = hooks;
}

// Module-private operations (handed out by the static block, never reachable by programs).
let beginDispatch: (event: Event, target: EventTarget) => void;
let setCurrent: (event: Event, target: EventTarget | null, phase: number) => void;
let endDispatch: (event: Event) => void;
let stoppedNow: (event: Event) => boolean;
let setPassive: (event: Event, passive: boolean) => void;
let isDispatching: (event: Event) => boolean;
let markTrusted: (event: Event) => void;

const trustedEvents = new SafeWeakSet<object>();
const trustedGetter = function isTrusted(this: Event): boolean {
  return trustedEvents.has(this);
};

export class Event {
  #type: string;
  #bubbles: boolean;
  #cancelable: boolean;
  #composed: boolean;
  #target: EventTarget | null = null;
  #currentTarget: EventTarget | null = null;
  #phase = NONE;
  #canceled = false;
  #stopPropagation = false;
  #stopImmediate = false;
  #dispatching = false;
  #inPassiveListener = false;
  #initialized = true;
  readonly #timeStamp: number;

  constructor(type: string, init?: EventInit) {
    if (arguments.length === 0) throw new TypeError("Event: the 'type' argument is required");
    this.#type = StringCtor(type);
    const options = dictionary(init, 'Event');
    this.#bubbles = flag(options, 'bubbles');
    this.#cancelable = flag(options, 'cancelable');
    this.#composed = flag(options, 'composed');
    this.#timeStamp = DateNow();
    // [LegacyUnforgeable]: an own, non-configurable accessor on every event.
    ObjectDefineProperty(this, 'isTrusted', { get: trustedGetter, enumerable: true, configurable: false });
  }
  get type(): string {
    return this.#type;
  }
  get target(): EventTarget | null {
    return this.#target;
  }
  get srcElement(): EventTarget | null {
    return this.#target;
  }
  get currentTarget(): EventTarget | null {
    return this.#currentTarget;
  }
  get eventPhase(): number {
    return this.#phase;
  }
  get bubbles(): boolean {
    return this.#bubbles;
  }
  get cancelable(): boolean {
    return this.#cancelable;
  }
  get composed(): boolean {
    return this.#composed;
  }
  get defaultPrevented(): boolean {
    return this.#canceled;
  }
  get returnValue(): boolean {
    return !this.#canceled;
  }
  set returnValue(value: boolean) {
    if (!value) this.#cancel();
  }
  get cancelBubble(): boolean {
    return this.#stopPropagation;
  }
  set cancelBubble(value: boolean) {
    if (value) this.#stopPropagation = true;
  }
  get timeStamp(): number {
    return this.#timeStamp;
  }
  composedPath(): EventTarget[] {
    return this.#currentTarget === null ? [] : [this.#currentTarget];
  }
  #cancel(): void {
    if (this.#cancelable && !this.#inPassiveListener) this.#canceled = true;
  }
  preventDefault(): void {
    this.#cancel();
  }
  stopPropagation(): void {
    this.#stopPropagation = true;
  }
  stopImmediatePropagation(): void {
    this.#stopPropagation = true;
    this.#stopImmediate = true;
  }
  initEvent(type: string, bubbles = false, cancelable = false): void {
    if (arguments.length === 0) throw new TypeError("Event.initEvent: the 'type' argument is required");
    if (this.#dispatching) return;
    this.#initialized = true;
    this.#stopPropagation = false;
    this.#stopImmediate = false;
    this.#canceled = false;
    this.#target = null;
    this.#type = StringCtor(type);
    this.#bubbles = !!bubbles;
    this.#cancelable = !!cancelable;
  }
  static readonly NONE = NONE;
  static readonly CAPTURING_PHASE = CAPTURING_PHASE;
  static readonly AT_TARGET = AT_TARGET;
  static readonly BUBBLING_PHASE = BUBBLING_PHASE;
  static {
    beginDispatch = (event, target) => {
      if (event.#dispatching || !event.#initialized) throw newDOMException('Event.dispatchEvent: the event is already being dispatched', 'InvalidStateError');
      event.#dispatching = true;
      event.#target = target;
    };
    setCurrent = (event, target, phase) => {
      event.#currentTarget = target;
      event.#phase = phase;
    };
    endDispatch = (event) => {
      event.#dispatching = false;
      event.#currentTarget = null;
      event.#phase = NONE;
      event.#stopPropagation = false;
      event.#stopImmediate = false;
    };
    stoppedNow = (event) => event.#stopImmediate;
    setPassive = (event, passive) => {
      event.#inPassiveListener = passive;
    };
    isDispatching = (event) => event.#dispatching;
    markTrusted = (event) => {
      trustedEvents.add(event);
    };
  }
}
interfaceName(Event, 'Event');
const PHASES: Array<[string, number]> = [['NONE', NONE], ['CAPTURING_PHASE', CAPTURING_PHASE], ['AT_TARGET', AT_TARGET], ['BUBBLING_PHASE', BUBBLING_PHASE]];
for (let i = 0; i < PHASES.length; i++) ObjectDefineProperty(Event.prototype, PHASES[i][0], { value: PHASES[i][1], enumerable: true, writable: false, configurable: false });

export interface EventInit {
  bubbles?: boolean;
  cancelable?: boolean;
  composed?: boolean;
}

/** An event the platform fires (abort, timeout, error reports): isTrusted is true. */
export function trustedEvent<E extends Event>(event: E): E {
  markTrusted(event);
  return event;
}

export class CustomEvent extends Event {
  #detail: unknown;
  constructor(type: string, init?: EventInit & { detail?: unknown }) {
    if (arguments.length === 0) throw new TypeError("CustomEvent: the 'type' argument is required");
    super(type, init);
    const options = dictionary(init, 'CustomEvent');
    this.#detail = options === null || options.detail === undefined ? null : options.detail;
  }
  get detail(): unknown {
    return this.#detail;
  }
  initCustomEvent(type: string, bubbles = false, cancelable = false, detail: unknown = null): void {
    if (arguments.length === 0) throw new TypeError("CustomEvent.initCustomEvent: the 'type' argument is required");
    if (isDispatching(this)) return;
    this.initEvent(type, bubbles, cancelable);
    this.#detail = detail;
  }
}
interfaceName(CustomEvent, 'CustomEvent');

export class ErrorEvent extends Event {
  readonly #message: string;
  readonly #filename: string;
  readonly #lineno: number;
  readonly #colno: number;
  readonly #error: unknown;
  constructor(type: string, init?: EventInit & { message?: string; filename?: string; lineno?: number; colno?: number; error?: unknown }) {
    if (arguments.length === 0) throw new TypeError("ErrorEvent: the 'type' argument is required");
    super(type, init);
    const options = dictionary(init, 'ErrorEvent');
    this.#message = options === null || options.message === undefined ? '' : StringCtor(options.message);
    this.#filename = options === null || options.filename === undefined ? '' : StringCtor(options.filename);
    this.#lineno = options === null || options.lineno === undefined ? 0 : +(options.lineno as number) >>> 0;
    this.#colno = options === null || options.colno === undefined ? 0 : +(options.colno as number) >>> 0;
    this.#error = options === null ? undefined : options.error;
  }
  get message(): string {
    return this.#message;
  }
  get filename(): string {
    return this.#filename;
  }
  get lineno(): number {
    return this.#lineno;
  }
  get colno(): number {
    return this.#colno;
  }
  get error(): unknown {
    return this.#error;
  }
}
interfaceName(ErrorEvent, 'ErrorEvent');

type Callback = ((event: Event) => unknown) | { handleEvent(event: Event): unknown };
interface Listener {
  callback: Callback;
  capture: boolean;
  once: boolean;
  passive: boolean;
  removed: boolean;
  detach: (() => void) | null;
}

function captureOf(options: unknown): boolean {
  if (typeof options === 'boolean') return options;
  const init = dictionary(options, 'EventTarget');
  return flag(init, 'capture');
}

/** The global scope's target: `addEventListener('error', ...)` on globalThis hears reported errors. */
let globalTarget: EventTarget | null = null;

export class EventTarget {
  readonly #listeners = new SafeMap<string, Listener[]>();

  addEventListener(type: string, callback: Callback | null, options?: boolean | AddEventListenerOptions): void {
    if (arguments.length < 2) throw new TypeError('EventTarget.addEventListener: pass a type and a listener');
    const key = StringCtor(type);
    const capture = captureOf(options);
    const init = typeof options === 'object' ? dictionary(options, 'EventTarget.addEventListener') : null;
    const once = flag(init, 'once');
    const passive = flag(init, 'passive');
    const signal = init === null ? undefined : init.signal;
    if (signal !== undefined && (signals === null || !signals.isSignal(signal))) throw new TypeError("EventTarget.addEventListener: the 'signal' option must be an AbortSignal");
    if (callback === null || callback === undefined) return;
    if (typeof callback !== 'function' && typeof callback !== 'object') throw new TypeError('EventTarget.addEventListener: the listener must be a function or an object with handleEvent');
    if (signal !== undefined && signals!.aborted(signal)) return;
    let list = MapPrototypeGet(this.#listeners, key);
    if (list === undefined) {
      list = [];
      MapPrototypeSet(this.#listeners, key, list);
    }
    for (let i = 0; i < list.length; i++) if (list[i].callback === callback && list[i].capture === capture) return;
    const listener: Listener = { callback, capture, once, passive, removed: false, detach: null };
    ArrayPrototypePush(list, listener);
    if (signal !== undefined) listener.detach = signals!.onAbort(signal, () => this.#remove(key, listener));
  }

  removeEventListener(type: string, callback: Callback | null, options?: boolean | EventListenerOptions): void {
    if (arguments.length < 2) throw new TypeError('EventTarget.removeEventListener: pass a type and a listener');
    const key = StringCtor(type);
    const capture = captureOf(options);
    const list = MapPrototypeGet(this.#listeners, key);
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) {
      if (list[i].callback === callback && list[i].capture === capture) {
        this.#remove(key, list[i]);
        return;
      }
    }
  }

  #remove(key: string, listener: Listener): void {
    if (listener.removed) return;
    listener.removed = true;
    if (listener.detach !== null) listener.detach();
    listener.detach = null;
    const list = MapPrototypeGet(this.#listeners, key);
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) {
      if (list[i] === listener) {
        ArrayPrototypeSplice(list, i, 1);
        return;
      }
    }
  }

  dispatchEvent(event: Event): boolean {
    if (arguments.length === 0) throw new TypeError('EventTarget.dispatchEvent: pass an Event');
    if (!(event instanceof Event)) throw new TypeError('EventTarget.dispatchEvent: the argument must be an Event');
    beginDispatch(event, this);
    const self = this;
    try {
      const list = MapPrototypeGet(self.#listeners, event.type);
      if (list !== undefined) {
        const snapshot: Listener[] = [];
        for (let i = 0; i < list.length; i++) ArrayPrototypePush(snapshot, list[i]);
        setCurrent(event, self, AT_TARGET);
        // At the target, capture listeners first, then the others (DOM "dispatch" steps).
        self.#invoke(event, snapshot, true);
        if (!stoppedNow(event)) self.#invoke(event, snapshot, false);
      }
    } finally {
      endDispatch(event);
    }
    return !event.defaultPrevented;
  }

  #invoke(event: Event, snapshot: Listener[], capture: boolean): void {
    const key = event.type;
    for (let i = 0; i < snapshot.length; i++) {
      const listener = snapshot[i];
      if (listener.removed || listener.capture !== capture) continue;
      if (listener.once) this.#remove(key, listener);
      if (listener.passive) setPassive(event, true);
      try {
        const callback = listener.callback;
        if (typeof callback === 'function') ReflectApply(callback, this === globalTarget ? globalThis : this, [event]);
        else {
          const handle = callback.handleEvent;
          if (typeof handle !== 'function') throw new TypeError("EventTarget: the listener object has no 'handleEvent' method");
          ReflectApply(handle, callback, [event]);
        }
      } catch (error) {
        reportException(error);
      }
      setPassive(event, false);
      if (stoppedNow(event)) return;
    }
  }

}
interfaceName(EventTarget, 'EventTarget');

export interface EventListenerOptions {
  capture?: boolean;
}
export interface AddEventListenerOptions extends EventListenerOptions {
  once?: boolean;
  passive?: boolean;
  signal?: unknown;
}

let reporting = false;
/**
 * The HTML "report an exception" steps: an `error` event on the global scope; unless a
 * listener there cancels it, the error is uncaught and ends the run (as Deno ends the
 * process). Code after the throwing listener, and the other listeners, still run first.
 */
export function reportException(error: unknown): void {
  if (globalTarget === null || reporting) {
    reportError(error);
    return;
  }
  const message = error !== null && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string' ? `Uncaught ${(error as { message: string }).message}` : `Uncaught ${StringCtor(error)}`;
  const event = trustedEvent(new ErrorEvent('error', { cancelable: true, message, error }));
  reporting = true;
  let handled: boolean;
  try {
    handled = !globalTarget.dispatchEvent(event);
  } finally {
    reporting = false;
  }
  if (!handled) reportError(error);
}

/** The global scope's addEventListener, removeEventListener, dispatchEvent and reportError. */
export function globalEventFunctions(): Record<string, unknown> {
  const target = new EventTarget();
  globalTarget = target;
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  return ObjectFreeze({
    addEventListener: function addEventListener(type: string, callback: Callback | null, options?: boolean | AddEventListenerOptions) {
      return ReflectApply(add, target, arguments as unknown as unknown[]);
    },
    removeEventListener: function removeEventListener(type: string, callback: Callback | null, options?: boolean | EventListenerOptions) {
      return ReflectApply(remove, target, arguments as unknown as unknown[]);
    },
    dispatchEvent: function dispatchEvent(event: Event) {
      return ReflectApply(dispatch, target, arguments as unknown as unknown[]);
    },
    reportError: function reportError(error: unknown) {
      if (arguments.length === 0) throw new TypeError('reportError: pass the error to report');
      reportException(error);
    },
  });
}
