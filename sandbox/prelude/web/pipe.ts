// ReadableStream.prototype.pipeTo and pipeThrough (WHATWG Streams "ReadableStreamPipeTo"):
// one chunk at a time, each written when the writer is ready; errors and closes propagate
// both ways unless prevented; an AbortSignal shuts the pipe down with its reason.
import { isAbortSignal, onAbort, type AbortSignal } from './abort';
import { acquireReader, isLocked, pipeHooks, readableCancel, readableRecord, readerRead, readerRelease, type ReadableStream, type StreamRecord } from './streams';
import { acquireWriter, closeQueuedOrInFlight, isWritableLocked, writableAbort, writableRecord, writerCloseWithErrorPropagation, writerRelease, writerWrite, type WritableRecord } from './writable';
import { deferred, dictionary, handled, rejected, resolved, upon } from './stream-kit';

interface PipeOptions {
  preventAbort: boolean;
  preventCancel: boolean;
  preventClose: boolean;
  signal: AbortSignal | undefined;
}

function optionsOf(value: unknown, what: string): PipeOptions {
  const dict = dictionary(value, `${what}: options`);
  // Dictionary members are read in the standard's (alphabetical) order.
  const preventAbort = dict !== null && !!dict.preventAbort;
  const preventCancel = dict !== null && !!dict.preventCancel;
  const preventClose = dict !== null && !!dict.preventClose;
  const signal = dict === null ? undefined : dict.signal;
  if (signal !== undefined && !isAbortSignal(signal)) throw new TypeError(`${what}: options.signal must be an AbortSignal`);
  return { preventAbort, preventCancel, preventClose, signal: signal as AbortSignal | undefined };
}

function pipe(source: StreamRecord, dest: WritableRecord, options: PipeOptions): Promise<undefined> {
  const reader = acquireReader(source);
  const writer = acquireWriter(dest);
  source.disturbed = true;
  let shuttingDown = false;
  let currentWrite: Promise<unknown> = resolved(undefined);
  const done = deferred<undefined>();
  let detachSignal = (): void => undefined;

  const finalize = (isError: boolean, error?: unknown): void => {
    writerRelease(writer);
    readerRelease(reader);
    detachSignal();
    if (isError) done.reject(error);
    else done.resolve(undefined);
  };
  /** Waits until every chunk read so far has been written (the last write may start another). */
  const writesFinished = (): Promise<unknown> => {
    const last = currentWrite;
    return upon(last, () => (last !== currentWrite ? writesFinished() : undefined), () => (last !== currentWrite ? writesFinished() : undefined));
  };
  const shutdownWithAction = (action: () => Promise<unknown>, isError: boolean, error?: unknown): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    const run = (): void => {
      upon(action(), () => finalize(isError, error), (newError) => finalize(true, newError));
    };
    if (dest.state === 'writable' && !closeQueuedOrInFlight(dest)) upon(writesFinished(), run);
    else run();
  };
  const shutdown = (isError: boolean, error?: unknown): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    if (dest.state === 'writable' && !closeQueuedOrInFlight(dest)) upon(writesFinished(), () => finalize(isError, error));
    else finalize(isError, error);
  };

  const signal = options.signal;
  if (signal !== undefined) {
    const abortAlgorithm = (): void => {
      const error = signal.reason;
      shutdownWithAction(() => {
        const actions: Array<Promise<unknown>> = [];
        if (!options.preventAbort) actions[actions.length] = dest.state === 'writable' ? writableAbort(dest, error) : resolved(undefined);
        if (!options.preventCancel) actions[actions.length] = source.state === 'readable' ? readableCancel(source, error) : resolved(undefined);
        return all(actions);
      }, true, error);
    };
    if (signal.aborted) {
      abortAlgorithm();
      return done.promise;
    }
    detachSignal = onAbort(signal, abortAlgorithm);
  }

  // Errors and closes, both ways (checked now, and whenever they happen).
  const sourceErrored = (error: unknown): void => {
    if (!options.preventAbort) shutdownWithAction(() => writableAbort(dest, error), true, error);
    else shutdown(true, error);
  };
  const destErrored = (error: unknown): void => {
    if (!options.preventCancel) shutdownWithAction(() => readableCancel(source, error), true, error);
    else shutdown(true, error);
  };
  const sourceClosed = (): void => {
    if (!options.preventClose) shutdownWithAction(() => writerCloseWithErrorPropagation(writer), false);
    else shutdown(false);
  };
  const destClosed = (): void => {
    const error = new TypeError('pipeTo: the destination closed before the source ended');
    if (!options.preventCancel) shutdownWithAction(() => readableCancel(source, error), true, error);
    else shutdown(true, error);
  };
  upon(reader.closed.promise, () => {
    if (!shuttingDown) sourceClosed();
  }, (error) => sourceErrored(error));
  upon(writer.closed.promise, () => undefined, (error) => destErrored(error));

  if (source.state === 'errored') sourceErrored(source.storedError);
  else if (dest.state === 'errored' || dest.state === 'erroring') destErrored(dest.storedError);
  else if (source.state === 'closed') sourceClosed();
  else if (closeQueuedOrInFlight(dest) || dest.state === 'closed') destClosed();

  const step = (): void => {
    if (shuttingDown) return;
    upon(writer.ready.promise, () => {
      if (shuttingDown) return;
      readerRead(reader, {
        chunk: (chunk) => {
          currentWrite = handled(writerWrite(writer, chunk));
          step();
        },
        close: () => undefined,
        error: () => undefined,
      });
    }, () => undefined);
  };
  step();
  return done.promise;
}

function all(promises: Array<Promise<unknown>>): Promise<unknown> {
  const result = deferred<undefined>();
  let left = promises.length;
  if (left === 0) result.resolve(undefined);
  for (let i = 0; i < promises.length; i++) {
    upon(promises[i], () => {
      if (--left === 0) result.resolve(undefined);
    }, (error) => result.reject(error));
  }
  return result.promise;
}

function pipeTo(self: ReadableStream, destination: unknown, options: unknown): Promise<undefined> {
  const source = readableRecord(self);
  if (source === null) return rejected(new TypeError('ReadableStream.pipeTo: illegal invocation'));
  const dest = writableRecord(destination);
  if (dest === null) return rejected(new TypeError('ReadableStream.pipeTo: the destination must be a WritableStream'));
  let parsed: PipeOptions;
  try {
    parsed = optionsOf(options, 'ReadableStream.pipeTo');
  } catch (error) {
    return rejected(error);
  }
  if (isLocked(source)) return rejected(new TypeError('ReadableStream.pipeTo: the source is locked to a reader'));
  if (isWritableLocked(dest)) return rejected(new TypeError('ReadableStream.pipeTo: the destination is locked to a writer'));
  return pipe(source, dest, parsed);
}

function pipeThrough(self: ReadableStream, transform: unknown, options: unknown): ReadableStream {
  const source = readableRecord(self);
  if (source === null) throw new TypeError('ReadableStream.pipeThrough: illegal invocation');
  const pair = dictionary(transform, 'ReadableStream.pipeThrough: the transform');
  if (pair === null) throw new TypeError('ReadableStream.pipeThrough: pass { readable, writable }');
  const readable = pair.readable;
  if (readableRecord(readable) === null) throw new TypeError('ReadableStream.pipeThrough: transform.readable must be a ReadableStream');
  const writable = pair.writable;
  const dest = writableRecord(writable);
  if (dest === null) throw new TypeError('ReadableStream.pipeThrough: transform.writable must be a WritableStream');
  const parsed = optionsOf(options, 'ReadableStream.pipeThrough');
  if (isLocked(source)) throw new TypeError('ReadableStream.pipeThrough: the source is locked to a reader');
  if (isWritableLocked(dest)) throw new TypeError('ReadableStream.pipeThrough: transform.writable is locked to a writer');
  handled(pipe(source, dest, parsed));
  return readable as ReadableStream;
}

pipeHooks.pipeTo = pipeTo;
pipeHooks.pipeThrough = pipeThrough as typeof pipeHooks.pipeThrough;
