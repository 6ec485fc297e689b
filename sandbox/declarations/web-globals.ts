// The web-platform globals svc provides, one entry a line: the declarations programs are
// checked against are derived from TypeScript's own lib.webworker declarations for exactly
// these names (and the types they refer to), as Deno derives its own (derive.ts). A runtime
// that gains a global adds its line here and runs `npm run generate`; a member the runtime
// does not have is listed under `omit` until it does, and no longer once it does
// (test/integration/declarations-runtime.test.ts compares both ways). svc's own globals
// (assert, its errors, navigator) are in svc.d.ts.

/** TypeScript's ECMAScript libraries programs are checked against: V8's built-ins up to ES2024, and the later ones svc provides from core-js (Set methods, iterator helpers, Array.fromAsync, Promise.try; RegExp.escape, which TypeScript's libraries lack, is in svc.d.ts). */
export const ES_LIBRARIES: readonly string[] = ['es2024', 'esnext.array', 'esnext.collection', 'esnext.iterator', 'esnext.promise'];

/** Global values of those libraries the runtime removes (sandbox/prelude/globals.ts: no shared memory between runs); their types stay. */
export const ES_ABSENT_VALUES: readonly string[] = ['SharedArrayBuffer', 'Atomics'];

/** Members those libraries declare that V8 11.3 lacks and svc does not provide (ES2024's ArrayBuffer transfer). */
export const ES_OMITTED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  ArrayBuffer: ['detached', 'transfer', 'transferToFixedLength'],
};

export interface WebGlobal {
  /** The global's name, as lib.webworker declares it (a `declare var` or `declare function`). */
  name: string;
  /** Members (static or instance, or of the interface a namespace-like global's type names) the runtime does not provide. */
  omit?: readonly string[];
  /** Static members the runtime provides that the library does not declare yet (newer standards), as declaration text. */
  addStatics?: readonly string[];
}

export const WEB_GLOBALS: readonly WebGlobal[] = [
  { name: 'AbortController' },
  { name: 'AbortSignal' },
  { name: 'Blob' },
  { name: 'ByteLengthQueuingStrategy' },
  { name: 'CountQueuingStrategy' },
  { name: 'CryptoKey' },
  { name: 'CustomEvent' },
  { name: 'DOMException' },
  { name: 'ErrorEvent' },
  { name: 'Event' },
  { name: 'EventTarget' },
  { name: 'File', omit: ['webkitRelativePath'] },
  { name: 'FileReader' },
  { name: 'FormData' },
  { name: 'Headers' },
  { name: 'Performance', omit: ['onresourcetimingbufferfull', 'clearResourceTimings', 'setResourceTimingBufferSize'] },
  { name: 'PerformanceEntry' },
  { name: 'PerformanceMark' },
  { name: 'PerformanceMeasure' },
  { name: 'ProgressEvent' },
  { name: 'ReadableByteStreamController' },
  { name: 'ReadableStream', addStatics: ['/** A stream of the values of an iterable or async iterable (Streams standard; not yet in TypeScript\'s library). */\n    from<R>(asyncIterable: AsyncIterable<R> | Iterable<R | PromiseLike<R>>): ReadableStream<R>;'] },
  { name: 'ReadableStreamBYOBReader' },
  { name: 'ReadableStreamBYOBRequest' },
  { name: 'ReadableStreamDefaultController' },
  { name: 'ReadableStreamDefaultReader' },
  { name: 'Request' },
  { name: 'Response' },
  { name: 'TextDecoder' },
  { name: 'TextDecoderStream' },
  { name: 'TextEncoder' },
  { name: 'TextEncoderStream' },
  { name: 'TransformStream' },
  { name: 'TransformStreamDefaultController' },
  { name: 'URL', omit: ['createObjectURL', 'revokeObjectURL'] },
  { name: 'URLSearchParams' },
  { name: 'WritableStream' },
  { name: 'WritableStreamDefaultController' },
  { name: 'WritableStreamDefaultWriter' },
  { name: 'addEventListener' },
  { name: 'atob' },
  { name: 'btoa' },
  { name: 'clearInterval' },
  { name: 'clearTimeout' },
  { name: 'console' },
  { name: 'crypto' },
  { name: 'dispatchEvent' },
  { name: 'fetch' },
  { name: 'performance', omit: ['onresourcetimingbufferfull', 'clearResourceTimings', 'setResourceTimingBufferSize'] },
  { name: 'queueMicrotask' },
  { name: 'removeEventListener' },
  { name: 'reportError' },
  { name: 'setInterval' },
  { name: 'setTimeout' },
  { name: 'structuredClone' },
];

/** Members of interfaces reached through other globals (crypto.subtle) that the runtime does not provide. */
export const OMITTED_TYPE_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  SubtleCrypto: ['deriveBits', 'deriveKey', 'unwrapKey', 'wrapKey'],
};

/**
 * Type aliases the runtime accepts more widely than the library declares, as Deno declares
 * them: `new Headers([["k", "v"]])` passes an inferred `string[][]`, which the library's
 * `[string, string][]` refuses although every runtime takes it (a pair of the wrong length is
 * a TypeError at run time). Each is replaced whole by the text here.
 */
export const WIDENED_TYPE_ALIASES: Readonly<Record<string, string>> = {
  HeadersInit: 'Iterable<readonly string[]> | Record<string, string>',
};

/**
 * Types of the library that svc does not provide but that the listed globals mention (a
 * structuredClone transfer list, a canvas as an image source): declared empty, so the
 * declarations do not pull in canvas, WebGL, workers and media.
 */
export const STUB_TYPES: readonly string[] = ['AudioData', 'DedicatedWorkerGlobalScope', 'ImageBitmap', 'MediaSourceHandle', 'MessagePort', 'OffscreenCanvas', 'RTCDataChannel', 'RTCTransformEvent', 'ServiceWorker', 'VideoFrame'];
