// The web platform globals: timers, performance, navigator, events and
// aborts, Headers/Request/Response/Blob/File/FormData, fetch and crypto.subtle. The
// prelude installs them once per isolate; `bindRun` links them to a run when it starts.
// All but the timers and navigator are made on first read (./lazy.ts).
import { domExceptionGroup } from '../dom-exception';
export type { AsyncHostCaller, StartedCall } from './host';
import { bindRun, type AsyncHostCaller } from './host';
import { ObjectFreeze } from './primordials';
import { clearInterval, clearTimeout, fireDue, nextDue, pendingCount, queueMicrotask, setInterval, setTimeout } from './timers';
import { defineLazy, fromGlobals, materialize } from '../lazy-group';
import { eventGroup, platformGroup, textGroup, type WebPlatform } from './lazy';
import { urlGroup } from './url-group';

/** The globals ./platform.ts makes when a program first reads one (./lazy.ts). */
const LAZY_GLOBALS = [
  'AbortSignal', 'AbortController', 'Headers', 'Blob', 'File', 'FormData', 'FileReader', 'ProgressEvent',
  'ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamDefaultController', 'ReadableStreamBYOBReader', 'ReadableStreamBYOBRequest', 'ReadableByteStreamController',
  'WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController',
  'TransformStream', 'TransformStreamDefaultController', 'ByteLengthQueuingStrategy', 'CountQueuingStrategy',
  'Request', 'Response', 'fetch', 'CryptoKey', 'structuredClone',
];
/** The event classes, the global scope's event functions and `performance` (./event-globals.ts), made when a program first reads one. */
const PERFORMANCE_GLOBALS = ['performance', 'Performance', 'PerformanceEntry', 'PerformanceMark', 'PerformanceMeasure'];
const EVENT_GLOBALS = ['Event', 'EventTarget', 'CustomEvent', 'ErrorEvent', 'addEventListener', 'removeEventListener', 'dispatchEvent', 'reportError'];
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
  materialize(urlGroup);
  materialize(eventGroup);
  materialize(platformGroup);
  materialize(textGroup);
}

const navigator = ObjectFreeze({ userAgent: 'svc (Deno-compatible isolate runner)', language: 'en-US', languages: ObjectFreeze(['en-US']), hardwareConcurrency: 1 });

export function installWeb(define: (name: string, value: unknown) => void): void {
  define('setTimeout', setTimeout);
  define('setInterval', setInterval);
  define('clearTimeout', clearTimeout);
  define('clearInterval', clearInterval);
  define('queueMicrotask', queueMicrotask);
  const global = globalThis as Record<string, unknown>;
  // In the order they were defined when they were made eagerly (the global object's own names keep it).
  defineEventGlobals(global, PERFORMANCE_GLOBALS);
  define('navigator', navigator);
  defineEventGlobals(global, EVENT_GLOBALS);
  defineLazy(domExceptionGroup, global, 'DOMException', (made) => made, GLOBAL_ATTRIBUTES);
  for (let i = 0; i < LAZY_GLOBALS.length; i++) defineLazy(platformGroup, global, LAZY_GLOBALS[i], fromGlobals, GLOBAL_ATTRIBUTES);
  for (let i = 0; i < TEXT_GLOBALS.length; i++) defineLazy(textGroup, global, TEXT_GLOBALS[i], fromGlobals, GLOBAL_ATTRIBUTES);
  // crypto (getRandomValues, randomUUID) is defined just before; subtle joins it.
  defineLazy(platformGroup, (globalThis as { crypto: object }).crypto, 'subtle', (made) => made.subtle, { enumerable: true, writable: false, configurable: false });
}

function defineEventGlobals(global: object, names: readonly string[]): void {
  for (let i = 0; i < names.length; i++) defineLazy(eventGroup, global, names[i], fromGlobals, GLOBAL_ATTRIBUTES);
}

/** Called by the prelude when a run starts. */
export function startWebRun(callAsync: AsyncHostCaller, report: (error: unknown) => void): void {
  // performance's clock starts with the run; made later, it starts fresh anyway.
  if (eventGroup.made !== null) eventGroup.made.resetTimeOrigin();
  bindRun(callAsync, report);
}

/** The runner's seam for timers: next due time (-1: none), fire one due timer, count left. */
export const webTimers = ObjectFreeze({ nextDue, fireDue, pendingCount });
