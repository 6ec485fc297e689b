// The web-platform globals svc provides, one entry a line: the declarations programs are
// checked against are derived from TypeScript's own lib.webworker declarations for exactly
// these names (and the types they refer to), as Deno derives its own (derive.ts). A runtime
// that gains a global adds its line here and runs `npm run generate`; a member the runtime
// does not have is listed under `omit` until it does, and no longer once it does
// (test/integration/declarations-runtime.test.ts compares both ways). svc's own globals
// (assert, its errors, navigator) are in svc.d.ts.

/** TypeScript's ECMAScript libraries programs are checked against: V8's built-ins up to ES2024, and the later ones svc provides (Set methods, iterator helpers, Array.fromAsync). */
export const ES_LIBRARIES: readonly string[] = ['es2024', 'esnext.array', 'esnext.collection', 'esnext.iterator'];

export interface WebGlobal {
  /** The global's name, as lib.webworker declares it (a `declare var` or `declare function`). */
  name: string;
  /** Members (static or instance, or of the interface a namespace-like global's type names) the runtime does not provide. */
  omit?: readonly string[];
}

export const WEB_GLOBALS: readonly WebGlobal[] = [
  { name: 'AbortController' },
  { name: 'AbortSignal' },
  { name: 'Blob' },
  { name: 'CryptoKey' },
  { name: 'DOMException', omit: ['INDEX_SIZE_ERR', 'DOMSTRING_SIZE_ERR', 'HIERARCHY_REQUEST_ERR', 'WRONG_DOCUMENT_ERR', 'INVALID_CHARACTER_ERR', 'NO_DATA_ALLOWED_ERR', 'NO_MODIFICATION_ALLOWED_ERR', 'NOT_FOUND_ERR', 'NOT_SUPPORTED_ERR', 'INUSE_ATTRIBUTE_ERR', 'INVALID_STATE_ERR', 'SYNTAX_ERR', 'INVALID_MODIFICATION_ERR', 'NAMESPACE_ERR', 'INVALID_ACCESS_ERR', 'VALIDATION_ERR', 'TYPE_MISMATCH_ERR', 'SECURITY_ERR', 'NETWORK_ERR', 'ABORT_ERR', 'URL_MISMATCH_ERR', 'QUOTA_EXCEEDED_ERR', 'TIMEOUT_ERR', 'INVALID_NODE_TYPE_ERR', 'DATA_CLONE_ERR'] },
  { name: 'Event', omit: ['NONE', 'CAPTURING_PHASE', 'AT_TARGET', 'BUBBLING_PHASE', 'bubbles', 'cancelBubble', 'cancelable', 'composed', 'eventPhase', 'isTrusted', 'returnValue', 'srcElement', 'timeStamp', 'composedPath', 'initEvent'] },
  { name: 'EventTarget' },
  { name: 'File', omit: ['webkitRelativePath'] },
  { name: 'FormData' },
  { name: 'Headers' },
  { name: 'ReadableStream', omit: ['pipeThrough', 'pipeTo', 'tee', 'values'] },
  { name: 'ReadableStreamDefaultController' },
  { name: 'ReadableStreamDefaultReader' },
  { name: 'Request', omit: ['cache', 'destination', 'integrity', 'keepalive', 'referrer', 'referrerPolicy'] },
  { name: 'Response' },
  { name: 'TextDecoder' },
  { name: 'TextEncoder', omit: ['encodeInto'] },
  { name: 'URL', omit: ['createObjectURL', 'parse', 'revokeObjectURL'] },
  { name: 'URLSearchParams' },
  { name: 'atob' },
  { name: 'btoa' },
  { name: 'clearInterval' },
  { name: 'clearTimeout' },
  { name: 'console', omit: ['assert', 'clear', 'count', 'countReset', 'dir', 'dirxml', 'group', 'groupCollapsed', 'groupEnd', 'table', 'time', 'timeEnd', 'timeLog', 'timeStamp', 'trace'] },
  { name: 'crypto' },
  { name: 'fetch' },
  { name: 'performance', omit: ['onresourcetimingbufferfull', 'clearMarks', 'clearMeasures', 'clearResourceTimings', 'getEntries', 'getEntriesByName', 'getEntriesByType', 'mark', 'measure', 'setResourceTimingBufferSize', 'addEventListener', 'removeEventListener'] },
  { name: 'queueMicrotask' },
  { name: 'setInterval' },
  { name: 'setTimeout' },
  { name: 'structuredClone' },
];

/** Members of interfaces reached through other globals (crypto.subtle) that the runtime does not provide. */
export const OMITTED_TYPE_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  SubtleCrypto: ['deriveBits', 'deriveKey', 'unwrapKey', 'wrapKey'],
};

/**
 * Types of the library that svc does not provide but that the listed globals mention (a
 * structuredClone transfer list, a canvas as an image source): declared empty, so the
 * declarations do not pull in canvas, WebGL, workers and media.
 */
export const STUB_TYPES: readonly string[] = ['AudioData', 'ImageBitmap', 'MediaSourceHandle', 'MessagePort', 'OffscreenCanvas', 'RTCDataChannel', 'ServiceWorker', 'VideoFrame'];
