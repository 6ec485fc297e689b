// What the stream classes share (WHATWG Streams "miscellaneous operations"): promises made,
// settled and observed through the captured built-ins, a queue with sizes, and the
// argument conversions of the constructors (queuing strategies, callbacks).
import { ArrayPrototypePush, NumberCtor, NumberIsNaN, PromiseCtor, PromisePrototypeThen, PromiseReject, PromiseResolve, ReflectApply } from './primordials';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
  settled: boolean;
}

export function deferred<T>(): Deferred<T> {
  const out = { settled: false } as Deferred<T>;
  out.promise = new PromiseCtor<T>((resolve, reject) => {
    out.resolve = (value) => {
      if (out.settled) return;
      out.settled = true;
      resolve(value);
    };
    out.reject = (reason) => {
      if (out.settled) return;
      out.settled = true;
      reject(reason);
    };
  });
  return out;
}

export const resolved = <T>(value: T): Promise<T> => PromiseResolve(value) as Promise<T>;
export const rejected = (reason: unknown): Promise<never> => PromiseReject(reason);

const ignore = (): undefined => undefined;
/** Marks a promise handled (no unhandled-rejection report for it). */
export function handled<T>(promise: Promise<T>): Promise<T> {
  PromisePrototypeThen(promise, ignore, ignore);
  return promise;
}

/** `promise.then(onFulfilled, onRejected)` through the captured method. */
export function upon<T, R>(promise: Promise<T>, onFulfilled: (value: T) => R | PromiseLike<R>, onRejected?: (reason: unknown) => R | PromiseLike<R>): Promise<R> {
  return PromisePrototypeThen(promise, onFulfilled, onRejected);
}

/** Calls a program's callback and turns its result or exception into a promise. */
export function promiseCall(fn: ((...args: any[]) => unknown) | undefined, self: unknown, args: unknown[]): Promise<unknown> {
  if (fn === undefined) return resolved(undefined);
  try {
    return PromiseResolve(ReflectApply(fn, self, args));
  } catch (error) {
    return PromiseReject(error);
  }
}

/** Runs `fn` in a microtask (no program-reachable queueMicrotask). */
export function microtask(fn: () => void): void {
  PromisePrototypeThen(resolved(undefined), fn);
}

// --- queue with sizes -----------------------------------------------------------------
export interface SizedQueue {
  items: Array<{ value: unknown; size: number }>;
  head: number;
  total: number;
}
export function newQueue(): SizedQueue {
  return { items: [], head: 0, total: 0 };
}
export function queueLength(queue: SizedQueue): number {
  return queue.items.length - queue.head;
}
export function enqueueWithSize(queue: SizedQueue, value: unknown, size: unknown): void {
  if (typeof size !== 'number' || NumberIsNaN(size) || size < 0 || size === Infinity) throw new RangeError('the queuing strategy size must be a finite, non-negative number');
  ArrayPrototypePush(queue.items, { value, size });
  queue.total += size;
}
export function dequeue(queue: SizedQueue): unknown {
  const item = queue.items[queue.head];
  queue.items[queue.head++] = undefined as never;
  if (queue.head > 1024 && queue.head * 2 > queue.items.length) {
    const rest: Array<{ value: unknown; size: number }> = [];
    for (let i = queue.head; i < queue.items.length; i++) ArrayPrototypePush(rest, queue.items[i]);
    queue.items = rest;
    queue.head = 0;
  }
  queue.total -= item.size;
  if (queue.total < 0) queue.total = 0;
  return item.value;
}
export function peek(queue: SizedQueue): unknown {
  return queue.items[queue.head].value;
}
export function resetQueue(queue: SizedQueue): void {
  queue.items = [];
  queue.head = 0;
  queue.total = 0;
}

// --- brand checks ---------------------------------------------------------------------
/** The internal record a stream object was registered with, or a TypeError naming the method called on the wrong object. */
export function recordOf<T>(table: WeakMap<object, T>, value: unknown, what: string): T {
  const record = typeof value === 'object' && value !== null ? table.get(value) : undefined;
  if (record === undefined) throw new TypeError(`${what}: illegal invocation (not called on the right kind of object)`);
  return record;
}

/** For a method that answers with a promise: `use` on the record of `value`, or a rejection (not a throw) when the brand check fails. */
export function withRecord<T, R>(table: WeakMap<object, T>, value: unknown, what: string, use: (record: T) => Promise<R>): Promise<R> {
  let record: T;
  try {
    record = recordOf(table, value, what);
  } catch (error) {
    return rejected(error);
  }
  return use(record);
}

// --- constructor arguments ------------------------------------------------------------
/** A dictionary argument: undefined/null read as empty, anything else not an object refused. */
export function dictionary(value: unknown, what: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' && typeof value !== 'function') throw new TypeError(`${what} must be an object`);
  return value as Record<string, unknown>;
}
/** A member that must be a function when present. */
export function callback(dict: Record<string, unknown> | null, name: string, what: string): ((...args: any[]) => unknown) | undefined {
  if (dict === null) return undefined;
  const value = dict[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw new TypeError(`${what}: '${name}' must be a function`);
  return value as (...args: any[]) => unknown;
}

export interface Strategy {
  highWaterMark: number;
  size: (chunk: unknown) => number;
}
const one = (): number => 1;
export interface RawStrategy {
  mark: unknown;
  size: ((chunk: unknown) => unknown) | undefined;
}
/** A QueuingStrategy argument's members, read (WebIDL converts it before the source/sink). */
export function readStrategy(value: unknown, what: string): RawStrategy {
  const dict = dictionary(value, `${what}: the queuing strategy`);
  const member = dict === null ? undefined : dict.highWaterMark;
  const mark = member === undefined ? undefined : NumberCtor(member);
  const size = callback(dict, 'size', `${what}: the queuing strategy`);
  return { mark, size };
}
/** ExtractHighWaterMark and ExtractSizeAlgorithm: highWaterMark not NaN, not negative. */
export function strategyFrom(raw: RawStrategy, defaultHighWaterMark: number, what: string): { highWaterMark: number; size: ((chunk: unknown) => unknown) | undefined } {
  const mark = raw.mark;
  const size = raw.size;
  let highWaterMark = defaultHighWaterMark;
  if (mark !== undefined) {
    highWaterMark = NumberCtor(mark);
    if (NumberIsNaN(highWaterMark) || highWaterMark < 0) throw new RangeError(`${what}: highWaterMark must be a non-negative number, not ${NumberCtor(mark)}`);
  }
  return { highWaterMark, size };
}
export function sizeAlgorithm(size: ((chunk: unknown) => unknown) | undefined): (chunk: unknown) => unknown {
  if (size === undefined) return one;
  return (chunk) => ReflectApply(size, undefined, [chunk]);
}
