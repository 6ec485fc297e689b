// The web platform globals: timers, performance, navigator, events and
// aborts, Headers/Request/Response/Blob/File/FormData, fetch and crypto.subtle. The
// prelude installs them once per isolate; `bindRun` links them to a run when it starts.
import { AbortController, AbortSignal } from './abort';
import { Blob, File, FormData } from './blob';
import { DOMException } from '../dom-exception';
import { CustomEvent, ErrorEvent, Event, EventTarget, globalEventFunctions } from './event';
import { fetch, Request, Response } from './fetch';
export { fetchFor } from './fetch';
export type { AsyncHostCaller, StartedCall } from './host';
import { Headers } from './headers';
import { CryptoKey, subtle } from './subtle';
import { ReadableByteStreamController, ReadableStream, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableStreamDefaultController, ReadableStreamDefaultReader } from './streams';
import { WritableStream, WritableStreamDefaultController, WritableStreamDefaultWriter } from './writable';
import { ByteLengthQueuingStrategy, CountQueuingStrategy, TransformStream, TransformStreamDefaultController } from './transform';
import './pipe';
import { FileReader, ProgressEvent } from './file-reader';
import { bindRun, type AsyncHostCaller } from './host';
import { ObjectDefineProperty, ObjectFreeze } from './primordials';
import { makePerformance, Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, resetTimeOrigin } from '../performance';
import { clearInterval, clearTimeout, fireDue, nextDue, pendingCount, queueMicrotask, setInterval, setTimeout } from './timers';

// performance is the prelude's (../performance.ts): one per run, its clock reset when the run starts.
const performance = makePerformance();

const navigator = ObjectFreeze({ userAgent: 'svc (Deno-compatible isolate runner)', language: 'en-US', languages: ObjectFreeze(['en-US']), hardwareConcurrency: 1 });

/** Freezes a class and its prototype: trusted code calls their methods. */
function sealed<T extends object>(cls: T): T {
  ObjectFreeze((cls as unknown as { prototype: object }).prototype);
  return ObjectFreeze(cls);
}

export function installWeb(define: (name: string, value: unknown) => void): void {
  define('setTimeout', setTimeout);
  define('setInterval', setInterval);
  define('clearTimeout', clearTimeout);
  define('clearInterval', clearInterval);
  define('queueMicrotask', queueMicrotask);
  define('performance', performance);
  define('Performance', Performance);
  define('PerformanceEntry', PerformanceEntry);
  define('PerformanceMark', PerformanceMark);
  define('PerformanceMeasure', PerformanceMeasure);
  define('navigator', navigator);
  define('DOMException', sealed(DOMException));
  define('Event', sealed(Event));
  define('EventTarget', sealed(EventTarget));
  define('CustomEvent', sealed(CustomEvent));
  define('ErrorEvent', sealed(ErrorEvent));
  const globalEvents = globalEventFunctions();
  define('addEventListener', globalEvents.addEventListener);
  define('removeEventListener', globalEvents.removeEventListener);
  define('dispatchEvent', globalEvents.dispatchEvent);
  define('reportError', globalEvents.reportError);
  define('AbortSignal', sealed(AbortSignal));
  define('AbortController', sealed(AbortController));
  define('Headers', sealed(Headers));
  define('Blob', sealed(Blob));
  define('File', sealed(File));
  define('FormData', sealed(FormData));
  define('FileReader', sealed(FileReader));
  define('ProgressEvent', sealed(ProgressEvent));
  define('ReadableStream', sealed(ReadableStream));
  define('ReadableStreamDefaultReader', sealed(ReadableStreamDefaultReader));
  define('ReadableStreamDefaultController', sealed(ReadableStreamDefaultController));
  define('ReadableStreamBYOBReader', sealed(ReadableStreamBYOBReader));
  define('ReadableStreamBYOBRequest', sealed(ReadableStreamBYOBRequest));
  define('ReadableByteStreamController', sealed(ReadableByteStreamController));
  define('WritableStream', sealed(WritableStream));
  define('WritableStreamDefaultWriter', sealed(WritableStreamDefaultWriter));
  define('WritableStreamDefaultController', sealed(WritableStreamDefaultController));
  define('TransformStream', sealed(TransformStream));
  define('TransformStreamDefaultController', sealed(TransformStreamDefaultController));
  define('ByteLengthQueuingStrategy', sealed(ByteLengthQueuingStrategy));
  define('CountQueuingStrategy', sealed(CountQueuingStrategy));
  define('Request', sealed(Request));
  define('Response', sealed(Response));
  define('fetch', fetch);
  define('CryptoKey', sealed(CryptoKey));
  // crypto (getRandomValues, randomUUID) is defined just before; subtle joins it.
  ObjectDefineProperty((globalThis as { crypto: object }).crypto, 'subtle', { value: subtle, enumerable: true, writable: false, configurable: false });
}

/** Called by the prelude when a run starts. */
export function startWebRun(callAsync: AsyncHostCaller, report: (error: unknown) => void): void {
  resetTimeOrigin();
  bindRun(callAsync, report);
}

/** The runner's seam for timers: next due time (-1: none), fire one due timer, count left. */
export const webTimers = ObjectFreeze({ nextDue, fireDue, pendingCount });
