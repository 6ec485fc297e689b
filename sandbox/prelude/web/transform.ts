// TransformStream per the WHATWG Streams standard (with transformer.cancel), and the two
// queuing strategies. A TransformStream is a WritableStream and a ReadableStream joined by
// the transformer; back-pressure on the readable side holds the writes.
import { SymbolCtor, ObjectDefineProperty, ReflectApply } from './primordials';
import { SafeWeakMap } from '../primordials';
import { callback, deferred, dictionary, promiseCall, recordOf, rejected, resolved, readStrategy, sizeAlgorithm, strategyFrom, upon, type Deferred } from './stream-kit';
import { canCloseOrEnqueue, controllerClose, controllerEnqueue, controllerError, createReadable, desiredSize, readableRecord, shouldCallPull, type ControllerRecord, type ReadableStream, type StreamRecord } from './streams';
import { createWritable, sinkErrorIfNeeded, writableRecord, type WritableRecord, type WritableStream } from './writable';
import { interfaceName } from '../idl';

const TOKEN = SymbolCtor('transform internals');

interface TransformRecord {
  readable: ReadableStream;
  readableRecord: StreamRecord;
  writable: WritableStream;
  writableRecord: WritableRecord;
  backpressure: boolean | undefined;
  backpressureChange: Deferred<undefined> | null;
  controller: TransformControllerRecord;
}
interface TransformControllerRecord {
  stream: TransformRecord;
  transform: ((chunk: unknown) => Promise<unknown>) | null;
  flush: (() => Promise<unknown>) | null;
  cancel: ((reason: unknown) => Promise<unknown>) | null;
  finish: Deferred<undefined> | null;
}

const transforms = new SafeWeakMap<object, TransformRecord>();
const controllers = new SafeWeakMap<object, TransformControllerRecord>();

function readableController(stream: TransformRecord): ControllerRecord {
  return stream.readableRecord.controller;
}
function setBackpressure(stream: TransformRecord, backpressure: boolean): void {
  if (stream.backpressureChange !== null) stream.backpressureChange.resolve(undefined);
  stream.backpressureChange = deferred<undefined>();
  stream.backpressure = backpressure;
}
function unblockWrite(stream: TransformRecord): void {
  if (stream.backpressure) setBackpressure(stream, false);
}
function clearAlgorithms(controller: TransformControllerRecord): void {
  controller.transform = null;
  controller.flush = null;
  controller.cancel = null;
}
function errorWritableAndUnblockWrite(stream: TransformRecord, error: unknown): void {
  clearAlgorithms(stream.controller);
  sinkErrorIfNeeded(stream.writableRecord, error);
  unblockWrite(stream);
}
function transformError(stream: TransformRecord, error: unknown): void {
  controllerError(readableController(stream), error);
  errorWritableAndUnblockWrite(stream, error);
}
function transformEnqueue(controller: TransformControllerRecord, chunk: unknown): void {
  const stream = controller.stream;
  const readable = readableController(stream);
  if (!canCloseOrEnqueue(readable)) throw new TypeError('TransformStreamDefaultController.enqueue: the readable side is closed or errored');
  try {
    controllerEnqueue(readable, chunk);
  } catch (error) {
    errorWritableAndUnblockWrite(stream, error);
    throw stream.readableRecord.storedError;
  }
  const backpressure = !shouldCallPull(readable);
  if (backpressure !== stream.backpressure && backpressure) setBackpressure(stream, true);
}
function transformTerminate(controller: TransformControllerRecord): void {
  const stream = controller.stream;
  const readable = readableController(stream);
  if (canCloseOrEnqueue(readable)) controllerClose(readable);
  errorWritableAndUnblockWrite(stream, new TypeError('TransformStream: the stream was terminated'));
}
function performTransform(controller: TransformControllerRecord, chunk: unknown): Promise<unknown> {
  const transform = controller.transform;
  return upon(transform === null ? resolved(undefined) : transform(chunk), () => undefined, (reason) => {
    transformError(controller.stream, reason);
    throw reason;
  });
}

function sinkWrite(stream: TransformRecord, chunk: unknown): Promise<unknown> {
  const controller = stream.controller;
  if (stream.backpressure) {
    return upon(stream.backpressureChange!.promise, () => {
      const writable = stream.writableRecord;
      if (writable.state === 'erroring') throw writable.storedError;
      return performTransform(controller, chunk);
    });
  }
  return performTransform(controller, chunk);
}
/**
 * What abort, close and cancel share: the first of them runs its algorithm (taken before the
 * algorithms are cleared), later ones get the same promise. When the other side errored
 * meanwhile its error settles it; else `done` runs, or `failed` with the algorithm's error.
 */
function finishOnce(
  stream: TransformRecord,
  other: { state: string; storedError: unknown },
  take: (controller: TransformControllerRecord) => (() => Promise<unknown>) | null,
  done: () => void,
  failed: (error: unknown) => void,
): Promise<undefined> {
  const controller = stream.controller;
  if (controller.finish !== null) return controller.finish.promise;
  const finish = deferred<undefined>();
  controller.finish = finish;
  const algorithm = take(controller);
  clearAlgorithms(controller);
  upon(algorithm === null ? resolved(undefined) : algorithm(), () => {
    if (other.state === 'errored') finish.reject(other.storedError);
    else {
      done();
      finish.resolve(undefined);
    }
  }, (error) => {
    failed(error);
    finish.reject(error);
  });
  return finish.promise;
}
function cancelWith(reason: unknown): (controller: TransformControllerRecord) => (() => Promise<unknown>) | null {
  return (controller) => {
    const cancel = controller.cancel;
    return cancel === null ? null : () => cancel(reason);
  };
}
function sinkAbort(stream: TransformRecord, reason: unknown): Promise<undefined> {
  const readable = stream.readableRecord;
  return finishOnce(stream, readable, cancelWith(reason), () => controllerError(readable.controller, reason), (error) => controllerError(readable.controller, error));
}
function sinkClose(stream: TransformRecord): Promise<undefined> {
  const readable = stream.readableRecord;
  return finishOnce(stream, readable, (controller) => controller.flush, () => {
    if (canCloseOrEnqueue(readable.controller)) controllerClose(readable.controller);
  }, (error) => controllerError(readable.controller, error));
}
function sourceCancel(stream: TransformRecord, reason: unknown): Promise<undefined> {
  const writable = stream.writableRecord;
  return finishOnce(stream, writable, cancelWith(reason), () => {
    sinkErrorIfNeeded(writable, reason);
    unblockWrite(stream);
  }, (error) => {
    sinkErrorIfNeeded(writable, error);
    unblockWrite(stream);
  });
}
function sourcePull(stream: TransformRecord): Promise<undefined> {
  setBackpressure(stream, false);
  return stream.backpressureChange!.promise;
}

export class TransformStreamDefaultController {
  constructor(token?: unknown, record?: TransformControllerRecord) {
    if (token !== TOKEN) throw new TypeError('Illegal constructor');
    controllers.set(this, record!);
  }
  get desiredSize(): number | null {
    return desiredSize(readableController(recordOf(controllers, this, 'TransformStreamDefaultController.desiredSize').stream));
  }
  enqueue(chunk?: unknown): void {
    transformEnqueue(recordOf(controllers, this, 'TransformStreamDefaultController.enqueue'), chunk);
  }
  error(reason?: unknown): void {
    transformError(recordOf(controllers, this, 'TransformStreamDefaultController.error').stream, reason);
  }
  terminate(): void {
    transformTerminate(recordOf(controllers, this, 'TransformStreamDefaultController.terminate'));
  }
}
interfaceName(TransformStreamDefaultController, 'TransformStreamDefaultController');
function newController(record: TransformControllerRecord): TransformStreamDefaultController {
  return new TransformStreamDefaultController(TOKEN, record);
}

export class TransformStream {
  constructor(transformer?: Record<string, unknown> | null, writableStrategy?: unknown, readableStrategy?: unknown) {
    const writableRaw = readStrategy(writableStrategy, 'TransformStream (writable strategy)');
    const readableRaw = readStrategy(readableStrategy, 'TransformStream (readable strategy)');
    if (transformer === null) throw new TypeError('TransformStream: the transformer must be an object, not null');
    const dict = transformer === undefined ? null : dictionary(transformer, 'TransformStream: the transformer');
    // Dictionary members are read in the standard's (alphabetical) order.
    const cancel = callback(dict, 'cancel', 'TransformStream');
    const flush = callback(dict, 'flush', 'TransformStream');
    const readableType = dict === null ? undefined : dict.readableType;
    const start = callback(dict, 'start', 'TransformStream');
    const transform = callback(dict, 'transform', 'TransformStream');
    const writableType = dict === null ? undefined : dict.writableType;
    if (readableType !== undefined) throw new RangeError('TransformStream: readableType is not supported; leave it out');
    if (writableType !== undefined) throw new RangeError('TransformStream: writableType is not supported; leave it out');
    const readableOptions = strategyFrom(readableRaw, 0, 'TransformStream (readable strategy)');
    const writableOptions = strategyFrom(writableRaw, 1, 'TransformStream (writable strategy)');
    const startPromise = deferred<unknown>();
    const stream = {} as TransformRecord;
    stream.writable = createWritable(
      () => startPromise.promise,
      (chunk) => sinkWrite(stream, chunk),
      () => sinkClose(stream),
      (reason) => sinkAbort(stream, reason),
      writableOptions.highWaterMark,
      sizeAlgorithm(writableOptions.size),
    );
    stream.writableRecord = writableRecord(stream.writable)!;
    stream.readable = createReadable(() => startPromise.promise, () => sourcePull(stream), (reason) => sourceCancel(stream, reason), readableOptions.highWaterMark, sizeAlgorithm(readableOptions.size));
    stream.readableRecord = readableRecord(stream.readable)!;
    stream.backpressure = undefined;
    stream.backpressureChange = null;
    setBackpressure(stream, true);
    const controller: TransformControllerRecord = { stream, transform: null, flush: null, cancel: null, finish: null };
    stream.controller = controller;
    const wrapper = newController(controller);
    controller.transform = transform === undefined
      ? (chunk) => {
          try {
            transformEnqueue(controller, chunk);
            return resolved(undefined);
          } catch (error) {
            return rejected(error);
          }
        }
      : (chunk) => promiseCall(transform, dict, [chunk, wrapper]);
    controller.flush = flush === undefined ? () => resolved(undefined) : () => promiseCall(flush, dict, [wrapper]);
    controller.cancel = cancel === undefined ? () => resolved(undefined) : (reason) => promiseCall(cancel, dict, [reason]);
    transforms.set(this, stream);
    startPromise.resolve(start === undefined ? undefined : ReflectApply(start, dict, [wrapper]));
  }
  get readable(): ReadableStream {
    return recordOf(transforms, this, 'TransformStream.readable').readable;
  }
  get writable(): WritableStream {
    return recordOf(transforms, this, 'TransformStream.writable').writable;
  }
}
interfaceName(TransformStream, 'TransformStream');
// The encoding library names the global TransformStream, so the bundler renames this class (TransformStream2); it is frozen before define() could fix its name.
ObjectDefineProperty(TransformStream, 'name', { value: 'TransformStream', configurable: true });

// --- queuing strategies ---------------------------------------------------------------
function markOf(init: unknown, what: string): number {
  const dict = dictionary(init, what);
  const mark = dict === null ? undefined : dict.highWaterMark;
  if (mark === undefined) throw new TypeError(`${what}: highWaterMark is required`);
  return +(mark as number);
}
// One size function per class, the same object each time; methods, so neither has a
// prototype or can be constructed (as the standard's).
const byteLengthSize = {
  size(chunk: { byteLength: number }): number {
    return chunk.byteLength;
  },
}.size;
const countSize = {
  size(): number {
    return 1;
  },
}.size;

/**
 * The two strategy classes differ only in their name and size function, so one factory makes
 * both; each is a class of its own (neither inherits from the other, as in the standard).
 */
function queuingStrategyClass<Size>(name: string, size: Size) {
  const Strategy = class {
    readonly #highWaterMark: number;
    constructor(init: { highWaterMark: number }) {
      if (arguments.length === 0) throw new TypeError(`${name}: pass { highWaterMark }`);
      this.#highWaterMark = markOf(init, name);
    }
    get highWaterMark(): number {
      return this.#highWaterMark;
    }
    get size(): Size {
      if (!(typeof this === 'object' && this !== null && #highWaterMark in this)) throw new TypeError(`${name}.size: illegal invocation`);
      return size;
    }
  };
  ObjectDefineProperty(Strategy, 'name', { value: name, configurable: true });
  interfaceName(Strategy, name);
  return Strategy;
}
export const ByteLengthQueuingStrategy = queuingStrategyClass('ByteLengthQueuingStrategy', byteLengthSize);
export const CountQueuingStrategy = queuingStrategyClass('CountQueuingStrategy', countSize);
