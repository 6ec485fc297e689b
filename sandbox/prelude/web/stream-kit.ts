// What the stream classes share (WHATWG Streams "miscellaneous operations"): promises made,
// settled and observed through the captured built-ins, a queue with sizes, brand checks and
// the rule that a locked stream refuses cancel/abort/close, the argument conversions of the
// constructors (queuing strategies, callbacks, a reader's or writer's stream) and a
// controller's start step.
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
/** The internal record a stream object was registered with, or null (a brand check that does not throw). */
export function recordOrNull<T>(table: WeakMap<object, T>, value: unknown): T | null {
  const record = typeof value === 'object' && value !== null ? table.get(value) : undefined;
  return record === undefined ? null : record;
}
/** The internal record a stream object was registered with, or a TypeError naming the method called on the wrong object. */
export function recordOf<T>(table: WeakMap<object, T>, value: unknown, what: string): T {
  const record = recordOrNull(table, value);
  if (record === null) throw new TypeError(`${what}: illegal invocation (not called on the right kind of object)`);
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
/**
 * A stream method the standard refuses while a reader or writer holds the stream (ReadableStream.cancel,
 * WritableStream.abort and close): a rejection naming `what` when `self` is locked or not one of `table`'s
 * streams, otherwise `use` on its record.
 */
export function withUnlocked<T>(
  table: WeakMap<object, T>, self: unknown, what: string, isLocked: (record: T) => boolean, holder: 'reader' | 'writer', use: (record: T) => Promise<undefined>,
): Promise<undefined> {
  return withRecord(table, self, what, (record) => {
    if (isLocked(record)) return rejected(new TypeError(`${what}: the stream is locked to a ${holder}`));
    return use(record);
  });
}
/**
 * The stream argument of a reader's or writer's constructor (`owner`): a TypeError when it is missing or
 * not a `streamKind` (`brand` answers null for anything else), otherwise the stream's record.
 */
export function streamArgument<T>(argumentCount: number, value: unknown, brand: (value: unknown) => T | null, owner: string, streamKind: string): T {
  if (argumentCount === 0) throw new TypeError(`${owner}: pass a ${streamKind}`);
  const record = brand(value);
  if (record === null) throw new TypeError(`${owner}: the argument must be a ${streamKind}`);
  return record;
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
/**
 * The two arguments of the ReadableStream and WritableStream constructors, converted in the order the
 * standard's tests observe: the queuing strategy's members first, then the underlying source or sink
 * (left out: none; null refused).
 */
export function underlyingAndStrategy(
  underlying: unknown, strategy: unknown, what: string, role: 'source' | 'sink',
): { underlying: Record<string, unknown> | null; strategy: RawStrategy } {
  const raw = readStrategy(strategy, what);
  if (underlying === null) throw new TypeError(`${what}: the underlying ${role} must be an object, not null`);
  const dict = underlying === undefined ? null : dictionary(underlying, `${what}: the underlying ${role}`);
  return { underlying: dict, strategy: raw };
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
/**
 * The start step of a controller's set-up: once `startResult` (the underlying source's or sink's
 * start()) fulfils the controller is started and `next` runs; `failed` gets the reason it rejects with.
 */
export function afterStart(controller: { started: boolean }, startResult: unknown, next: () => void, failed: (reason: unknown) => void): void {
  upon(
    resolved(startResult),
    () => {
      controller.started = true;
      next();
    },
    failed,
  );
}
export function sizeAlgorithm(size: ((chunk: unknown) => unknown) | undefined): (chunk: unknown) => unknown {
  if (size === undefined) return one;
  return (chunk) => ReflectApply(size, undefined, [chunk]);
}
