// Timers and queueMicrotask. The isolate has no event loop of its own: when main's
// microtasks have drained and main is still pending, the runner asks `nextDue()` for the
// next due time, waits for it (the run's time limit still counts), and calls
// `fireDue(now)`, which runs one due timer; the runner repeats until main settles. The
// callbacks are program functions, so they are metered like any program code.
import { reportError } from './host';
import { DateNow, MapPrototypeDelete, MapPrototypeForEach, MapPrototypeGetSize, MapPrototypeSet, MathMax, MathTrunc, NumberCtor, NumberIsFinite, PromisePrototypeThen, PromiseResolve, ReflectApply, SafeMap } from './primordials';

interface Timer {
  due: number;
  order: number;
  callback: (...args: unknown[]) => unknown;
  args: unknown[];
  /** Milliseconds between runs of an interval; null for a one-shot timer. */
  every: number | null;
}

const MAX_DELAY = 2_147_483_647;
const timers = new SafeMap<number, Timer>();
let lastId = 0;
let lastOrder = 0;

export function delayOf(value: unknown): number {
  const n = NumberCtor(value);
  if (!NumberIsFinite(n) || n < 0) return 0;
  // As in Deno, a delay beyond a signed 32-bit count becomes 1 ms.
  return n > MAX_DELAY ? 1 : MathTrunc(n);
}

function callbackOf(value: unknown, fn: string): (...args: unknown[]) => unknown {
  if (typeof value !== 'function') {
    throw new TypeError(`${fn}: the callback must be a function${typeof value === 'string' ? ' (code strings are not evaluated: code generation is disabled)' : ''}`);
  }
  return value as (...args: unknown[]) => unknown;
}

/** Schedules a timer; internal users (AbortSignal.timeout) pass their own function. */
export function schedule(callback: (...args: unknown[]) => unknown, delay: number, args: unknown[], repeat: boolean): number {
  const id = ++lastId;
  MapPrototypeSet(timers, id, { due: DateNow() + delay, order: ++lastOrder, callback, args, every: repeat ? MathMax(1, delay) : null });
  return id;
}

export function cancel(id: unknown): void {
  MapPrototypeDelete(timers, NumberCtor(id));
}

export function setTimeout(callback: unknown, delay?: unknown, ...args: unknown[]): number {
  return schedule(callbackOf(callback, 'setTimeout'), delayOf(delay), args, false);
}

export function setInterval(callback: unknown, delay?: unknown, ...args: unknown[]): number {
  return schedule(callbackOf(callback, 'setInterval'), delayOf(delay), args, true);
}

export function clearTimeout(id?: unknown): void {
  cancel(id);
}

export function clearInterval(id?: unknown): void {
  cancel(id);
}

export function queueMicrotask(callback: unknown): void {
  const fn = callbackOf(callback, 'queueMicrotask');
  PromisePrototypeThen(PromiseResolve(undefined), () => {
    try {
      ReflectApply(fn, undefined, []);
    } catch (error) {
      reportError(error);
    }
  });
}

/** The earliest due time of a pending timer, or -1 when none is pending. */
export function nextDue(): number {
  let earliest = -1;
  MapPrototypeForEach(timers, (timer: Timer) => {
    if (earliest < 0 || timer.due < earliest) earliest = timer.due;
  });
  return earliest;
}

/** Runs the one timer due first (by due time, then by creation), if any is due at `now`. */
export function fireDue(now: number): void {
  let chosenId = -1;
  let chosen: Timer | undefined;
  MapPrototypeForEach(timers, (timer: Timer, id: number) => {
    if (timer.due > now) return;
    if (chosen === undefined || timer.due < chosen.due || (timer.due === chosen.due && timer.order < chosen.order)) {
      chosen = timer;
      chosenId = id;
    }
  });
  if (chosen === undefined) return;
  const timer = chosen;
  if (timer.every === null) MapPrototypeDelete(timers, chosenId);
  else {
    timer.due = MathMax(now, timer.due) + timer.every;
    timer.order = ++lastOrder;
  }
  try {
    ReflectApply(timer.callback, undefined, timer.args);
  } catch (error) {
    reportError(error);
  }
}

export function pendingCount(): number {
  return MapPrototypeGetSize(timers);
}
