// Request, Response and fetch. fetch is the `svc:http` verb of its method, done by the
// host (src/stdlib/web): same capability, context, rules, outbound block, https-only
// rule, auth_proxy, redirect checks, size cap and timeouts. The host call is asynchronous:
// fetches run concurrently, and an abort cancels the request on the host and rejects at
// once with the signal's reason; WHATWG semantics otherwise: a non-2xx
// status resolves, a denial or network failure rejects with a TypeError whose cause is
// the PermissionDeniedError or network error, an aborted signal rejects with its reason.
import { URL } from '../url';
import { AbortSignal, deadlineOf, isAbortSignal, onAbort } from './abort';
import { asArrayBuffer, asBlob, asBytes, asFormData, asJson, asText, bodyBytesNow, bodyStream, bodyUsed, extractBody, type BodyState } from './body';
import { Blob, FormData } from './blob';
import { DOMException } from './events';
import { freezeHeaders, headerRecord, Headers, type HeadersInit } from './headers';
import { hostAsync, type AsyncHostCaller, type StartedCall } from './host';
import { ArrayPrototypeJoin, DateNow, PromiseCtor, PromisePrototypeThen, JSONStringify, ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectKeys, ReflectApply, PromiseReject, PromiseResolve, RegExpPrototypeTest, StringCtor, StringPrototypeToUpperCase } from './primordials';
import type { ReadableStream } from './streams';

const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NORMALISED = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'];
const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];
const REDIRECTS = ['follow', 'manual', 'error'];
const NULL_BODY_STATUS = [101, 103, 204, 205, 304];
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
const urlHref = ObjectGetOwnPropertyDescriptor(URL.prototype, 'href')!.get!;

function includes(list: readonly unknown[], value: unknown): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
}

function absoluteUrl(input: unknown, what: string): string {
  let url: URL;
  try {
    url = input instanceof URL ? input : new URL(StringCtor(input));
  } catch {
    throw new TypeError(`${what}: ${JSONStringify(StringCtor(input))} is not an absolute URL (svc programs have no base URL)`);
  }
  return ReflectApply(urlHref, url, []) as string;
}

function methodOf(value: unknown): string {
  const method = StringCtor(value);
  if (!RegExpPrototypeTest(METHOD_TOKEN, method)) throw new TypeError(`Request: ${JSONStringify(method)} is not an HTTP method`);
  const upper = StringPrototypeToUpperCase(method);
  if (includes(FORBIDDEN_METHODS, upper)) throw new TypeError(`Request: the method ${upper} is forbidden`);
  return includes(NORMALISED, upper) ? upper : method;
}

interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'manual' | 'error';
  [key: string]: unknown;
}

let requestParts: (request: Request) => { method: string; url: string; headers: Headers; signal: AbortSignal | null; redirect: string; body: BodyState };
let fetchedResponse: (parts: FetchedParts) => Response;

export class Request {
  readonly #method: string;
  readonly #url: string;
  readonly #headers: Headers;
  readonly #signal: AbortSignal | null;
  readonly #redirect: string;
  readonly #body: BodyState;

  constructor(input: string | URL | Request, init?: RequestInit) {
    if (init !== undefined && init !== null && typeof init !== 'object') throw new TypeError('Request: init must be an object');
    const options = init ?? {};
    const from = typeof input === 'object' && input !== null && #method in input ? input : null;
    this.#url = from ? from.#url : absoluteUrl(input, 'Request');
    this.#method = options.method !== undefined ? methodOf(options.method) : from ? from.#method : 'GET';
    this.#headers = new Headers(options.headers !== undefined ? options.headers : from ? from.#headers : undefined);
    const signal = options.signal !== undefined ? options.signal : from ? from.#signal : null;
    if (signal !== null && signal !== undefined && !isAbortSignal(signal)) throw new TypeError('Request: signal must be an AbortSignal');
    this.#signal = signal ?? null;
    const redirect = options.redirect !== undefined ? StringCtor(options.redirect) : from ? from.#redirect : 'follow';
    if (!includes(REDIRECTS, redirect)) throw new TypeError(`Request: redirect must be "follow", "manual" or "error", not ${JSONStringify(redirect)}`);
    this.#redirect = redirect;
    if (options.body !== undefined && options.body !== null) {
      if (this.#method === 'GET' || this.#method === 'HEAD') throw new TypeError(`Request: a ${this.#method} request cannot have a body`);
      const extracted = extractBody(options.body);
      this.#body = { source: extracted.source, used: false };
      if (extracted.type !== null && !this.#headers.has('content-type')) this.#headers.set('content-type', extracted.type);
    } else if (from) {
      if (bodyUsed(from.#body)) throw new TypeError('Request: the body of the given Request has already been read');
      this.#body = { source: from.#body.source, used: false };
      from.#body.used = from.#body.source !== null;
    } else this.#body = { source: null, used: false };
  }
  get method(): string {
    return this.#method;
  }
  get url(): string {
    return this.#url;
  }
  get headers(): Headers {
    return this.#headers;
  }
  get signal(): AbortSignal | null {
    return this.#signal;
  }
  get redirect(): string {
    return this.#redirect;
  }
  get credentials(): string {
    return 'omit';
  }
  get mode(): string {
    return 'cors';
  }
  get body(): ReadableStream | null {
    return bodyStream(this.#body);
  }
  get bodyUsed(): boolean {
    return bodyUsed(this.#body);
  }
  text(): Promise<string> {
    return asText(this.#body);
  }
  json(): Promise<unknown> {
    return asJson(this.#body);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return asArrayBuffer(this.#body);
  }
  bytes(): Promise<Uint8Array> {
    return asBytes(this.#body);
  }
  blob(): Promise<Blob> {
    return asBlob(this.#body, this.#headers.get('content-type'));
  }
  formData(): Promise<FormData> {
    return asFormData(this.#body, this.#headers.get('content-type'));
  }
  clone(): Request {
    if (bodyUsed(this.#body)) throw new TypeError('Request.clone: the body has already been read');
    const bytes = this.#body.source === null ? null : bodyBytesNow(this.#body, 'Request.clone');
    this.#body.used = false;
    this.#body.source = bytes;
    return requestFrom(this, { body: bytes === null ? undefined : bytes });
  }
  get [Symbol.toStringTag](): string {
    return 'Request';
  }
  static {
    requestParts = (request) => ({ method: request.#method, url: request.#url, headers: request.#headers, signal: request.#signal, redirect: request.#redirect, body: request.#body });
  }
}


interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

interface FetchedParts {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Uint8Array;
  url: string;
  redirected: boolean;
}

const INTERNAL = Symbol('Response internals');

export class Response {
  #status = 200;
  #statusText = '';
  #headers: Headers;
  #body: BodyState = { source: null, used: false };
  #url = '';
  #redirected = false;
  #type = 'default';

  constructor(body?: unknown, init?: ResponseInit) {
    if (init !== undefined && init !== null && typeof init !== 'object') throw new TypeError('Response: init must be an object');
    const options = init ?? {};
    if (options.status !== undefined) {
      const status = options.status;
      if (typeof status !== 'number' || status % 1 !== 0 || status < 200 || status > 599) throw new RangeError(`Response: status must be a whole number from 200 to 599, not ${StringCtor(status)}`);
      this.#status = status;
    }
    if (options.statusText !== undefined) {
      const text = StringCtor(options.statusText);
      if (RegExpPrototypeTest(/[\r\n]/, text)) throw new TypeError('Response: statusText must not contain CR or LF');
      this.#statusText = text;
    }
    this.#headers = new Headers(options.headers);
    if (body === INTERNAL) return;
    if (body !== undefined && body !== null) {
      if (includes(NULL_BODY_STATUS, this.#status)) throw new TypeError(`Response: a ${this.#status} response cannot have a body`);
      const extracted = extractBody(body);
      this.#body = { source: extracted.source, used: false };
      if (extracted.type !== null && !this.#headers.has('content-type')) this.#headers.set('content-type', extracted.type);
    }
  }
  static json(data: unknown, init?: ResponseInit): Response {
    const text = JSONStringify(data);
    if (text === undefined) throw new TypeError('Response.json: the data cannot be serialised as JSON');
    const response = responseOf(text, init);
    response.#headers.set('content-type', 'application/json');
    return response;
  }
  static error(): Response {
    const response = blankResponse();
    response.#status = 0;
    response.#type = 'error';
    freezeHeaders(response.#headers);
    return response;
  }
  static redirect(url: string | URL, status = 302): Response {
    const target = absoluteUrl(url, 'Response.redirect');
    if (!includes(REDIRECT_STATUS, status)) throw new RangeError(`Response.redirect: status must be one of ${ArrayPrototypeJoin(REDIRECT_STATUS, ', ')}`);
    const response = blankResponse();
    response.#status = status;
    response.#headers.set('location', target);
    freezeHeaders(response.#headers);
    return response;
  }
  get status(): number {
    return this.#status;
  }
  get statusText(): string {
    return this.#statusText;
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status <= 299;
  }
  get headers(): Headers {
    return this.#headers;
  }
  get url(): string {
    return this.#url;
  }
  get redirected(): boolean {
    return this.#redirected;
  }
  get type(): string {
    return this.#type;
  }
  get body(): ReadableStream | null {
    return bodyStream(this.#body);
  }
  get bodyUsed(): boolean {
    return bodyUsed(this.#body);
  }
  text(): Promise<string> {
    return asText(this.#body);
  }
  json(): Promise<unknown> {
    return asJson(this.#body);
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return asArrayBuffer(this.#body);
  }
  bytes(): Promise<Uint8Array> {
    return asBytes(this.#body);
  }
  blob(): Promise<Blob> {
    return asBlob(this.#body, this.#headers.get('content-type'));
  }
  formData(): Promise<FormData> {
    return asFormData(this.#body, this.#headers.get('content-type'));
  }
  clone(): Response {
    if (bodyUsed(this.#body)) throw new TypeError('Response.clone: the body has already been read');
    const bytes = this.#body.source === null ? null : bodyBytesNow(this.#body, 'Response.clone');
    this.#body = { source: bytes, used: false };
    const copy = blankResponse();
    copy.#status = this.#status;
    copy.#statusText = this.#statusText;
    copy.#headers = new Headers(this.#headers);
    copy.#body = { source: bytes, used: false };
    copy.#url = this.#url;
    copy.#redirected = this.#redirected;
    copy.#type = this.#type;
    return copy;
  }
  get [Symbol.toStringTag](): string {
    return 'Response';
  }
  static {
    fetchedResponse = (parts) => {
      const response = blankResponse();
      response.#status = parts.status;
      response.#statusText = parts.statusText;
      const names = ObjectKeys(parts.headers);
      for (let i = 0; i < names.length; i++) response.#headers.append(names[i], parts.headers[names[i]]);
      freezeHeaders(response.#headers);
      response.#body = { source: includes(NULL_BODY_STATUS, parts.status) ? null : parts.body, used: false };
      response.#url = parts.url;
      response.#redirected = parts.redirected;
      response.#type = 'basic';
      return response;
    };
  }
}


// Outside the class bodies: a self-reference there makes the bundler rename the class (`_Response`).
function blankResponse(): Response {
  return new Response(INTERNAL);
}
function responseOf(body: unknown, init?: ResponseInit): Response {
  return new Response(body, init);
}
function requestFrom(input: Request, init: RequestInit): Request {
  return new Request(input, init);
}

function failed(error: unknown, url: string): TypeError {
  const reason = error instanceof Error ? error.message : StringCtor(error);
  return new TypeError(`fetch ${url} failed: ${reason}`, { cause: error });
}

/** The global fetch: one svc:http operation, asynchronous on the host. */
export function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  return fetchThrough(hostAsync, input, init);
}

/**
 * A fetch whose host calls go through `call` (a Package's own fetch: its requests are its
 * own wherever the function runs, as with its standard-library namespaces).
 */
export function fetchFor(call: AsyncHostCaller): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return ObjectFreeze(function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    return fetchThrough(call, input, init);
  });
}

function fetchThrough(host: AsyncHostCaller, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  let request: Request;
  try {
    request = new Request(input, init);
  } catch (error) {
    return PromiseReject(error);
  }
  const parts = requestParts(request);
  const signal = parts.signal;
  if (signal !== null && signal.aborted) return PromiseReject(signal.reason);
  let body: Uint8Array | null;
  try {
    body = bodyBytesNow(parts.body, 'fetch');
  } catch (error) {
    return PromiseReject(error);
  }
  const deadline = signal === null ? -1 : deadlineOf(signal);
  const timeoutMs = deadline < 0 ? undefined : deadline - DateNow();
  if (timeoutMs !== undefined && timeoutMs <= 0) return PromiseReject(new DOMException('signal timed out', 'TimeoutError'));
  let started: StartedCall;
  try {
    started = host('fetch', [{ method: parts.method, url: parts.url, headers: headerRecord(parts.headers), body, redirect: parts.redirect, ...(timeoutMs === undefined ? {} : { timeoutMs }) }]);
  } catch (error) {
    return PromiseReject(failed(error, parts.url));
  }
  return new PromiseCtor<Response>((resolve, reject) => {
    let detach = (): void => undefined;
    if (signal !== null) {
      // The host drops the request (the far end sees the connection close); the program hears at once.
      detach = onAbort(signal, () => {
        started.cancel(signal.reason);
        reject(signal.reason);
      });
    }
    PromisePrototypeThen(
      started.promise,
      (reply) => {
        detach();
        resolve(fetchedResponse(reply as FetchedParts));
      },
      (error) => {
        detach();
        if (timeoutMs !== undefined && error instanceof Error && error.name === 'TimeoutError') reject(new DOMException('signal timed out', 'TimeoutError'));
        else reject(failed(error, parts.url));
      },
    );
  });
}
