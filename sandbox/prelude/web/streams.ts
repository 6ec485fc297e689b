// A minimal ReadableStream: enough to read a body chunk by chunk (getReader, async
// iteration) and to give a Request or Response a body from a program's own source
// (start/pull with enqueue/close/error). No byte streams, tee or piping.
import { ArrayPrototypePush, PromiseCtor, PromisePrototypeThen, PromiseReject, PromiseResolve, ReflectApply, SymbolAsyncIterator } from './primordials';

interface Pending {
  resolve: (result: IteratorResult<unknown>) => void;
  reject: (error: unknown) => void;
}
interface Source {
  start?: (controller: ReadableStreamDefaultController) => unknown;
  pull?: (controller: ReadableStreamDefaultController) => unknown;
  cancel?: (reason: unknown) => unknown;
}

const CONSTRUCT = Symbol('stream internals');

let enqueue: (stream: ReadableStream, chunk: unknown) => void;
let close: (stream: ReadableStream) => void;
let fail: (stream: ReadableStream, reason: unknown) => void;
let lock: (stream: ReadableStream) => void;
let unlock: (stream: ReadableStream) => void;
let read: (stream: ReadableStream) => Promise<IteratorResult<unknown>>;
let cancelStream: (stream: ReadableStream, reason: unknown) => Promise<void>;
export let isDisturbed: (stream: ReadableStream) => boolean;
export let drainNow: (stream: ReadableStream) => unknown[] | null;

export class ReadableStreamDefaultController {
  readonly #stream: ReadableStream;
  constructor(token?: unknown, stream?: ReadableStream) {
    if (token !== CONSTRUCT) throw new TypeError('Illegal constructor');
    this.#stream = stream!;
  }
  get desiredSize(): number {
    return 1;
  }
  enqueue(chunk: unknown): void {
    enqueue(this.#stream, chunk);
  }
  close(): void {
    close(this.#stream);
  }
  error(reason?: unknown): void {
    fail(this.#stream, reason);
  }
}

export class ReadableStream {
  #queue: unknown[] = [];
  #head = 0;
  #state: 'readable' | 'closed' | 'errored' = 'readable';
  #error: unknown = undefined;
  #locked = false;
  #disturbed = false;
  #pending: Pending[] = [];
  #source: Source | null = null;
  #controller: ReadableStreamDefaultController;
  #pulling = false;

  constructor(source?: Source) {
    this.#controller = new ReadableStreamDefaultController(CONSTRUCT, this);
    if (source === undefined || source === null) return;
    if (typeof source !== 'object') throw new TypeError('ReadableStream: the source must be an object');
    this.#source = source;
    if (typeof source.start === 'function') ReflectApply(source.start, source, [this.#controller]);
  }
  get locked(): boolean {
    return this.#locked;
  }
  getReader(): ReadableStreamDefaultReader {
    return new ReadableStreamDefaultReader(this);
  }
  cancel(reason?: unknown): Promise<void> {
    if (this.#locked) return PromiseReject(new TypeError('ReadableStream.cancel: the stream is locked to a reader'));
    return cancelStream(this, reason);
  }
  [SymbolAsyncIterator](): AsyncIterableIterator<unknown> {
    const reader = this.getReader();
    const iterator = {
      next: () => reader.read(),
      return: (value?: unknown) => {
        reader.releaseLock();
        return PromiseResolve({ value, done: true as const });
      },
      [SymbolAsyncIterator]() {
        return iterator;
      },
    };
    return iterator as unknown as AsyncIterableIterator<unknown>;
  }

  static {
    enqueue = (stream, chunk) => {
      if (stream.#state !== 'readable') throw new TypeError('ReadableStream: the stream is closed');
      const waiting = stream.#pending;
      if (stream.#head >= stream.#queue.length && waiting.length > 0) {
        const next = waiting[0];
        stream.#pending = sliceFrom(waiting, 1);
        next.resolve({ value: chunk, done: false });
        return;
      }
      ArrayPrototypePush(stream.#queue, chunk);
    };
    close = (stream) => {
      if (stream.#state !== 'readable') return;
      stream.#state = 'closed';
      if (stream.#head >= stream.#queue.length) settlePending(stream);
    };
    fail = (stream, reason) => {
      if (stream.#state !== 'readable') return;
      stream.#state = 'errored';
      stream.#error = reason;
      stream.#queue = [];
      stream.#head = 0;
      settlePending(stream);
    };
    const settlePending = (stream: ReadableStream) => {
      const waiting = stream.#pending;
      stream.#pending = [];
      for (let i = 0; i < waiting.length; i++) {
        if (stream.#state === 'errored') waiting[i].reject(stream.#error);
        else waiting[i].resolve({ value: undefined, done: true });
      }
    };
    lock = (stream) => {
      if (stream.#locked) throw new TypeError('ReadableStream: the stream is already locked to a reader');
      stream.#locked = true;
    };
    unlock = (stream) => {
      stream.#locked = false;
    };
    read = (stream) => {
      stream.#disturbed = true;
      if (stream.#head < stream.#queue.length) {
        const value = stream.#queue[stream.#head];
        stream.#queue[stream.#head++] = undefined;
        return PromiseResolve({ value, done: false });
      }
      if (stream.#state === 'closed') return PromiseResolve({ value: undefined, done: true });
      if (stream.#state === 'errored') return PromiseReject(stream.#error);
      const promise = new PromiseCtor<IteratorResult<unknown>>((resolve, reject) => ArrayPrototypePush(stream.#pending, { resolve, reject }));
      const source = stream.#source;
      if (source !== null && typeof source.pull === 'function' && !stream.#pulling) {
        stream.#pulling = true;
        try {
          ReflectApply(source.pull, source, [stream.#controller]);
        } catch (error) {
          fail(stream, error);
        } finally {
          stream.#pulling = false;
        }
      }
      return promise;
    };
    cancelStream = (stream, reason) => {
      stream.#disturbed = true;
      const source = stream.#source;
      close(stream);
      stream.#queue = [];
      stream.#head = 0;
      if (source !== null && typeof source.cancel === 'function') {
        try {
          ReflectApply(source.cancel, source, [reason]);
        } catch (error) {
          return PromiseReject(error);
        }
      }
      return PromiseResolve(undefined);
    };
    isDisturbed = (stream) => stream.#disturbed;
    /** Everything already queued when the stream is closed; null if more may come. */
    drainNow = (stream) => {
      if (stream.#state === 'errored') throw stream.#error;
      if (stream.#state !== 'closed') return null;
      stream.#disturbed = true;
      const out: unknown[] = [];
      for (let i = stream.#head; i < stream.#queue.length; i++) ArrayPrototypePush(out, stream.#queue[i]);
      stream.#queue = [];
      stream.#head = 0;
      return out;
    };
  }
}

function sliceFrom<T>(items: T[], start: number): T[] {
  const out: T[] = [];
  for (let i = start; i < items.length; i++) ArrayPrototypePush(out, items[i]);
  return out;
}


export class ReadableStreamDefaultReader {
  #stream: ReadableStream | null;
  constructor(stream: ReadableStream) {
    if (!(stream instanceof ReadableStream)) throw new TypeError('ReadableStreamDefaultReader: the argument must be a ReadableStream');
    lock(stream);
    this.#stream = stream;
  }
  read(): Promise<IteratorResult<unknown>> {
    if (this.#stream === null) return PromiseReject(new TypeError('ReadableStreamDefaultReader: the reader has been released'));
    return read(this.#stream);
  }
  releaseLock(): void {
    if (this.#stream !== null) unlock(this.#stream);
    this.#stream = null;
  }
  cancel(reason?: unknown): Promise<void> {
    if (this.#stream === null) return PromiseReject(new TypeError('ReadableStreamDefaultReader: the reader has been released'));
    return cancelStream(this.#stream, reason);
  }
  get closed(): Promise<void> {
    return PromiseResolve(undefined);
  }
}

/** A closed stream holding these bytes as one chunk. */
export function streamOfBytes(bytes: Uint8Array): ReadableStream {
  const stream = new ReadableStream();
  if (bytes.length > 0) enqueue(stream, bytes);
  close(stream);
  return stream;
}

/** Reads a whole stream (for text(), json() ...); chunks must be bytes. */
export function readAll(stream: ReadableStream, onChunk: (chunk: unknown) => void): Promise<void> {
  if (stream.locked) return PromiseReject(new TypeError('the body stream is locked to a reader'));
  lock(stream);
  const step = (): Promise<void> =>
    PromisePrototypeThen(read(stream), (result: IteratorResult<unknown>): Promise<void> | undefined => {
      if (result.done) {
        unlock(stream);
        return undefined;
      }
      onChunk(result.value);
      return step();
    }) as Promise<void>;
  return step();
}
