// The web platform globals: timers, performance, navigator, events and
// aborts, Headers/Request/Response/Blob/File/FormData, fetch and crypto.subtle. The
// prelude installs them once per isolate; `bindRun` links them to a run when it starts.
import { domExceptionGroup } from '../dom-exception';
import { CustomEvent, ErrorEvent, Event, EventTarget, globalEventFunctions } from './event';
export type { AsyncHostCaller, StartedCall } from './host';
import { bindRun, type AsyncHostCaller } from './host';
import { ObjectFreeze } from './primordials';
import { makePerformance, Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, resetTimeOrigin } from '../performance';
import { clearInterval, clearTimeout, fireDue, nextDue, pendingCount, queueMicrotask, setInterval, setTimeout } from './timers';
import { defineLazy, materialize } from '../lazy-group';
import { platformGroup, textGroup, type WebPlatform } from './lazy';
import { sealed } from './sealed';

/** The globals ./platform.ts makes when a program first reads one (./lazy.ts). */
const LAZY_GLOBALS = [
  'AbortSignal', 'AbortController', 'Headers', 'Blob', 'File', 'FormData', 'FileReader', 'ProgressEvent',
  'ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamDefaultController', 'ReadableStreamBYOBReader', 'ReadableStreamBYOBRequest', 'ReadableByteStreamController',
  'WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController',
  'TransformStream', 'TransformStreamDefaultController', 'ByteLengthQueuingStrategy', 'CountQueuingStrategy',
  'Request', 'Response', 'fetch', 'CryptoKey', 'structuredClone',
];
/** The encoding classes (./text.ts), made when a program first reads one. */
const TEXT_GLOBALS = ['TextEncoder', 'TextDecoder', 'TextEncoderStream', 'TextDecoderStream'];
const GLOBAL_ATTRIBUTES = { enumerable: false, writable: true, configurable: true };

/** `fetch` for one Package's code (its own host caller); evaluates the web platform. */
export function fetchFor(callAsync: AsyncHostCaller): ReturnType<WebPlatform['fetchFor']> {
  return materialize(platformGroup).fetchFor(callAsync);
}

/** Evaluates the lazy web globals now (before lockdown freezes what the global object leads to). */
export function materializeWeb(): void {
  materialize(domExceptionGroup);
  materialize(platformGroup);
  materialize(textGroup);
}

// performance is the prelude's (../performance.ts): one per run, its clock reset when the run starts.
const performance = makePerformance();

const navigator = ObjectFreeze({ userAgent: 'svc (Deno-compatible isolate runner)', language: 'en-US', languages: ObjectFreeze(['en-US']), hardwareConcurrency: 1 });

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
  define('Event', sealed(Event));
  define('EventTarget', sealed(EventTarget));
  define('CustomEvent', sealed(CustomEvent));
  define('ErrorEvent', sealed(ErrorEvent));
  const globalEvents = globalEventFunctions();
  define('addEventListener', globalEvents.addEventListener);
  define('removeEventListener', globalEvents.removeEventListener);
  define('dispatchEvent', globalEvents.dispatchEvent);
  define('reportError', globalEvents.reportError);
  const global = globalThis as Record<string, unknown>;
  defineLazy(domExceptionGroup, global, 'DOMException', (made) => made, GLOBAL_ATTRIBUTES);
  for (let i = 0; i < LAZY_GLOBALS.length; i++) {
    const name = LAZY_GLOBALS[i];
    defineLazy(platformGroup, global, name, (made) => made.globals[name], GLOBAL_ATTRIBUTES);
  }
  for (let i = 0; i < TEXT_GLOBALS.length; i++) {
    const name = TEXT_GLOBALS[i];
    defineLazy(textGroup, global, name, (made) => made.globals[name], GLOBAL_ATTRIBUTES);
  }
  // crypto (getRandomValues, randomUUID) is defined just before; subtle joins it.
  defineLazy(platformGroup, (globalThis as { crypto: object }).crypto, 'subtle', (made) => made.subtle, { enumerable: true, writable: false, configurable: false });
}

/** Called by the prelude when a run starts. */
export function startWebRun(callAsync: AsyncHostCaller, report: (error: unknown) => void): void {
  resetTimeOrigin();
  bindRun(callAsync, report);
}

/** The runner's seam for timers: next due time (-1: none), fire one due timer, count left. */
export const webTimers = ObjectFreeze({ nextDue, fireDue, pendingCount });
