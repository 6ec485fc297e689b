// ReadableStream per the WHATWG Streams standard: default controllers with a queuing
// strategy and pull back-pressure, byte streams (type: 'bytes') with BYOB readers, default
// readers, tee, ReadableStream.from, async iteration (values({ preventCancel })) and the
// pipes of ./pipe.ts. The state lives in plain records the classes point to; the
// algorithms below follow the standard's names so they can be checked against it.
// No class body names its own class (the bundler would rename it `_ReadableStream`).
import { AsyncIteratorPrototype, SymbolCtor, SymbolToStringTag, TypedArrayConstructors, ArrayPrototypePush, ObjectCreate, ObjectDefineProperty, ObjectFreeze, ObjectGetPrototypeOf, ReflectApply, StringCtor, SymbolAsyncIterator, SymbolIterator, TypedArrayPrototypeGetBuffer, TypedArrayPrototypeGetByteLength, TypedArrayPrototypeGetByteOffset, TypedArrayPrototypeSet, Uint8ArrayCtor, ArrayBufferCtor, DataViewCtor, ArrayBufferPrototypeGetByteLength } from './primordials';
import { ArrayBufferIsView, SafeWeakMap, SafeWeakSet, isDataView, typedArrayKind, DataViewPrototypeGetBuffer, DataViewPrototypeGetByteLength, DataViewPrototypeGetByteOffset, ReflectConstruct } from '../primordials';
import { afterStart, callback, deferred, dequeue, dictionary, enqueueWithSize, handled, microtask, newQueue, peek, promiseCall, queueLength, recordOf, recordOrNull, rejected, streamArgument, underlyingAndStrategy, withRecord, withUnlocked, resetQueue, resolved, sizeAlgorithm, strategyFrom, upon, type Deferred, type SizedQueue } from './stream-kit';
import { defineOperation, interfaceName } from '../idl';

const TOKEN = SymbolCtor('stream internals');

export interface ReadRequest {
  chunk(value: unknown): void;
  close(): void;
  error(reason: unknown): void;
}
interface ReadIntoRequest {
  chunk(view: ArrayBufferView): void;
  close(view: ArrayBufferView | undefined): void;
  error(reason: unknown): void;
}
export interface ReaderRecord {
  kind: 'default' | 'byob';
  stream: StreamRecord | null;
  closed: Deferred<undefined>;
  requests: ReadRequest[];
  intoRequests: ReadIntoRequest[];
}
interface PullInto {
  buffer: ArrayBuffer;
  bufferByteLength: number;
  byteOffset: number;
  byteLength: number;
  bytesFilled: number;
  minimumFill: number;
  elementSize: number;
  viewKind: string;
  readerType: 'default' | 'byob' | 'none';
}
export interface ControllerRecord {
  kind: 'default' | 'bytes';
  stream: StreamRecord;
  queue: SizedQueue;
  started: boolean;
  closeRequested: boolean;
  pullAgain: boolean;
  pulling: boolean;
  highWaterMark: number;
  size: ((chunk: unknown) => unknown) | null;
  pull: (() => Promise<unknown>) | null;
  cancel: ((reason: unknown) => Promise<unknown>) | null;
  // byte streams
  pendingPullIntos: PullInto[];
  autoAllocateChunkSize: number | undefined;
  byobRequest: ReadableStreamBYOBRequest | null;
  wrapper: ReadableStreamDefaultController | ReadableByteStreamController;
}
export interface StreamRecord {
  state: 'readable' | 'closed' | 'errored';
  reader: ReaderRecord | null;
  storedError: unknown;
  disturbed: boolean;
  controller: ControllerRecord;
  wrapper: ReadableStream;
}

// One table per class: a record answers only for objects of its own class (brand checks).
const streams = new SafeWeakMap<object, StreamRecord>();
const defaultReaders = new SafeWeakMap<object, ReaderRecord>();
const byobReaders = new SafeWeakMap<object, ReaderRecord>();
const defaultControllers = new SafeWeakMap<object, ControllerRecord>();
const byteControllers = new SafeWeakMap<object, ControllerRecord>();
/** The record of a real ReadableStream, or null (brand check). */
export function readableRecord(value: unknown): StreamRecord | null {
  return recordOrNull(streams, value);
}

// --- the stream ------------------------------------------------------------------------
export function isLocked(stream: StreamRecord): boolean {
  return stream.reader !== null;
}

function readableClose(stream: StreamRecord): void {
  stream.state = 'closed';
  const reader = stream.reader;
  if (reader === null) return;
  reader.closed.resolve(undefined);
  if (reader.kind === 'default') {
    const requests = reader.requests;
    reader.requests = [];
    for (let i = 0; i < requests.length; i++) requests[i].close();
  }
}

export function readableError(stream: StreamRecord, reason: unknown): void {
  stream.state = 'errored';
  stream.storedError = reason;
  const reader = stream.reader;
  if (reader === null) return;
  reader.closed.reject(reason);
  handled(reader.closed.promise);
  failPendingReads(reader, reason);
}

/** Fails every read the reader has waiting, of either kind (the spec's ReadableStream…ReaderErrorRead[Into]Requests). */
function failPendingReads(reader: ReaderRecord, reason: unknown): void {
  const requests = reader.requests;
  reader.requests = [];
  for (let i = 0; i < requests.length; i++) requests[i].error(reason);
  const into = reader.intoRequests;
  reader.intoRequests = [];
  for (let i = 0; i < into.length; i++) into[i].error(reason);
}

export function readableCancel(stream: StreamRecord, reason: unknown): Promise<undefined> {
  stream.disturbed = true;
  if (stream.state === 'closed') return resolved(undefined);
  if (stream.state === 'errored') return rejected(stream.storedError);
  readableClose(stream);
  const reader = stream.reader;
  if (reader !== null && reader.kind === 'byob') {
    const into = reader.intoRequests;
    reader.intoRequests = [];
    for (let i = 0; i < into.length; i++) into[i].close(undefined);
  }
  const controller = stream.controller;
  resetQueue(controller.queue);
  controller.pendingPullIntos = [];
  const cancel = controller.cancel;
  clearAlgorithms(controller);
  const result = cancel === null ? resolved(undefined) : cancel(reason);
  return upon(result, () => undefined);
}

function fulfillReadRequest(stream: StreamRecord, chunk: unknown, done: boolean): void {
  const reader = stream.reader!;
  const request = reader.requests[0];
  reader.requests = tail(reader.requests);
  if (done) request.close();
  else request.chunk(chunk);
}
function numReadRequests(stream: StreamRecord): number {
  return stream.reader !== null && stream.reader.kind === 'default' ? stream.reader.requests.length : 0;
}
function numReadIntoRequests(stream: StreamRecord): number {
  return stream.reader !== null && stream.reader.kind === 'byob' ? stream.reader.intoRequests.length : 0;
}
function tail<T>(list: T[]): T[] {
  const out: T[] = [];
  for (let i = 1; i < list.length; i++) ArrayPrototypePush(out, list[i]);
  return out;
}

// --- default controller ---------------------------------------------------------------
function clearAlgorithms(controller: ControllerRecord): void {
  controller.pull = null;
  controller.cancel = null;
  controller.size = null;
}
export function canCloseOrEnqueue(controller: ControllerRecord): boolean {
  return !controller.closeRequested && controller.stream.state === 'readable';
}
export function desiredSize(controller: ControllerRecord): number | null {
  const state = controller.stream.state;
  if (state === 'errored') return null;
  if (state === 'closed') return 0;
  return controller.highWaterMark - controller.queue.total;
}
export function shouldCallPull(controller: ControllerRecord): boolean {
  const stream = controller.stream;
  if (!controller.started) return false;
  if (controller.kind === 'default') {
    if (!canCloseOrEnqueue(controller)) return false;
    if (isLocked(stream) && numReadRequests(stream) > 0) return true;
  } else {
    if (stream.state !== 'readable' || controller.closeRequested) return false;
    if (numReadRequests(stream) > 0 || numReadIntoRequests(stream) > 0) return true;
  }
  return desiredSize(controller)! > 0;
}
function callPullIfNeeded(controller: ControllerRecord): void {
  if (!shouldCallPull(controller)) return;
  if (controller.pulling) {
    controller.pullAgain = true;
    return;
  }
  controller.pulling = true;
  const pull = controller.pull;
  upon(
    pull === null ? resolved(undefined) : pull(),
    () => {
      controller.pulling = false;
      if (controller.pullAgain) {
        controller.pullAgain = false;
        callPullIfNeeded(controller);
      }
    },
    (error) => controllerError(controller, error),
  );
}
export function controllerError(controller: ControllerRecord, reason: unknown): void {
  const stream = controller.stream;
  if (stream.state !== 'readable') return;
  if (controller.kind === 'bytes') invalidateByobRequest(controller);
  controller.pendingPullIntos = [];
  resetQueue(controller.queue);
  clearAlgorithms(controller);
  readableError(stream, reason);
}
export function controllerClose(controller: ControllerRecord): void {
  if (!canCloseOrEnqueue(controller)) return;
  if (controller.kind === 'bytes') return byteControllerClose(controller);
  controller.closeRequested = true;
  if (queueLength(controller.queue) === 0) {
    clearAlgorithms(controller);
    readableClose(controller.stream);
  }
}
export function controllerEnqueue(controller: ControllerRecord, chunk: unknown): void {
  if (!canCloseOrEnqueue(controller)) return;
  const stream = controller.stream;
  if (isLocked(stream) && numReadRequests(stream) > 0) fulfillReadRequest(stream, chunk, false);
  else {
    let size: unknown;
    try {
      size = controller.size === null ? 1 : controller.size(chunk);
      enqueueWithSize(controller.queue, chunk, size);
    } catch (error) {
      controllerError(controller, error);
      throw error;
    }
  }
  callPullIfNeeded(controller);
}

function defaultPullSteps(controller: ControllerRecord, request: ReadRequest): void {
  const stream = controller.stream;
  if (queueLength(controller.queue) > 0) {
    const chunk = dequeue(controller.queue);
    if (controller.closeRequested && queueLength(controller.queue) === 0) {
      clearAlgorithms(controller);
      readableClose(stream);
    } else callPullIfNeeded(controller);
    request.chunk(chunk);
    return;
  }
  ArrayPrototypePush(stream.reader!.requests, request);
  callPullIfNeeded(controller);
}

export class ReadableStreamDefaultController {
  constructor(token?: unknown, record?: ControllerRecord) {
    if (token !== TOKEN) throw new TypeError('Illegal constructor');
    defaultControllers.set(this, record!);
  }
  get desiredSize(): number | null {
    return desiredSize(recordOf(defaultControllers, this, 'ReadableStreamDefaultController.desiredSize'));
  }
  close(): void {
    const controller = recordOf(defaultControllers, this, 'ReadableStreamDefaultController.close');
    if (!canCloseOrEnqueue(controller)) throw new TypeError('ReadableStreamDefaultController.close: the stream is already closing or closed');
    controllerClose(controller);
  }
  enqueue(chunk?: unknown): void {
    const controller = recordOf(defaultControllers, this, 'ReadableStreamDefaultController.enqueue');
    if (!canCloseOrEnqueue(controller)) throw new TypeError('ReadableStreamDefaultController.enqueue: the stream is closing or closed');
    controllerEnqueue(controller, chunk);
  }
  error(reason?: unknown): void {
    controllerError(recordOf(defaultControllers, this, 'ReadableStreamDefaultController.error'), reason);
  }
}
interfaceName(ReadableStreamDefaultController, 'ReadableStreamDefaultController');

// --- byte controller ------------------------------------------------------------------
const ELEMENT_SIZES: Record<string, number> = { Int8Array: 1, Uint8Array: 1, Uint8ClampedArray: 1, Int16Array: 2, Uint16Array: 2, Int32Array: 4, Uint32Array: 4, Float32Array: 4, Float64Array: 8, BigInt64Array: 8, BigUint64Array: 8, DataView: 1 };
const VIEW_CONSTRUCTORS: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  Int8Array: TypedArrayConstructors.Int8Array,
  Uint8Array: TypedArrayConstructors.Uint8Array,
  Uint8ClampedArray: TypedArrayConstructors.Uint8ClampedArray,
  Int16Array: TypedArrayConstructors.Int16Array,
  Uint16Array: TypedArrayConstructors.Uint16Array,
  Int32Array: TypedArrayConstructors.Int32Array,
  Uint32Array: TypedArrayConstructors.Uint32Array,
  Float32Array: TypedArrayConstructors.Float32Array,
  Float64Array: TypedArrayConstructors.Float64Array,
  BigInt64Array: TypedArrayConstructors.BigInt64Array,
  BigUint64Array: TypedArrayConstructors.BigUint64Array,
  DataView: DataViewCtor as unknown as new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView,
};
function viewParts(view: ArrayBufferView): { kind: string; buffer: ArrayBuffer; byteOffset: number; byteLength: number } {
  if (isDataView(view)) return { kind: 'DataView', buffer: DataViewPrototypeGetBuffer(view), byteOffset: DataViewPrototypeGetByteOffset(view), byteLength: DataViewPrototypeGetByteLength(view) };
  return { kind: typedArrayKind(view)!, buffer: TypedArrayPrototypeGetBuffer(view), byteOffset: TypedArrayPrototypeGetByteOffset(view), byteLength: TypedArrayPrototypeGetByteLength(view) };
}
function isView(value: unknown): value is ArrayBufferView {
  return ArrayBufferIsView(value) && (isDataView(value) || typedArrayKind(value) !== undefined);
}
function copyBytes(buffer: ArrayBuffer, offset: number, length: number): Uint8Array {
  const out = new Uint8ArrayCtor(length);
  TypedArrayPrototypeSet(out, new Uint8ArrayCtor(buffer, offset, length));
  return out;
}
function makeView(kind: string, buffer: ArrayBuffer, offset: number, length: number): ArrayBufferView {
  return ReflectConstruct(VIEW_CONSTRUCTORS[kind], [buffer, offset, length]) as ArrayBufferView;
}

// The standard transfers (detaches) the buffer of an enqueued chunk and of a BYOB read's
// view. This engine cannot detach (no ArrayBuffer.prototype.transfer in V8 11.3), so such
// buffers are remembered instead: using one again is refused as a detached one would be.
const transferred = new SafeWeakSet<ArrayBuffer>();
function refuseTransferred(buffer: ArrayBuffer, what: string): void {
  if (transferred.has(buffer)) throw new TypeError(`${what}: the buffer was already transferred to the stream (it counts as detached)`);
}

function invalidateByobRequest(controller: ControllerRecord): void {
  if (controller.byobRequest === null) return;
  byobRequestInvalidate(controller.byobRequest);
  controller.byobRequest = null;
}

function byteControllerClose(controller: ControllerRecord): void {
  const stream = controller.stream;
  if (controller.queue.total > 0) {
    controller.closeRequested = true;
    return;
  }
  if (controller.pendingPullIntos.length > 0) {
    const first = controller.pendingPullIntos[0];
    if (first.bytesFilled % first.elementSize !== 0) {
      const error = new TypeError('ReadableByteStreamController.close: a BYOB read is partly filled');
      controllerError(controller, error);
      throw error;
    }
  }
  clearAlgorithms(controller);
  readableClose(stream);
}

/** The filled part of a pull-into as a view of its kind. */
function pullIntoView(pullInto: PullInto): ArrayBufferView {
  return makeView(pullInto.viewKind, pullInto.buffer, pullInto.byteOffset, pullInto.bytesFilled / pullInto.elementSize);
}

function commitPullInto(stream: StreamRecord, pullInto: PullInto): void {
  let done = false;
  if (stream.state === 'closed') done = true;
  const view = pullIntoView(pullInto);
  if (pullInto.readerType === 'default') {
    if (numReadRequests(stream) > 0) fulfillReadRequest(stream, view, done);
  } else if (pullInto.readerType === 'byob' && numReadIntoRequests(stream) > 0) {
    const reader = stream.reader!;
    const request = reader.intoRequests[0];
    reader.intoRequests = tail(reader.intoRequests);
    if (done) request.close(view);
    else request.chunk(view);
  }
}

function fillPullIntoFromQueue(controller: ControllerRecord, pullInto: PullInto): boolean {
  const maxBytesToCopy = controller.queue.total < pullInto.byteLength - pullInto.bytesFilled ? controller.queue.total : pullInto.byteLength - pullInto.bytesFilled;
  const maxBytesFilled = pullInto.bytesFilled + maxBytesToCopy;
  let totalBytesToCopyRemaining = maxBytesToCopy;
  let ready = false;
  const remainderBytes = maxBytesFilled % pullInto.elementSize;
  const maxAlignedBytes = maxBytesFilled - remainderBytes;
  if (maxAlignedBytes >= pullInto.minimumFill) {
    totalBytesToCopyRemaining = maxAlignedBytes - pullInto.bytesFilled;
    ready = true;
  }
  const queue = controller.queue;
  while (totalBytesToCopyRemaining > 0) {
    const head = peek(queue) as Uint8Array;
    const length = head.length;
    const bytesToCopy = totalBytesToCopyRemaining < length ? totalBytesToCopyRemaining : length;
    const destStart = pullInto.byteOffset + pullInto.bytesFilled;
    TypedArrayPrototypeSet(new Uint8ArrayCtor(pullInto.buffer, destStart, bytesToCopy), new Uint8ArrayCtor(TypedArrayPrototypeGetBuffer(head), TypedArrayPrototypeGetByteOffset(head), bytesToCopy));
    if (length === bytesToCopy) dequeue(queue);
    else {
      queue.items[queue.head].value = new Uint8ArrayCtor(TypedArrayPrototypeGetBuffer(head), TypedArrayPrototypeGetByteOffset(head) + bytesToCopy, length - bytesToCopy);
      queue.items[queue.head].size -= bytesToCopy;
      queue.total -= bytesToCopy;
    }
    invalidateByobRequest(controller);
    pullInto.bytesFilled += bytesToCopy;
    totalBytesToCopyRemaining -= bytesToCopy;
  }
  return ready;
}

function processPullIntosUsingQueue(controller: ControllerRecord): void {
  while (controller.pendingPullIntos.length > 0) {
    if (controller.queue.total === 0) return;
    const pullInto = controller.pendingPullIntos[0];
    if (fillPullIntoFromQueue(controller, pullInto)) {
      controller.pendingPullIntos = tail(controller.pendingPullIntos);
      commitPullInto(controller.stream, pullInto);
    }
  }
}

function handleQueueDrain(controller: ControllerRecord): void {
  if (controller.queue.total === 0 && controller.closeRequested) {
    clearAlgorithms(controller);
    readableClose(controller.stream);
  } else callPullIfNeeded(controller);
}

function byteEnqueue(controller: ControllerRecord, chunk: ArrayBufferView): void {
  const stream = controller.stream;
  if (controller.closeRequested || stream.state !== 'readable') return;
  const parts = viewParts(chunk);
  const bytes = copyBytes(parts.buffer, parts.byteOffset, parts.byteLength);
  if (controller.pendingPullIntos.length > 0) {
    invalidateByobRequest(controller);
    const first = controller.pendingPullIntos[0];
    if (first.readerType === 'none') {
      // An auto-allocated pull nobody reads: its filled bytes go back to the queue.
      controller.pendingPullIntos = tail(controller.pendingPullIntos);
      if (first.bytesFilled > 0) enqueueWithSize(controller.queue, copyBytes(first.buffer, first.byteOffset, first.bytesFilled), first.bytesFilled);
    }
  }
  if (numReadRequests(stream) > 0) {
    // A default reader waits: give it the chunk (after anything already queued).
    if (controller.pendingPullIntos.length > 0 && controller.pendingPullIntos[0].readerType === 'default') controller.pendingPullIntos = tail(controller.pendingPullIntos);
    if (queueLength(controller.queue) === 0) fulfillReadRequest(stream, bytes, false);
    else {
      enqueueWithSize(controller.queue, bytes, bytes.length);
      while (numReadRequests(stream) > 0 && queueLength(controller.queue) > 0) fulfillReadRequest(stream, byteDequeue(controller), false);
    }
  } else if (numReadIntoRequests(stream) > 0) {
    enqueueWithSize(controller.queue, bytes, bytes.length);
    processPullIntosUsingQueue(controller);
  } else enqueueWithSize(controller.queue, bytes, bytes.length);
  callPullIfNeeded(controller);
}

function byteDequeue(controller: ControllerRecord): Uint8Array {
  return dequeue(controller.queue) as Uint8Array;
}

function bytePullSteps(controller: ControllerRecord, request: ReadRequest): void {
  const stream = controller.stream;
  if (controller.queue.total > 0) {
    const chunk = byteDequeue(controller);
    handleQueueDrain(controller);
    request.chunk(chunk);
    return;
  }
  const size = controller.autoAllocateChunkSize;
  if (size !== undefined) {
    let buffer: ArrayBuffer;
    try {
      buffer = new ArrayBufferCtor(size);
    } catch (error) {
      request.error(error);
      return;
    }
    ArrayPrototypePush(controller.pendingPullIntos, { buffer, bufferByteLength: size, byteOffset: 0, byteLength: size, bytesFilled: 0, minimumFill: 1, elementSize: 1, viewKind: 'Uint8Array', readerType: 'default' });
  }
  ArrayPrototypePush(stream.reader!.requests, request);
  callPullIfNeeded(controller);
}

function bytePullInto(controller: ControllerRecord, view: ArrayBufferView, min: number, request: ReadIntoRequest): void {
  const stream = controller.stream;
  const parts = viewParts(view);
  const elementSize = ELEMENT_SIZES[parts.kind];
  // The standard transfers the view's buffer; this engine cannot detach, so reads fill a copy.
  const buffer = new ArrayBufferCtor(ArrayBufferPrototypeGetByteLength(parts.buffer));
  const pullInto: PullInto = { buffer, bufferByteLength: ArrayBufferPrototypeGetByteLength(buffer), byteOffset: parts.byteOffset, byteLength: parts.byteLength, bytesFilled: 0, minimumFill: min * elementSize, elementSize, viewKind: parts.kind, readerType: 'byob' };
  if (controller.pendingPullIntos.length > 0) {
    ArrayPrototypePush(controller.pendingPullIntos, pullInto);
    ArrayPrototypePush(stream.reader!.intoRequests, request);
    return;
  }
  if (stream.state === 'closed') {
    request.close(makeView(parts.kind, buffer, parts.byteOffset, 0));
    return;
  }
  if (controller.queue.total > 0) {
    if (fillPullIntoFromQueue(controller, pullInto)) {
      const filled = pullIntoView(pullInto);
      handleQueueDrain(controller);
      request.chunk(filled);
      return;
    }
    if (controller.closeRequested) {
      const error = new TypeError('ReadableStreamBYOBReader.read: the stream closed before the view could be filled');
      controllerError(controller, error);
      request.error(error);
      return;
    }
  }
  ArrayPrototypePush(controller.pendingPullIntos, pullInto);
  ArrayPrototypePush(stream.reader!.intoRequests, request);
  callPullIfNeeded(controller);
}

function respondInternal(controller: ControllerRecord, bytesWritten: number): void {
  const first = controller.pendingPullIntos[0];
  const stream = controller.stream;
  invalidateByobRequest(controller);
  if (stream.state === 'closed') {
    if (bytesWritten !== 0) throw new TypeError('ReadableStreamBYOBRequest.respond: bytesWritten must be 0 once the stream is closed');
    if (first.readerType === 'none') controller.pendingPullIntos = tail(controller.pendingPullIntos);
    while (numReadIntoRequests(stream) > 0 && controller.pendingPullIntos.length > 0) {
      const pullInto = controller.pendingPullIntos[0];
      controller.pendingPullIntos = tail(controller.pendingPullIntos);
      commitPullInto(stream, pullInto);
    }
  } else {
    if (first.bytesFilled + bytesWritten > first.byteLength) throw new RangeError('ReadableStreamBYOBRequest.respond: bytesWritten is larger than the view');
    first.bytesFilled += bytesWritten;
    if (first.readerType === 'none') {
      if (first.bytesFilled > 0) {
        controller.pendingPullIntos = tail(controller.pendingPullIntos);
        enqueueWithSize(controller.queue, copyBytes(first.buffer, first.byteOffset, first.bytesFilled), first.bytesFilled);
        processPullIntosUsingQueue(controller);
      }
    } else if (first.bytesFilled >= first.minimumFill) {
      controller.pendingPullIntos = tail(controller.pendingPullIntos);
      const remainder = first.bytesFilled % first.elementSize;
      if (remainder > 0) {
        const end = first.byteOffset + first.bytesFilled;
        enqueueWithSize(controller.queue, copyBytes(first.buffer, end - remainder, remainder), remainder);
      }
      first.bytesFilled -= remainder;
      commitPullInto(stream, first);
      processPullIntosUsingQueue(controller);
    }
  }
  callPullIfNeeded(controller);
}

let byobRequestInvalidate: (request: ReadableStreamBYOBRequest) => void;
let newByobRequest: (controller: ControllerRecord, view: Uint8Array) => ReadableStreamBYOBRequest;

export class ReadableStreamBYOBRequest {
  #controller: ControllerRecord | null = null;
  #view: Uint8Array | null = null;
  constructor(token?: unknown) {
    if (token !== TOKEN) throw new TypeError('Illegal constructor');
  }
  get view(): Uint8Array | null {
    return this.#view;
  }
  respond(bytesWritten: number): void {
    const controller = this.#controller;
    if (controller === null) throw new TypeError('ReadableStreamBYOBRequest.respond: this request is no longer valid');
    const count = +bytesWritten;
    if (count < 0 || count !== count || count % 1 !== 0) throw new TypeError('ReadableStreamBYOBRequest.respond: bytesWritten must be a whole number');
    // The program wrote into our view: its bytes are the pull-into's.
    const first = controller.pendingPullIntos[0];
    const view = this.#view!;
    TypedArrayPrototypeSet(new Uint8ArrayCtor(first.buffer, first.byteOffset + first.bytesFilled, TypedArrayPrototypeGetByteLength(view)), view);
    respondInternal(controller, count);
  }
  respondWithNewView(view: ArrayBufferView): void {
    const controller = this.#controller;
    if (controller === null) throw new TypeError('ReadableStreamBYOBRequest.respondWithNewView: this request is no longer valid');
    if (!isView(view)) throw new TypeError('ReadableStreamBYOBRequest.respondWithNewView: pass an ArrayBufferView');
    const parts = viewParts(view);
    const first = controller.pendingPullIntos[0];
    if (controller.stream.state === 'closed' ? parts.byteLength !== 0 : parts.byteLength === 0) throw new TypeError('ReadableStreamBYOBRequest.respondWithNewView: the view has the wrong length');
    if (first.bytesFilled + parts.byteLength > first.byteLength) throw new RangeError('ReadableStreamBYOBRequest.respondWithNewView: the view is larger than the request');
    TypedArrayPrototypeSet(new Uint8ArrayCtor(first.buffer, first.byteOffset + first.bytesFilled, parts.byteLength), new Uint8ArrayCtor(parts.buffer, parts.byteOffset, parts.byteLength));
    respondInternal(controller, parts.byteLength);
  }
  static {
    byobRequestInvalidate = (request) => {
      request.#controller = null;
      request.#view = null;
    };
    newByobRequest = (controller, view) => {
      const request = makeByobRequest();
      request.#controller = controller;
      request.#view = view;
      return request;
    };
  }
}
interfaceName(ReadableStreamBYOBRequest, 'ReadableStreamBYOBRequest');
function makeByobRequest(): ReadableStreamBYOBRequest {
  return new ReadableStreamBYOBRequest(TOKEN);
}

export class ReadableByteStreamController {
  constructor(token?: unknown, record?: ControllerRecord) {
    if (token !== TOKEN) throw new TypeError('Illegal constructor');
    byteControllers.set(this, record!);
  }
  get byobRequest(): ReadableStreamBYOBRequest | null {
    const controller = recordOf(byteControllers, this, 'ReadableByteStreamController.byobRequest');
    if (controller.byobRequest === null && controller.pendingPullIntos.length > 0) {
      const first = controller.pendingPullIntos[0];
      // A scratch view the program writes into; respond() copies it into the pull-into.
      const scratch = new Uint8ArrayCtor(first.byteLength - first.bytesFilled);
      TypedArrayPrototypeSet(scratch, new Uint8ArrayCtor(first.buffer, first.byteOffset + first.bytesFilled, first.byteLength - first.bytesFilled));
      controller.byobRequest = newByobRequest(controller, scratch);
    }
    return controller.byobRequest;
  }
  get desiredSize(): number | null {
    return desiredSize(recordOf(byteControllers, this, 'ReadableByteStreamController.desiredSize'));
  }
  close(): void {
    const controller = recordOf(byteControllers, this, 'ReadableByteStreamController.close');
    if (controller.closeRequested) throw new TypeError('ReadableByteStreamController.close: close() was already called');
    if (controller.stream.state !== 'readable') throw new TypeError('ReadableByteStreamController.close: the stream is not readable');
    byteControllerClose(controller);
  }
  enqueue(chunk: ArrayBufferView): void {
    const controller = recordOf(byteControllers, this, 'ReadableByteStreamController.enqueue');
    if (!isView(chunk)) throw new TypeError('ReadableByteStreamController.enqueue: the chunk must be an ArrayBufferView');
    const parts = viewParts(chunk);
    if (parts.byteLength === 0) throw new TypeError('ReadableByteStreamController.enqueue: the chunk is empty');
    if (ArrayBufferPrototypeGetByteLength(parts.buffer) === 0) throw new TypeError("ReadableByteStreamController.enqueue: the chunk's buffer is empty");
    refuseTransferred(parts.buffer, 'ReadableByteStreamController.enqueue');
    if (controller.closeRequested) throw new TypeError('ReadableByteStreamController.enqueue: the stream is closing');
    if (controller.stream.state !== 'readable') throw new TypeError('ReadableByteStreamController.enqueue: the stream is not readable');
    transferred.add(parts.buffer);
    byteEnqueue(controller, chunk);
  }
  error(reason?: unknown): void {
    controllerError(recordOf(byteControllers, this, 'ReadableByteStreamController.error'), reason);
  }
}
interfaceName(ReadableByteStreamController, 'ReadableByteStreamController');

// --- readers --------------------------------------------------------------------------
function readerInitialize(reader: ReaderRecord, stream: StreamRecord): void {
  reader.stream = stream;
  stream.reader = reader;
  if (stream.state === 'closed') reader.closed.resolve(undefined);
  else if (stream.state === 'errored') {
    reader.closed.reject(stream.storedError);
    handled(reader.closed.promise);
  }
}
function newReaderRecord(kind: 'default' | 'byob'): ReaderRecord {
  return { kind, stream: null, closed: deferred<undefined>(), requests: [], intoRequests: [] };
}

export function readerRelease(reader: ReaderRecord): void {
  const stream = reader.stream!;
  const error = new TypeError('the reader was released');
  if (stream.state === 'readable') reader.closed.reject(error);
  else {
    reader.closed = deferred<undefined>();
    reader.closed.reject(error);
  }
  handled(reader.closed.promise);
  const controller = stream.controller;
  if (controller.kind === 'bytes' && controller.pendingPullIntos.length > 0) {
    // Pull-intos stay for the source's sake, but no reader gets them.
    invalidateByobRequest(controller);
    const first = controller.pendingPullIntos[0];
    first.readerType = 'none';
    controller.pendingPullIntos = [first];
  }
  stream.reader = null;
  reader.stream = null;
  failPendingReads(reader, error);
}

export function readerRead(reader: ReaderRecord, request: ReadRequest): void {
  const stream = reader.stream!;
  stream.disturbed = true;
  if (stream.state === 'closed') request.close();
  else if (stream.state === 'errored') request.error(stream.storedError);
  else if (stream.controller.kind === 'bytes') bytePullSteps(stream.controller, request);
  else defaultPullSteps(stream.controller, request);
}

/** A default reader on the stream (throws a TypeError when it is locked). */
export function acquireReader(stream: StreamRecord): ReaderRecord {
  if (isLocked(stream)) throw new TypeError('ReadableStream: the stream is locked to a reader');
  const reader = newReaderRecord('default');
  readerInitialize(reader, stream);
  return reader;
}

function readPromise(reader: ReaderRecord): Promise<IteratorResult<unknown>> {
  const result = deferred<IteratorResult<unknown>>();
  readerRead(reader, {
    chunk: (value) => result.resolve({ value, done: false }),
    close: () => result.resolve({ value: undefined, done: true }),
    error: (reason) => result.reject(reason),
  });
  return result.promise;
}

// What both kinds of reader do alike, `what` naming the method for the errors.
/** `closed`: the reader's promise, or a rejection when `self` is not one of `table`'s readers. */
function readerClosed(table: WeakMap<object, ReaderRecord>, self: unknown, what: string): Promise<undefined> {
  return withRecord(table, self, what, (reader) => reader.closed.promise);
}
/** `cancel`: cancels the stream the reader holds; a rejection when released or not a reader. */
function readerCancel(table: WeakMap<object, ReaderRecord>, self: unknown, what: string, reason: unknown): Promise<undefined> {
  return withRecord(table, self, what, (reader) => {
    if (reader.stream === null) return rejected(new TypeError(`${what}: the reader has been released`));
    return readableCancel(reader.stream, reason);
  });
}
/** `releaseLock`: lets go of the stream (nothing when already released); throws when not a reader. */
function readerReleaseLock(table: WeakMap<object, ReaderRecord>, self: unknown, what: string): void {
  const reader = recordOf(table, self, what);
  if (reader.stream !== null) readerRelease(reader);
}

export class ReadableStreamDefaultReader {
  constructor(stream: ReadableStream) {
    const record = streamArgument(arguments.length, stream, readableRecord, 'ReadableStreamDefaultReader', 'ReadableStream');
    defaultReaders.set(this, acquireReader(record));
  }
  get closed(): Promise<undefined> {
    return readerClosed(defaultReaders, this, 'ReadableStreamDefaultReader.closed');
  }
  read(): Promise<IteratorResult<unknown>> {
    return withRecord(defaultReaders, this, 'ReadableStreamDefaultReader.read', (reader) => {
      if (reader.stream === null) return rejected(new TypeError('ReadableStreamDefaultReader.read: the reader has been released'));
      return readPromise(reader);
    });
  }
  releaseLock(): void {
    readerReleaseLock(defaultReaders, this, 'ReadableStreamDefaultReader.releaseLock');
  }
  cancel(reason?: unknown): Promise<undefined> {
    return readerCancel(defaultReaders, this, 'ReadableStreamDefaultReader.cancel', reason);
  }
}
interfaceName(ReadableStreamDefaultReader, 'ReadableStreamDefaultReader');

export class ReadableStreamBYOBReader {
  constructor(stream: ReadableStream) {
    const record = streamArgument(arguments.length, stream, readableRecord, 'ReadableStreamBYOBReader', 'ReadableStream');
    if (isLocked(record)) throw new TypeError('ReadableStreamBYOBReader: the stream is locked to a reader');
    if (record.controller.kind !== 'bytes') throw new TypeError('ReadableStreamBYOBReader: the stream is not a byte stream (type: "bytes")');
    const reader = newReaderRecord('byob');
    readerInitialize(reader, record);
    byobReaders.set(this, reader);
  }
  get closed(): Promise<undefined> {
    return readerClosed(byobReaders, this, 'ReadableStreamBYOBReader.closed');
  }
  read(view: ArrayBufferView, options?: { min?: number }): Promise<IteratorResult<ArrayBufferView | undefined>> {
    return withRecord(byobReaders, this, 'ReadableStreamBYOBReader.read', (reader) => {
      if (!isView(view)) return rejected(new TypeError('ReadableStreamBYOBReader.read: pass an ArrayBufferView'));
      const parts = viewParts(view);
      if (parts.byteLength === 0) return rejected(new TypeError('ReadableStreamBYOBReader.read: the view is empty'));
      if (ArrayBufferPrototypeGetByteLength(parts.buffer) === 0) return rejected(new TypeError("ReadableStreamBYOBReader.read: the view's buffer is empty"));
      try {
        refuseTransferred(parts.buffer, 'ReadableStreamBYOBReader.read');
      } catch (error) {
        return rejected(error);
      }
      let min = 1;
      try {
        const dict = dictionary(options, 'ReadableStreamBYOBReader.read: options');
        if (dict !== null && dict.min !== undefined) min = +(dict.min as number);
      } catch (error) {
        return rejected(error);
      }
      if (!(min >= 1) || min % 1 !== 0) return rejected(new TypeError('ReadableStreamBYOBReader.read: min must be a whole number of at least 1'));
      const elements = parts.kind === 'DataView' ? parts.byteLength : parts.byteLength / ELEMENT_SIZES[parts.kind];
      if (min > elements) return rejected(new RangeError('ReadableStreamBYOBReader.read: min is larger than the view'));
      if (reader.stream === null) return rejected(new TypeError('ReadableStreamBYOBReader.read: the reader has been released'));
      const result = deferred<IteratorResult<ArrayBufferView | undefined>>();
      const stream = reader.stream;
      stream.disturbed = true;
      transferred.add(parts.buffer);
      const request: ReadIntoRequest = {
        chunk: (value) => result.resolve({ value, done: false }),
        close: (value) => result.resolve({ value, done: true }),
        error: (reason) => result.reject(reason),
      };
      if (stream.state === 'errored') request.error(stream.storedError);
      else bytePullInto(stream.controller, view, min, request);
      return result.promise;
    });
  }
  releaseLock(): void {
    readerReleaseLock(byobReaders, this, 'ReadableStreamBYOBReader.releaseLock');
  }
  cancel(reason?: unknown): Promise<undefined> {
    return readerCancel(byobReaders, this, 'ReadableStreamBYOBReader.cancel', reason);
  }
}
interfaceName(ReadableStreamBYOBReader, 'ReadableStreamBYOBReader');

// --- async iteration ------------------------------------------------------------------
interface IteratorState {
  reader: ReaderRecord;
  preventCancel: boolean;
  finished: boolean;
  ongoing: Promise<unknown> | null;
}
const iteratorStates = new SafeWeakMap<object, IteratorState>();
function iteratorState(self: unknown): IteratorState {
  const state = typeof self === 'object' && self !== null ? iteratorStates.get(self) : undefined;
  if (state === undefined) throw new TypeError("ReadableStream async iterator: 'this' is not one");
  return state;
}
const ReadableStreamAsyncIteratorPrototype = ObjectCreate(AsyncIteratorPrototype);
/**
 * Runs one step of an iterator method as WebIDL's async iterators do: a receiver that is not
 * such an iterator rejects, and each step starts once the one before it has settled.
 */
function queuedStep(self: unknown, step: (state: IteratorState) => Promise<IteratorResult<unknown>>): Promise<IteratorResult<unknown>> {
  let state: IteratorState;
  try {
    state = iteratorState(self);
  } catch (error) {
    return rejected(error);
  }
  const run = () => step(state);
  const promise = state.ongoing === null ? run() : upon(state.ongoing, run, run);
  state.ongoing = promise;
  return promise;
}
defineOperation(ReadableStreamAsyncIteratorPrototype, 'next', function next(this: unknown): Promise<IteratorResult<unknown>> {
  return queuedStep(this, (state) => {
    if (state.finished) return resolved({ value: undefined, done: true });
    const reader = state.reader;
    if (reader.stream === null) return rejected(new TypeError('ReadableStream async iterator: the reader was released'));
    const result = deferred<IteratorResult<unknown>>();
    readerRead(reader, {
      chunk: (value) => {
        state.ongoing = null;
        result.resolve({ value, done: false });
      },
      close: () => {
        state.ongoing = null;
        state.finished = true;
        readerRelease(reader);
        result.resolve({ value: undefined, done: true });
      },
      error: (reason) => {
        state.ongoing = null;
        state.finished = true;
        readerRelease(reader);
        result.reject(reason);
      },
    });
    return result.promise;
  });
});
defineOperation(ReadableStreamAsyncIteratorPrototype, 'return', function return_(this: unknown, value?: unknown): Promise<IteratorResult<unknown>> {
  return queuedStep(this, (state) => {
    if (state.finished) return resolved({ value, done: true });
    state.finished = true;
    const reader = state.reader;
    if (reader.stream === null) return resolved({ value, done: true });
    if (!state.preventCancel) {
      const stream = reader.stream;
      const result = readableCancel(stream, value);
      readerRelease(reader);
      return upon(result, () => ({ value, done: true }));
    }
    readerRelease(reader);
    return resolved({ value, done: true });
  });
});
ObjectDefineProperty(ReadableStreamAsyncIteratorPrototype, SymbolToStringTag, { value: 'ReadableStream AsyncIterator', configurable: true });
// Not frozen (its methods are configurable, as WebIDL's): trusted code never calls through it.

function asyncIterator(stream: StreamRecord, options: unknown): AsyncIterableIterator<unknown> {
  const dict = dictionary(options, 'ReadableStream.values: options');
  const preventCancel = dict !== null && !!dict.preventCancel;
  const reader = acquireReader(stream);
  const iterator = ObjectCreate(ReadableStreamAsyncIteratorPrototype);
  iteratorStates.set(iterator, { reader, preventCancel, finished: false, ongoing: null });
  return iterator;
}

// --- the class ------------------------------------------------------------------------
export interface UnderlyingSource {
  start?: (controller: ReadableStreamDefaultController) => unknown;
  pull?: (controller: ReadableStreamDefaultController) => unknown;
  cancel?: (reason: unknown) => unknown;
  type?: string;
  autoAllocateChunkSize?: number;
}

function newController(kind: 'default' | 'bytes', stream: StreamRecord): ControllerRecord {
  const controller: ControllerRecord = {
    kind, stream, queue: newQueue(), started: false, closeRequested: false, pullAgain: false, pulling: false, highWaterMark: 1, size: null, pull: null, cancel: null,
    pendingPullIntos: [], autoAllocateChunkSize: undefined, byobRequest: null, wrapper: null as never,
  };
  controller.wrapper = kind === 'default' ? new ReadableStreamDefaultController(TOKEN, controller) : new ReadableByteStreamController(TOKEN, controller);
  return controller;
}

/** Sets up a stream's controller from algorithms (the standard's SetUpReadable*Controller). */
export function setUpController(
  stream: StreamRecord,
  kind: 'default' | 'bytes',
  start: (controller: unknown) => unknown,
  pull: ((controller: unknown) => Promise<unknown>) | null,
  cancel: ((reason: unknown) => Promise<unknown>) | null,
  highWaterMark: number,
  size: ((chunk: unknown) => unknown) | null,
  autoAllocateChunkSize?: number,
): void {
  const controller = newController(kind, stream);
  stream.controller = controller;
  controller.highWaterMark = highWaterMark;
  controller.size = size;
  controller.pull = pull === null ? null : () => pull(controller.wrapper);
  controller.cancel = cancel;
  controller.autoAllocateChunkSize = autoAllocateChunkSize;
  afterStart(controller, start(controller.wrapper), () => callPullIfNeeded(controller), (error) => controllerError(controller, error));
}

function newStreamRecord(wrapper: ReadableStream): StreamRecord {
  return { state: 'readable', reader: null, storedError: undefined, disturbed: false, controller: null as never, wrapper };
}

export class ReadableStream {
  constructor(underlyingSource?: UnderlyingSource | null, strategy?: { highWaterMark?: number; size?: (chunk: unknown) => number }) {
    const stream = newStreamRecord(this);
    streams.set(this, stream);
    if (underlyingSource === (TOKEN as unknown)) return;
    const { underlying: source, strategy: rawStrategy } = underlyingAndStrategy(underlyingSource, strategy, 'ReadableStream', 'source');
    // Dictionary members are read in the standard's (alphabetical) order.
    const autoAllocate = source === null ? undefined : source.autoAllocateChunkSize;
    const cancel = callback(source, 'cancel', 'ReadableStream');
    const pull = callback(source, 'pull', 'ReadableStream');
    const start = callback(source, 'start', 'ReadableStream');
    const type = source === null ? undefined : source.type;
    const self = source;
    if (type !== undefined && StringCtor(type) !== 'bytes') throw new TypeError(`ReadableStream: type must be "bytes" or left out, not ${JSONQuote(StringCtor(type))}`);
    if (type !== undefined) {
      const options = strategyFrom(rawStrategy, 0, 'ReadableStream');
      if (options.size !== undefined) throw new RangeError('ReadableStream: a byte stream takes no size function in its strategy');
      let chunkSize: number | undefined;
      if (autoAllocate !== undefined) {
        chunkSize = +(autoAllocate as number);
        if (!(chunkSize > 0) || chunkSize % 1 !== 0 || chunkSize === Infinity) throw new TypeError('ReadableStream: autoAllocateChunkSize must be a positive whole number');
      }
      setUpController(
        stream, 'bytes',
        (controller) => (start === undefined ? undefined : ReflectApply(start, self, [controller])),
        pull === undefined ? null : (controller) => promiseCall(pull, self, [controller]),
        cancel === undefined ? null : (reason) => promiseCall(cancel, self, [reason]),
        options.highWaterMark, null, chunkSize,
      );
      return;
    }
    const options = strategyFrom(rawStrategy, 1, 'ReadableStream');
    setUpController(
      stream, 'default',
      (controller) => (start === undefined ? undefined : ReflectApply(start, self, [controller])),
      pull === undefined ? null : (controller) => promiseCall(pull, self, [controller]),
      cancel === undefined ? null : (reason) => promiseCall(cancel, self, [reason]),
      options.highWaterMark, sizeAlgorithm(options.size),
    );
  }
  static from(asyncIterable: unknown): ReadableStream {
    return readableFrom(asyncIterable);
  }
  get locked(): boolean {
    return isLocked(recordOf(streams, this, 'ReadableStream.locked'));
  }
  cancel(reason?: unknown): Promise<undefined> {
    return withUnlocked(streams, this, 'ReadableStream.cancel', isLocked, 'reader', (stream) => readableCancel(stream, reason));
  }
  getReader(options?: { mode?: string }): ReadableStreamDefaultReader | ReadableStreamBYOBReader {
    recordOf(streams, this, 'ReadableStream.getReader');
    const dict = dictionary(options, 'ReadableStream.getReader: options');
    const mode = dict === null ? undefined : dict.mode;
    if (mode === undefined) return newDefaultReader(this);
    if (StringCtor(mode) !== 'byob') throw new TypeError(`ReadableStream.getReader: mode must be "byob" or left out, not ${JSONQuote(StringCtor(mode))}`);
    return newByobReader(this);
  }
  pipeThrough(transform: { readable: ReadableStream; writable: unknown }, options?: unknown): ReadableStream {
    return pipeHooks.pipeThrough(this, transform, options);
  }
  pipeTo(destination: unknown, options?: unknown): Promise<undefined> {
    return pipeHooks.pipeTo(this, destination, options);
  }
  tee(): [ReadableStream, ReadableStream] {
    return tee(recordOf(streams, this, 'ReadableStream.tee'));
  }
  values(options?: { preventCancel?: boolean }): AsyncIterableIterator<unknown> {
    return asyncIterator(recordOf(streams, this, 'ReadableStream.values'), options);
  }
  [SymbolAsyncIterator](options?: { preventCancel?: boolean }): AsyncIterableIterator<unknown> {
    return asyncIterator(recordOf(streams, this, 'ReadableStream[Symbol.asyncIterator]'), options);
  }
}
interfaceName(ReadableStream, 'ReadableStream');

function JSONQuote(text: string): string {
  return `"${text}"`;
}
function newDefaultReader(stream: ReadableStream): ReadableStreamDefaultReader {
  return new ReadableStreamDefaultReader(stream);
}
function newByobReader(stream: ReadableStream): ReadableStreamBYOBReader {
  return new ReadableStreamBYOBReader(stream);
}

/** The pipe operations (./pipe.ts installs them; it needs WritableStream, which needs this file). */
export const pipeHooks = {
  pipeTo: (_source: ReadableStream, _destination: unknown, _options: unknown): Promise<undefined> => rejected(new TypeError('pipeTo is not available')),
  pipeThrough: (_source: ReadableStream, _transform: unknown, _options: unknown): ReadableStream => {
    throw new TypeError('pipeThrough is not available');
  },
};

/** A stream made from algorithms (CreateReadableStream); returns the wrapper and its record. */
export function createReadable(
  start: (controller: ReadableStreamDefaultController) => unknown,
  pull: ((controller: ReadableStreamDefaultController) => Promise<unknown>) | null,
  cancel: ((reason: unknown) => Promise<unknown>) | null,
  highWaterMark = 1,
  size: ((chunk: unknown) => unknown) | null = null,
): ReadableStream {
  const wrapper = new ReadableStream(TOKEN as unknown as UnderlyingSource);
  const stream = streams.get(wrapper) as StreamRecord;
  setUpController(stream, 'default', start as (c: unknown) => unknown, pull as ((c: unknown) => Promise<unknown>) | null, cancel, highWaterMark, size);
  return wrapper;
}
export function controllerRecord(controller: ReadableStreamDefaultController): ControllerRecord {
  return defaultControllers.get(controller) as ControllerRecord;
}

function tee(stream: StreamRecord, cloneForBranch2: ((chunk: unknown) => unknown) | null = null): [ReadableStream, ReadableStream] {
  const reader = acquireReader(stream);
  let reading = false;
  let readAgain = false;
  let canceled1 = false;
  let canceled2 = false;
  let reason1: unknown;
  let reason2: unknown;
  let branch1: StreamRecord;
  let branch2: StreamRecord;
  const cancelPromise = deferred<undefined>();
  const pull = (): Promise<undefined> => {
    if (reading) {
      readAgain = true;
      return resolved(undefined);
    }
    reading = true;
    readerRead(reader, {
      chunk: (chunk) => {
        microtask(() => {
          readAgain = false;
          let second = chunk;
          if (!canceled2 && cloneForBranch2 !== null) {
            try {
              second = cloneForBranch2(chunk);
            } catch (error) {
              controllerError(branch1.controller, error);
              controllerError(branch2.controller, error);
              cancelPromise.resolve(readableCancel(stream, error) as unknown as undefined);
              return;
            }
          }
          if (!canceled1) branchEnqueue(branch1.controller, chunk);
          if (!canceled2) branchEnqueue(branch2.controller, second);
          reading = false;
          if (readAgain) pull();
        });
      },
      close: () => {
        reading = false;
        if (!canceled1) branchClose(branch1.controller);
        if (!canceled2) branchClose(branch2.controller);
        if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
      },
      error: () => {
        reading = false;
      },
    });
    return resolved(undefined);
  };
  const cancelBoth = (): void => {
    const result = readableCancel(stream, [reason1, reason2]);
    cancelPromise.resolve(result as unknown as undefined);
  };
  // A byte stream's branches are byte streams too (BYOB readers work on them); each gets its own copy of a chunk.
  const kind = stream.controller.kind;
  const one = createBranch(kind, pull, (reason) => {
    canceled1 = true;
    reason1 = reason;
    if (canceled2) cancelBoth();
    return cancelPromise.promise;
  });
  const two = createBranch(kind, pull, (reason) => {
    canceled2 = true;
    reason2 = reason;
    if (canceled1) cancelBoth();
    return cancelPromise.promise;
  });
  branch1 = streams.get(one) as StreamRecord;
  branch2 = streams.get(two) as StreamRecord;
  upon(reader.closed.promise, () => undefined, (error) => {
    controllerError(branch1.controller, error);
    controllerError(branch2.controller, error);
    if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
  });
  return [one, two];
}

function createBranch(kind: 'default' | 'bytes', pull: () => Promise<undefined>, cancel: (reason: unknown) => Promise<unknown>): ReadableStream {
  if (kind === 'default') return createReadable(() => undefined, pull, cancel);
  const wrapper = new ReadableStream(TOKEN as unknown as UnderlyingSource);
  setUpController(streams.get(wrapper)!, 'bytes', () => undefined, pull, cancel, 0, null);
  return wrapper;
}
function branchEnqueue(controller: ControllerRecord, chunk: unknown): void {
  if (controller.kind === 'bytes' && isView(chunk)) byteEnqueue(controller, chunk);
  else controllerEnqueue(controller, chunk);
}
function branchClose(controller: ControllerRecord): void {
  if (controller.kind !== 'bytes') return controllerClose(controller);
  if (controller.closeRequested || controller.stream.state !== 'readable') return;
  try {
    byteControllerClose(controller);
  } catch {
    return;
  }
  // Pending BYOB reads end as done (the standard's tee responds to them with 0 bytes).
  if (controller.pendingPullIntos.length > 0) respondInternal(controller, 0);
}

/** ReadableStream.from: an async iterable (or a sync iterable) as a stream. */
function readableFrom(value: unknown): ReadableStream {
  const iterator = getAsyncIterator(value);
  const next = iterator.next;
  return createReadable(
    () => undefined,
    (controller) => {
      let result: Promise<unknown>;
      try {
        result = resolved(ReflectApply(next as (...args: unknown[]) => unknown, iterator.target, []));
      } catch (error) {
        return rejected(error);
      }
      return upon(result, (step) => {
        if (typeof step !== 'object' || step === null) throw new TypeError('ReadableStream.from: the iterator returned a non-object');
        if ((step as IteratorResult<unknown>).done) controllerClose(controllerRecord(controller));
        else controllerEnqueue(controllerRecord(controller), (step as IteratorResult<unknown>).value);
      });
    },
    (reason) => {
      let returnMethod: unknown;
      try {
        returnMethod = (iterator.target as { return?: unknown }).return;
      } catch (error) {
        return rejected(error);
      }
      if (returnMethod === undefined || returnMethod === null) return resolved(undefined);
      if (typeof returnMethod !== 'function') return rejected(new TypeError('ReadableStream.from: the iterator\'s return is not a function'));
      let result: Promise<unknown>;
      try {
        result = resolved(ReflectApply(returnMethod as (...args: unknown[]) => unknown, iterator.target, [reason]));
      } catch (error) {
        return rejected(error);
      }
      return upon(result, (value) => {
        if (typeof value !== 'object' || value === null) throw new TypeError('ReadableStream.from: the iterator\'s return gave a non-object');
        return undefined;
      });
    },
    0,
  );
}

/** GetIterator(value, async): an async iterator, or a sync one whose values are awaited. */
function getAsyncIterator(value: unknown): { target: object; next: unknown } {
  if (value === null || value === undefined) throw new TypeError('ReadableStream.from: the argument must be an async iterable or an iterable');
  const target = value as Record<PropertyKey, unknown>;
  const asyncMethod = target[SymbolAsyncIterator];
  if (asyncMethod !== undefined && asyncMethod !== null) {
    if (typeof asyncMethod !== 'function') throw new TypeError('ReadableStream.from: Symbol.asyncIterator is not a function');
    const iterator = ReflectApply(asyncMethod as () => unknown, value, []);
    if (typeof iterator !== 'object' || iterator === null) throw new TypeError('ReadableStream.from: Symbol.asyncIterator did not return an object');
    return { target: iterator, next: (iterator as { next: unknown }).next };
  }
  const syncMethod = target[SymbolIterator];
  if (typeof syncMethod !== 'function') throw new TypeError('ReadableStream.from: the argument must be an async iterable or an iterable');
  const sync = ReflectApply(syncMethod as () => unknown, value, []);
  if (typeof sync !== 'object' || sync === null) throw new TypeError('ReadableStream.from: Symbol.iterator did not return an object');
  const syncNext = (sync as { next: unknown }).next;
  // CreateAsyncFromSyncIterator: each step's value is awaited.
  const wrapper = {
    next(): Promise<unknown> {
      const step = ReflectApply(syncNext as () => IteratorResult<unknown>, sync, []);
      if (typeof step !== 'object' || step === null) throw new TypeError('ReadableStream.from: the iterator returned a non-object');
      const done = !!step.done;
      return upon(resolved(step.value), (v) => ({ value: v, done }));
    },
    return(reason: unknown): Promise<unknown> {
      const method = (sync as { return?: unknown }).return;
      if (method === undefined || method === null) return resolved({ value: reason, done: true });
      const step = ReflectApply(method as (r: unknown) => IteratorResult<unknown>, sync, [reason]);
      if (typeof step !== 'object' || step === null) throw new TypeError('ReadableStream.from: the iterator\'s return gave a non-object');
      return upon(resolved(step.value), (v) => ({ value: v, done: true }));
    },
  };
  return { target: wrapper, next: wrapper.next };
}

// --- what bodies need -----------------------------------------------------------------
/**
 * Two branches of a stream; the second gets `cloneChunk` of each chunk (Request/Response clone
 * passes structuredClone: the caller brings it, since clone.ts reaches streams through Blob).
 */
export function teeStream(stream: ReadableStream, cloneChunk: (chunk: unknown) => unknown): [ReadableStream, ReadableStream] {
  return tee(streams.get(stream)!, cloneChunk);
}

/** A body that has been read keeps its stream locked (the standard's "fully read" never releases its reader). */
export function lockForever(stream: ReadableStream): void {
  const record = streams.get(stream)!;
  if (!isLocked(record)) acquireReader(record);
  record.disturbed = true;
}

export function isDisturbed(stream: ReadableStream): boolean {
  return (streams.get(stream) as StreamRecord).disturbed;
}

/** Everything already queued when the stream is closed (or closing with a full queue); null if more may come. */
export function drainNow(stream: ReadableStream): unknown[] | null {
  const record = streams.get(stream) as StreamRecord;
  if (record.state === 'errored') throw record.storedError;
  const controller = record.controller;
  if (record.state !== 'closed' && !controller.closeRequested) return null;
  record.disturbed = true;
  const out: unknown[] = [];
  while (queueLength(controller.queue) > 0) ArrayPrototypePush(out, dequeue(controller.queue));
  if (record.state === 'readable') {
    clearAlgorithms(controller);
    readableClose(record);
  }
  return out;
}

/** A closed stream holding these bytes as one chunk. */
export function streamOfBytes(bytes: Uint8Array): ReadableStream {
  return createReadable(
    (controller) => {
      const record = controllerRecord(controller);
      if (bytes.length > 0) controllerEnqueue(record, bytes);
      controllerClose(record);
    },
    null,
    null,
    0,
  );
}

/** Reads a whole stream (for text(), json() ...), chunk by chunk. */
export function readAll(stream: ReadableStream, onChunk: (chunk: unknown) => void): Promise<void> {
  const record = streams.get(stream) as StreamRecord;
  if (isLocked(record)) return rejected(new TypeError('the body stream is locked to a reader'));
  const reader = acquireReader(record);
  const done = deferred<void>();
  const step = (): void => {
    readerRead(reader, {
      chunk: (chunk) => {
        try {
          onChunk(chunk);
        } catch (error) {
          readerRelease(reader);
          done.reject(error);
          return;
        }
        // The next read in a microtask: a stream of many queued chunks must not deepen the stack.
        microtask(step);
      },
      close: () => {
        // The reader is kept: a body read to its end stays locked, as the Fetch standard says.
        done.resolve(undefined);
      },
      error: (reason) => {
        readerRelease(reader);
        done.reject(reason);
      },
    });
  };
  step();
  return done.promise;
}

