// WritableStream per the WHATWG Streams standard: a sink written one chunk at a time in
// order, back-pressure from a queuing strategy, close and abort (with the controller's
// AbortSignal), writers with ready/closed/desiredSize. Records and algorithm names as in
// the standard, as in ./streams.ts. No class body names its own class (bundler renames).
import { SymbolCtor, ArrayPrototypePush, ReflectApply } from './primordials';
import { AbortController, AbortSignal, signalAbort } from './abort';
import { SafeWeakMap } from '../primordials';
import { afterStart, callback, deferred, dequeue, enqueueWithSize, handled, newQueue, peek, promiseCall, queueLength, recordOf, recordOrNull, rejected, streamArgument, underlyingAndStrategy, withUnlocked, withRecord, resetQueue, resolved, sizeAlgorithm, strategyFrom, upon, type Deferred, type SizedQueue } from './stream-kit';
import { interfaceName } from '../idl';

const TOKEN = SymbolCtor('writable internals');
const CLOSE = SymbolCtor('close sentinel');

export interface WriterRecord {
  stream: WritableRecord | null;
  ready: Deferred<undefined>;
  closed: Deferred<undefined>;
}
interface SinkController {
  stream: WritableRecord;
  queue: SizedQueue;
  started: boolean;
  highWaterMark: number;
  size: ((chunk: unknown) => unknown) | null;
  write: ((chunk: unknown) => Promise<unknown>) | null;
  close: (() => Promise<unknown>) | null;
  abort: ((reason: unknown) => Promise<unknown>) | null;
  abortController: AbortController;
  wrapper: WritableStreamDefaultController;
}
export interface WritableRecord {
  state: 'writable' | 'closed' | 'erroring' | 'errored';
  storedError: unknown;
  writer: WriterRecord | null;
  controller: SinkController;
  inFlightWriteRequest: Deferred<undefined> | null;
  closeRequest: Deferred<undefined> | null;
  inFlightCloseRequest: Deferred<undefined> | null;
  pendingAbortRequest: { promise: Deferred<undefined>; reason: unknown; wasAlreadyErroring: boolean } | null;
  writeRequests: Array<Deferred<undefined>>;
  backpressure: boolean;
  wrapper: WritableStream;
}

const streams = new SafeWeakMap<object, WritableRecord>();
const writers = new SafeWeakMap<object, WriterRecord>();
const controllers = new SafeWeakMap<object, SinkController>();
export function writableRecord(value: unknown): WritableRecord | null {
  return recordOrNull(streams, value);
}

function shift<T>(list: T[]): { first: T; rest: T[] } {
  const rest: T[] = [];
  for (let i = 1; i < list.length; i++) ArrayPrototypePush(rest, list[i]);
  return { first: list[0], rest };
}

// --- stream algorithms ----------------------------------------------------------------
export function isWritableLocked(stream: WritableRecord): boolean {
  return stream.writer !== null;
}
export function writableAbort(stream: WritableRecord, reason: unknown): Promise<undefined> {
  if (stream.state === 'closed' || stream.state === 'errored') return resolved(undefined);
  signalAbort(stream.controller.abortController.signal, reason);
  const state = stream.state as WritableRecord['state'];
  if (state === 'closed' || state === 'errored') return resolved(undefined);
  if (stream.pendingAbortRequest !== null) return stream.pendingAbortRequest.promise.promise;
  const wasAlreadyErroring = state === 'erroring';
  const promise = deferred<undefined>();
  stream.pendingAbortRequest = { promise, reason: wasAlreadyErroring ? undefined : reason, wasAlreadyErroring };
  if (!wasAlreadyErroring) startErroring(stream, reason);
  return promise.promise;
}
export function writableClose(stream: WritableRecord): Promise<undefined> {
  if (stream.state === 'closed' || stream.state === 'errored') return rejected(new TypeError('WritableStream: the stream is already closed or errored'));
  const promise = deferred<undefined>();
  stream.closeRequest = promise;
  const writer = stream.writer;
  if (writer !== null && stream.backpressure && stream.state === 'writable') writer.ready.resolve(undefined);
  enqueueWithSize(stream.controller.queue, CLOSE, 0);
  advanceQueueIfNeeded(stream.controller);
  return promise.promise;
}
function dealWithRejection(stream: WritableRecord, error: unknown): void {
  if (stream.state === 'writable') startErroring(stream, error);
  else finishErroring(stream);
}
function startErroring(stream: WritableRecord, reason: unknown): void {
  const controller = stream.controller;
  stream.state = 'erroring';
  stream.storedError = reason;
  if (stream.writer !== null) ensureReadyRejected(stream.writer, reason);
  if (!hasOperationInFlight(stream) && controller.started) finishErroring(stream);
}
function finishErroring(stream: WritableRecord): void {
  stream.state = 'errored';
  resetQueue(stream.controller.queue);
  const error = stream.storedError;
  const requests = stream.writeRequests;
  stream.writeRequests = [];
  for (let i = 0; i < requests.length; i++) requests[i].reject(error);
  const abortRequest = stream.pendingAbortRequest;
  if (abortRequest === null) {
    rejectCloseAndClosedIfNeeded(stream);
    return;
  }
  stream.pendingAbortRequest = null;
  if (abortRequest.wasAlreadyErroring) {
    abortRequest.promise.reject(error);
    rejectCloseAndClosedIfNeeded(stream);
    return;
  }
  const controller = stream.controller;
  const abort = controller.abort;
  clearAlgorithms(controller);
  upon(
    abort === null ? resolved(undefined) : abort(abortRequest.reason),
    () => {
      abortRequest.promise.resolve(undefined);
      rejectCloseAndClosedIfNeeded(stream);
    },
    (reason) => {
      abortRequest.promise.reject(reason);
      rejectCloseAndClosedIfNeeded(stream);
    },
  );
}
function finishInFlightWrite(stream: WritableRecord): void {
  stream.inFlightWriteRequest!.resolve(undefined);
  stream.inFlightWriteRequest = null;
}
function finishInFlightWriteWithError(stream: WritableRecord, error: unknown): void {
  stream.inFlightWriteRequest!.reject(error);
  stream.inFlightWriteRequest = null;
  dealWithRejection(stream, error);
}
function finishInFlightClose(stream: WritableRecord): void {
  stream.inFlightCloseRequest!.resolve(undefined);
  stream.inFlightCloseRequest = null;
  if (stream.state === 'erroring') {
    stream.storedError = undefined;
    if (stream.pendingAbortRequest !== null) {
      stream.pendingAbortRequest.promise.resolve(undefined);
      stream.pendingAbortRequest = null;
    }
  }
  stream.state = 'closed';
  if (stream.writer !== null) stream.writer.closed.resolve(undefined);
}
function finishInFlightCloseWithError(stream: WritableRecord, error: unknown): void {
  stream.inFlightCloseRequest!.reject(error);
  stream.inFlightCloseRequest = null;
  if (stream.pendingAbortRequest !== null) {
    stream.pendingAbortRequest.promise.reject(error);
    stream.pendingAbortRequest = null;
  }
  dealWithRejection(stream, error);
}
export function closeQueuedOrInFlight(stream: WritableRecord): boolean {
  return stream.closeRequest !== null || stream.inFlightCloseRequest !== null;
}
function hasOperationInFlight(stream: WritableRecord): boolean {
  return stream.inFlightWriteRequest !== null || stream.inFlightCloseRequest !== null;
}
function rejectCloseAndClosedIfNeeded(stream: WritableRecord): void {
  if (stream.closeRequest !== null) {
    stream.closeRequest.reject(stream.storedError);
    stream.closeRequest = null;
  }
  const writer = stream.writer;
  if (writer !== null) {
    writer.closed.reject(stream.storedError);
    handled(writer.closed.promise);
  }
}
function updateBackpressure(stream: WritableRecord, backpressure: boolean): void {
  const writer = stream.writer;
  if (writer !== null && backpressure !== stream.backpressure) {
    if (backpressure) writer.ready = deferred<undefined>();
    else writer.ready.resolve(undefined);
  }
  stream.backpressure = backpressure;
}

// --- controller algorithms ------------------------------------------------------------
function clearAlgorithms(controller: SinkController): void {
  controller.write = null;
  controller.close = null;
  controller.abort = null;
  controller.size = null;
}
function desiredSize(controller: SinkController): number {
  return controller.highWaterMark - controller.queue.total;
}
function backpressureOf(controller: SinkController): boolean {
  return desiredSize(controller) <= 0;
}
function chunkSize(controller: SinkController, chunk: unknown): unknown {
  if (controller.size === null) return 1;
  try {
    return controller.size(chunk);
  } catch (error) {
    errorIfNeeded(controller, error);
    return 1;
  }
}
function errorIfNeeded(controller: SinkController, error: unknown): void {
  if (controller.stream.state === 'writable') controllerError(controller, error);
}
function controllerError(controller: SinkController, error: unknown): void {
  clearAlgorithms(controller);
  startErroring(controller.stream, error);
}
function controllerWrite(controller: SinkController, chunk: unknown, size: unknown): void {
  try {
    enqueueWithSize(controller.queue, chunk, size);
  } catch (error) {
    errorIfNeeded(controller, error);
    return;
  }
  const stream = controller.stream;
  if (!closeQueuedOrInFlight(stream) && stream.state === 'writable') updateBackpressure(stream, backpressureOf(controller));
  advanceQueueIfNeeded(controller);
}
function advanceQueueIfNeeded(controller: SinkController): void {
  const stream = controller.stream;
  if (!controller.started || stream.inFlightWriteRequest !== null) return;
  if (stream.state === 'erroring') {
    finishErroring(stream);
    return;
  }
  if (queueLength(controller.queue) === 0) return;
  const value = peek(controller.queue);
  if (value === CLOSE) processClose(controller);
  else processWrite(controller, value);
}
function processClose(controller: SinkController): void {
  const stream = controller.stream;
  stream.inFlightCloseRequest = stream.closeRequest;
  stream.closeRequest = null;
  dequeue(controller.queue);
  const close = controller.close;
  clearAlgorithms(controller);
  upon(
    close === null ? resolved(undefined) : close(),
    () => finishInFlightClose(stream),
    (reason) => finishInFlightCloseWithError(stream, reason),
  );
}
function processWrite(controller: SinkController, chunk: unknown): void {
  const stream = controller.stream;
  const next = shift(stream.writeRequests);
  stream.inFlightWriteRequest = next.first;
  stream.writeRequests = next.rest;
  const write = controller.write;
  upon(
    write === null ? resolved(undefined) : write(chunk),
    () => {
      finishInFlightWrite(stream);
      dequeue(controller.queue);
      if (!closeQueuedOrInFlight(stream) && stream.state === 'writable') updateBackpressure(stream, backpressureOf(controller));
      advanceQueueIfNeeded(controller);
    },
    (reason) => {
      if (stream.state === 'writable') clearAlgorithms(controller);
      finishInFlightWriteWithError(stream, reason);
    },
  );
}

export class WritableStreamDefaultController {
  constructor(token?: unknown, record?: SinkController) {
    if (token !== TOKEN) throw new TypeError('Illegal constructor');
    controllers.set(this, record!);
  }
  get signal(): AbortSignal {
    return recordOf(controllers, this, 'WritableStreamDefaultController.signal').abortController.signal;
  }
  error(reason?: unknown): void {
    const controller = recordOf(controllers, this, 'WritableStreamDefaultController.error');
    if (controller.stream.state !== 'writable') return;
    controllerError(controller, reason);
  }
}
interfaceName(WritableStreamDefaultController, 'WritableStreamDefaultController');

/** SetUpWritableStreamDefaultController from algorithms. */
export function setUpSink(
  stream: WritableRecord,
  start: (controller: WritableStreamDefaultController) => unknown,
  write: ((chunk: unknown, controller: WritableStreamDefaultController) => Promise<unknown>) | null,
  close: (() => Promise<unknown>) | null,
  abort: ((reason: unknown) => Promise<unknown>) | null,
  highWaterMark: number,
  size: ((chunk: unknown) => unknown) | null,
): void {
  const controller: SinkController = {
    stream, queue: newQueue(), started: false, highWaterMark, size, write: null, close, abort, abortController: new AbortController(), wrapper: null as never,
  };
  controller.wrapper = new WritableStreamDefaultController(TOKEN, controller);
  controller.write = write === null ? null : (chunk) => write(chunk, controller.wrapper);
  stream.controller = controller;
  updateBackpressure(stream, backpressureOf(controller));
  afterStart(controller, start(controller.wrapper), () => advanceQueueIfNeeded(controller), (reason) => {
    controller.started = true;
    dealWithRejection(stream, reason);
  });
}

/** WritableStreamDefaultControllerErrorIfNeeded, for TransformStream. */
export function sinkErrorIfNeeded(stream: WritableRecord, error: unknown): void {
  errorIfNeeded(stream.controller, error);
}

// --- writers --------------------------------------------------------------------------
function ensureReadyRejected(writer: WriterRecord, reason: unknown): void {
  if (writer.ready.settled) writer.ready = deferred<undefined>();
  writer.ready.reject(reason);
  handled(writer.ready.promise);
}
function ensureClosedRejected(writer: WriterRecord, reason: unknown): void {
  if (writer.closed.settled) writer.closed = deferred<undefined>();
  writer.closed.reject(reason);
  handled(writer.closed.promise);
}

export function acquireWriter(stream: WritableRecord): WriterRecord {
  if (isWritableLocked(stream)) throw new TypeError('WritableStream: the stream is locked to a writer');
  const writer: WriterRecord = { stream, ready: deferred<undefined>(), closed: deferred<undefined>() };
  stream.writer = writer;
  const state = stream.state;
  if (state === 'writable') {
    if (closeQueuedOrInFlight(stream) || !stream.backpressure) writer.ready.resolve(undefined);
  } else if (state === 'erroring') {
    writer.ready.reject(stream.storedError);
    handled(writer.ready.promise);
  } else if (state === 'closed') {
    writer.ready.resolve(undefined);
    writer.closed.resolve(undefined);
  } else {
    writer.ready.reject(stream.storedError);
    handled(writer.ready.promise);
    writer.closed.reject(stream.storedError);
    handled(writer.closed.promise);
  }
  return writer;
}
export function writerRelease(writer: WriterRecord): void {
  const stream = writer.stream!;
  const error = new TypeError('the writer was released');
  ensureReadyRejected(writer, error);
  ensureClosedRejected(writer, error);
  stream.writer = null;
  writer.stream = null;
}
export function writerWrite(writer: WriterRecord, chunk: unknown): Promise<undefined> {
  const stream = writer.stream!;
  const controller = stream.controller;
  const size = chunkSize(controller, chunk);
  if (stream !== writer.stream) return rejected(new TypeError('WritableStreamDefaultWriter.write: the writer was released'));
  const state = stream.state;
  if (state === 'errored') return rejected(stream.storedError);
  if (closeQueuedOrInFlight(stream) || state === 'closed') return rejected(new TypeError('WritableStreamDefaultWriter.write: the stream is closing or closed'));
  if (state === 'erroring') return rejected(stream.storedError);
  const request = deferred<undefined>();
  ArrayPrototypePush(stream.writeRequests, request);
  controllerWrite(controller, chunk, size);
  return request.promise;
}
export function writerCloseWithErrorPropagation(writer: WriterRecord): Promise<undefined> {
  const stream = writer.stream!;
  if (closeQueuedOrInFlight(stream) || stream.state === 'closed') return resolved(undefined);
  if (stream.state === 'errored') return rejected(stream.storedError);
  return writableClose(stream);
}
function writerDesiredSize(stream: WritableRecord): number | null {
  if (stream.state === 'errored' || stream.state === 'erroring') return null;
  if (stream.state === 'closed') return 0;
  return desiredSize(stream.controller);
}

export class WritableStreamDefaultWriter {
  constructor(stream: WritableStream) {
    const record = streamArgument(arguments.length, stream, writableRecord, 'WritableStreamDefaultWriter', 'WritableStream');
    writers.set(this, acquireWriter(record));
  }
  get closed(): Promise<undefined> {
    return withRecord(writers, this, 'WritableStreamDefaultWriter.closed', (writer) => writer.closed.promise);
  }
  get ready(): Promise<undefined> {
    return withRecord(writers, this, 'WritableStreamDefaultWriter.ready', (writer) => writer.ready.promise);
  }
  get desiredSize(): number | null {
    const writer = recordOf(writers, this, 'WritableStreamDefaultWriter.desiredSize');
    if (writer.stream === null) throw new TypeError('WritableStreamDefaultWriter.desiredSize: the writer was released');
    return writerDesiredSize(writer.stream);
  }
  abort(reason?: unknown): Promise<undefined> {
    return withRecord(writers, this, 'WritableStreamDefaultWriter.abort', (writer) => {
      if (writer.stream === null) return rejected(new TypeError('WritableStreamDefaultWriter.abort: the writer was released'));
      return writableAbort(writer.stream, reason);
    });
  }
  close(): Promise<undefined> {
    return withRecord(writers, this, 'WritableStreamDefaultWriter.close', (writer) => {
      const stream = writer.stream;
      if (stream === null) return rejected(new TypeError('WritableStreamDefaultWriter.close: the writer was released'));
      if (closeQueuedOrInFlight(stream)) return rejected(new TypeError('WritableStreamDefaultWriter.close: the stream is already closing'));
      return writableClose(stream);
    });
  }
  releaseLock(): void {
    const writer = recordOf(writers, this, 'WritableStreamDefaultWriter.releaseLock');
    if (writer.stream !== null) writerRelease(writer);
  }
  write(chunk?: unknown): Promise<undefined> {
    return withRecord(writers, this, 'WritableStreamDefaultWriter.write', (writer) => {
      if (writer.stream === null) return rejected(new TypeError('WritableStreamDefaultWriter.write: the writer was released'));
      return writerWrite(writer, chunk);
    });
  }
}
interfaceName(WritableStreamDefaultWriter, 'WritableStreamDefaultWriter');

// --- the class ------------------------------------------------------------------------
function newRecord(wrapper: WritableStream): WritableRecord {
  return {
    state: 'writable', storedError: undefined, writer: null, controller: null as never, inFlightWriteRequest: null, closeRequest: null, inFlightCloseRequest: null,
    pendingAbortRequest: null, writeRequests: [], backpressure: false, wrapper,
  };
}

export class WritableStream {
  constructor(underlyingSink?: Record<string, unknown> | null, strategy?: { highWaterMark?: number; size?: (chunk: unknown) => number }) {
    const stream = newRecord(this);
    streams.set(this, stream);
    if (underlyingSink === (TOKEN as unknown)) return;
    const { underlying: sink, strategy: rawStrategy } = underlyingAndStrategy(underlyingSink, strategy, 'WritableStream', 'sink');
    // Dictionary members are read in the standard's (alphabetical) order.
    const abort = callback(sink, 'abort', 'WritableStream');
    const close = callback(sink, 'close', 'WritableStream');
    const start = callback(sink, 'start', 'WritableStream');
    const type = sink === null ? undefined : sink.type;
    const write = callback(sink, 'write', 'WritableStream');
    if (type !== undefined) throw new RangeError('WritableStream: the underlying sink has no types; leave type out');
    const options = strategyFrom(rawStrategy, 1, 'WritableStream');
    setUpSink(
      stream,
      (controller) => (start === undefined ? undefined : ReflectApply(start, sink, [controller])),
      write === undefined ? null : (chunk, controller) => promiseCall(write, sink, [chunk, controller]),
      close === undefined ? null : () => promiseCall(close, sink, []),
      abort === undefined ? null : (reason) => promiseCall(abort, sink, [reason]),
      options.highWaterMark,
      sizeAlgorithm(options.size),
    );
  }
  get locked(): boolean {
    return isWritableLocked(recordOf(streams, this, 'WritableStream.locked'));
  }
  abort(reason?: unknown): Promise<undefined> {
    return withUnlocked(streams, this, 'WritableStream.abort', isWritableLocked, 'writer', (stream) => writableAbort(stream, reason));
  }
  close(): Promise<undefined> {
    return withUnlocked(streams, this, 'WritableStream.close', isWritableLocked, 'writer', (stream) => {
      if (closeQueuedOrInFlight(stream)) return rejected(new TypeError('WritableStream.close: the stream is already closing'));
      return writableClose(stream);
    });
  }
  getWriter(): WritableStreamDefaultWriter {
    recordOf(streams, this, 'WritableStream.getWriter');
    return newWriter(this);
  }
}
interfaceName(WritableStream, 'WritableStream');
function newWriter(stream: WritableStream): WritableStreamDefaultWriter {
  return new WritableStreamDefaultWriter(stream);
}

/** CreateWritableStream from algorithms (TransformStream's writable side). */
export function createWritable(
  start: (controller: WritableStreamDefaultController) => unknown,
  write: (chunk: unknown) => Promise<unknown>,
  close: () => Promise<unknown>,
  abort: (reason: unknown) => Promise<unknown>,
  highWaterMark: number,
  size: ((chunk: unknown) => unknown) | null,
): WritableStream {
  const wrapper = new WritableStream(TOKEN as unknown as Record<string, unknown>);
  setUpSink(streams.get(wrapper)!, start, (chunk) => write(chunk), close, abort, highWaterMark, size);
  return wrapper;
}
