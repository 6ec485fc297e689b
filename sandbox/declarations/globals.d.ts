// Declarations of the globals svc adds to V8's built-ins.
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}
declare var console: Console;
interface Crypto {
  /** Fills an integer typed array (at most 65,536 bytes) with secure random values. */
  getRandomValues<T extends ArrayBufferView>(array: T): T;
  /** A random v4 UUID. */
  randomUUID(): string;
  /** Web Crypto, done by the host: digest (SHA-1/256/384/512), HMAC and AES-GCM. */
  readonly subtle: SubtleCrypto;
}
declare var crypto: Crypto;
/** Throws `Error(message ?? "assertion failed")` when `condition` is falsy. */
declare function assert(condition: unknown, message?: string): asserts condition;
/** A gated operation was refused (by policy, a runtime invariant or a read-only volume). Denials are final: report them. */
declare class PermissionDeniedError extends Error {
  constructor(message?: string, caller?: string, capability?: string, reason?: string);
  readonly caller: string;
  readonly capability: string;
  readonly reason: string;
  readonly source: "policy" | "invariant" | "read_only";
}
/** A budget or size limit refused the operation; nothing was done. */
declare class QuotaExceededError extends Error {
  constructor(message?: string);
}
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string, base?: string): boolean;
  href: string; readonly origin: string; protocol: string; username: string; password: string; host: string; hostname: string; port: string; pathname: string; search: string; readonly searchParams: URLSearchParams; hash: string;
  toString(): string;
  toJSON(): string;
}
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void; delete(name: string): void; get(name: string): string | null; getAll(name: string): string[]; has(name: string): boolean; set(name: string, value: string): void; sort(): void;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void;
  keys(): IterableIterator<string>; values(): IterableIterator<string>; entries(): IterableIterator<[string, string]>; [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare class TextEncoder {
  readonly encoding: "utf-8";
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: "utf-8");
  readonly encoding: "utf-8";
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}
/** Base64 of a Latin-1 string. */
declare function btoa(data: string): string;
/** Decodes base64 to a Latin-1 string. */
declare function atob(data: string): string;
/** A deep copy of plain data, Maps, Sets, Dates, RegExps, typed arrays. */
declare function structuredClone<T>(value: T): T;

// --- Web platform globals: as in Deno and browsers. -------------------
/** One svc:http request: gated as http.<method> with the same rules, outbound block, auth_proxy and redirect checks. Non-2xx resolves; a denial or network failure rejects with a TypeError whose `cause` is the PermissionDeniedError or the network error. Asynchronous: many fetches run concurrently; an abort (AbortController, AbortSignal.timeout/any) cancels the request and rejects at once with the signal's reason. No cookies, CORS or credentials mode. */
declare function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
  /** An aborted signal rejects with its reason; AbortSignal.timeout(ms) also bounds the request. */
  signal?: AbortSignal | null;
  /** "follow" (default; every hop checked again), "manual" (the 3xx response is returned) or "error" (rejects). */
  redirect?: "follow" | "manual" | "error";
}
type HeadersInit = Headers | [string, string][] | Record<string, string>;
type BodyInit = string | ArrayBuffer | ArrayBufferView | Blob | FormData | URLSearchParams | ReadableStream<Uint8Array>;
interface ResponseInit { status?: number; statusText?: string; headers?: HeadersInit; }
interface Body {
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  json(): Promise<any>;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  blob(): Promise<Blob>;
  /** urlencoded or multipart/form-data bodies. */
  formData(): Promise<FormData>;
}
declare class Request implements Body {
  constructor(input: string | URL | Request, init?: RequestInit);
  readonly method: string; readonly url: string; readonly headers: Headers; readonly signal: AbortSignal | null; readonly redirect: "follow" | "manual" | "error";
  readonly body: ReadableStream<Uint8Array> | null; readonly bodyUsed: boolean;
  text(): Promise<string>; json(): Promise<any>; arrayBuffer(): Promise<ArrayBuffer>; bytes(): Promise<Uint8Array>; blob(): Promise<Blob>; formData(): Promise<FormData>;
  clone(): Request;
}
declare class Response implements Body {
  constructor(body?: BodyInit | null, init?: ResponseInit);
  static json(data: unknown, init?: ResponseInit): Response;
  static error(): Response;
  static redirect(url: string | URL, status?: number): Response;
  readonly status: number; readonly statusText: string; readonly ok: boolean; readonly headers: Headers; readonly url: string; readonly redirected: boolean; readonly type: "basic" | "default" | "error";
  readonly body: ReadableStream<Uint8Array> | null; readonly bodyUsed: boolean;
  text(): Promise<string>; json(): Promise<any>; arrayBuffer(): Promise<ArrayBuffer>; bytes(): Promise<Uint8Array>; blob(): Promise<Blob>; formData(): Promise<FormData>;
  clone(): Response;
}
/** Case-insensitive; several values of one name read back joined with ", "; a fetched response's headers are immutable. */
declare class Headers {
  constructor(init?: HeadersInit);
  append(name: string, value: string): void; set(name: string, value: string): void; delete(name: string): void;
  get(name: string): string | null; getSetCookie(): string[]; has(name: string): boolean;
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void;
  entries(): IterableIterator<[string, string]>; keys(): IterableIterator<string>; values(): IterableIterator<string>; [Symbol.iterator](): IterableIterator<[string, string]>;
}
declare class Blob {
  constructor(parts?: Array<string | ArrayBuffer | ArrayBufferView | Blob>, options?: { type?: string });
  readonly size: number; readonly type: string;
  text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer>; bytes(): Promise<Uint8Array>;
  slice(start?: number, end?: number, contentType?: string): Blob;
  stream(): ReadableStream<Uint8Array>;
}
declare class File extends Blob {
  constructor(parts: Array<string | ArrayBuffer | ArrayBufferView | Blob>, name: string, options?: { type?: string; lastModified?: number });
  readonly name: string; readonly lastModified: number;
}
type FormDataEntryValue = string | File;
/** Text fields and in-memory files; sent as multipart/form-data. */
declare class FormData {
  constructor();
  append(name: string, value: string | Blob, filename?: string): void; set(name: string, value: string | Blob, filename?: string): void; delete(name: string): void;
  get(name: string): FormDataEntryValue | null; getAll(name: string): FormDataEntryValue[]; has(name: string): boolean;
  forEach(callback: (value: FormDataEntryValue, name: string, form: FormData) => void, thisArg?: unknown): void;
  entries(): IterableIterator<[string, FormDataEntryValue]>; keys(): IterableIterator<string>; values(): IterableIterator<FormDataEntryValue>; [Symbol.iterator](): IterableIterator<[string, FormDataEntryValue]>;
}
interface ReadableStreamDefaultController<R = any> { readonly desiredSize: number; enqueue(chunk: R): void; close(): void; error(reason?: unknown): void; }
interface ReadableStreamDefaultReader<R = any> { read(): Promise<{ done: false; value: R } | { done: true; value: undefined }>; releaseLock(): void; cancel(reason?: unknown): Promise<void>; readonly closed: Promise<void>; }
/** A minimal stream: a body read chunk by chunk, or a body from a source's start/pull. No tee, piping or byte streams. */
declare class ReadableStream<R = any> {
  constructor(source?: { start?(controller: ReadableStreamDefaultController<R>): unknown; pull?(controller: ReadableStreamDefaultController<R>): unknown; cancel?(reason: unknown): unknown });
  readonly locked: boolean;
  getReader(): ReadableStreamDefaultReader<R>;
  cancel(reason?: unknown): Promise<void>;
  [Symbol.asyncIterator](): AsyncIterableIterator<R>;
}
declare class DOMException extends Error {
  constructor(message?: string, name?: string);
  readonly code: number;
}
declare class Event {
  constructor(type: string);
  readonly type: string; readonly target: EventTarget | null; readonly currentTarget: EventTarget | null; readonly defaultPrevented: boolean; readonly timeStamp: number;
  preventDefault(): void; stopImmediatePropagation(): void; stopPropagation(): void;
}
declare class EventTarget {
  addEventListener(type: string, listener: ((event: Event) => unknown) | { handleEvent(event: Event): unknown } | null, options?: boolean | { once?: boolean }): void;
  removeEventListener(type: string, listener: ((event: Event) => unknown) | { handleEvent(event: Event): unknown } | null): void;
  dispatchEvent(event: Event): boolean;
}
declare class AbortSignal extends EventTarget {
  readonly aborted: boolean;
  readonly reason: any;
  onabort: ((event: Event) => unknown) | null;
  throwIfAborted(): void;
  static abort(reason?: unknown): AbortSignal;
  /** Aborts with a TimeoutError DOMException after `milliseconds` (the wait counts against the run's time limit). */
  static timeout(milliseconds: number): AbortSignal;
  static any(signals: AbortSignal[]): AbortSignal;
}
declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
/** Runs `callback` after `delay` ms; the wait counts against the run's time limit. The run ends when main settles: pending timers are dropped. */
declare function setTimeout(callback: (...args: any[]) => void, delay?: number, ...args: any[]): number;
declare function setInterval(callback: (...args: any[]) => void, delay?: number, ...args: any[]): number;
declare function clearTimeout(id?: number): void;
declare function clearInterval(id?: number): void;
declare function queueMicrotask(callback: () => void): void;
interface Performance {
  /** Milliseconds since the run started (1 ms resolution). */
  now(): number;
  readonly timeOrigin: number;
  toJSON(): { timeOrigin: number };
}
declare var performance: Performance;
interface Navigator {
  /** Names svc. */
  readonly userAgent: string;
  readonly language: string;
  readonly languages: readonly string[];
  readonly hardwareConcurrency: number;
}
declare var navigator: Navigator;
type HashAlgorithm = "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512";
type BufferSource = ArrayBuffer | ArrayBufferView;
interface HmacKeyAlgorithm { name: "HMAC"; hash: HashAlgorithm | { name: HashAlgorithm }; length?: number; }
interface AesGcmParams { name: "AES-GCM"; iv: BufferSource; additionalData?: BufferSource; tagLength?: 32 | 64 | 96 | 104 | 112 | 120 | 128; }
interface JsonWebKey { kty?: string; k?: string; alg?: string; ext?: boolean; key_ops?: string[]; }
declare class CryptoKey {
  readonly type: "secret";
  readonly extractable: boolean;
  readonly algorithm: { name: "HMAC" | "AES-GCM"; hash?: { name: HashAlgorithm }; length: number };
  readonly usages: ReadonlyArray<"encrypt" | "decrypt" | "sign" | "verify">;
}
/** The host does the work asynchronously (calls started together run at once) and charges host fuel. Errors are DOMExceptions (NotSupportedError, InvalidAccessError, DataError, OperationError) or TypeErrors. */
interface SubtleCrypto {
  digest(algorithm: HashAlgorithm | { name: HashAlgorithm }, data: BufferSource): Promise<ArrayBuffer>;
  importKey(format: "raw" | "jwk", keyData: BufferSource | JsonWebKey, algorithm: HmacKeyAlgorithm | "AES-GCM" | { name: "AES-GCM" }, extractable: boolean, keyUsages: Array<"encrypt" | "decrypt" | "sign" | "verify">): Promise<CryptoKey>;
  generateKey(algorithm: HmacKeyAlgorithm | { name: "AES-GCM"; length: 128 | 192 | 256 }, extractable: boolean, keyUsages: Array<"encrypt" | "decrypt" | "sign" | "verify">): Promise<CryptoKey>;
  exportKey(format: "raw", key: CryptoKey): Promise<ArrayBuffer>;
  exportKey(format: "jwk", key: CryptoKey): Promise<JsonWebKey>;
  sign(algorithm: "HMAC" | { name: "HMAC" }, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
  verify(algorithm: "HMAC" | { name: "HMAC" }, key: CryptoKey, signature: BufferSource, data: BufferSource): Promise<boolean>;
  encrypt(algorithm: AesGcmParams, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
  decrypt(algorithm: AesGcmParams, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
}
