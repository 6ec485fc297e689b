// Request, Response and fetch. fetch is the `svc:http` verb of its method, done by the
// host (src/stdlib/web): same capability, context, rules, outbound block, https-only
// rule, auth_proxy, redirect checks, size cap and timeouts. The host call is asynchronous:
// fetches run concurrently, and an abort cancels the request on the host and rejects at
// once with the signal's reason; WHATWG semantics otherwise: a non-2xx
// status resolves, a denial or network failure rejects with a TypeError whose cause is
// the PermissionDeniedError or network error, an aborted signal rejects with its reason.
import { SymbolCtor, SymbolToStringTag, NumberCtor, ArrayPrototypeJoin, DateNow, PromiseCtor, PromisePrototypeThen, JSONStringify, ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectKeys, ReflectApply, PromiseReject, PromiseResolve, RegExpPrototypeTest, StringCtor, StringPrototypeToUpperCase } from './primordials';
import { materialize } from '../lazy-group';
import { urlGroup } from './url-group';
import { AbortController, AbortSignal, deadlineOf, isAbortSignal, onAbort } from './abort';
import { attachBody, bodyBytesNow, bodyStream, bodyUnusable, cloneBody, extractBody, installBodyMixin, type BodyMembers, type BodyState } from './body';
import { Blob, FormData } from './blob';
import { newDOMException } from '../dom-exception';
import { freezeHeaders, headerRecord, Headers, type HeadersInit } from './headers';
import { hostAsync, type AsyncHostCaller, type StartedCall } from './host';
import { pipeHooks, type ReadableStream } from './streams';
import { TransformStream } from './transform';
import { handled } from './stream-kit';
import { isUint8Array, own } from '../primordials';

const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NORMALISED = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH'];
const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];
const NULL_BODY_STATUS = [101, 103, 204, 205, 304];
const REDIRECT_STATUS = [301, 302, 303, 307, 308];
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
const ENUMS: Record<string, readonly string[]> = {
  mode: ['navigate', 'same-origin', 'no-cors', 'cors'],
  credentials: ['omit', 'same-origin', 'include'],
  cache: ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'],
  redirect: ['follow', 'manual', 'error'],
  referrerPolicy: ['', 'no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin', 'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url'],
  duplex: ['half'],
  priority: ['high', 'low', 'auto'],
};
const { URL } = materialize(urlGroup);
type URL = InstanceType<typeof URL>;
const urlHref = ObjectGetOwnPropertyDescriptor(URL.prototype, 'href')!.get!;

function includes(list: readonly unknown[], value: unknown): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
}

/**
 * The base for relative URLs: svc programs have none, unless the program defines
 * `globalThis.location` itself (as Deno's --location does).
 */
function baseUrl(): string | undefined {
  const location = own(globalThis, 'location');
  if (location === null || typeof location !== 'object') return undefined;
  const href = (location as { href?: unknown }).href;
  return typeof href === 'string' ? href : undefined;
}

function absoluteUrl(input: unknown, what: string, refuseCredentials = true): string {
  let url: URL;
  try {
    const base = baseUrl();
    url = input instanceof URL ? input : base === undefined ? new URL(StringCtor(input)) : new URL(StringCtor(input), base);
  } catch {
    throw new TypeError(`${what}: ${JSONStringify(StringCtor(input))} is not an absolute URL (svc programs have no base URL)`);
  }
  const href = ReflectApply(urlHref, url, []) as string;
  if (refuseCredentials && RegExpPrototypeTest(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i, href)) throw new TypeError(`${what}: ${JSONStringify(href)} has a user name or password, and credentials never travel in URLs (the Fetch standard refuses them; svc injects credentials with auth_proxy)`);
  return href;
}

function methodOf(value: unknown): string {
  const method = StringCtor(value);
  if (!RegExpPrototypeTest(METHOD_TOKEN, method)) throw new TypeError(`Request: ${JSONStringify(method)} is not an HTTP method`);
  const upper = StringPrototypeToUpperCase(method);
  if (includes(FORBIDDEN_METHODS, upper)) throw new TypeError(`Request: the method ${upper} is forbidden`);
  return includes(NORMALISED, upper) ? upper : method;
}

function enumOf(init: Record<string, unknown>, name: string, fallback: string): string {
  const value = init[name];
  if (value === undefined) return fallback;
  const text = StringCtor(value);
  if (!includes(ENUMS[name], text)) throw new TypeError(`Request: ${name} must be one of ${ArrayPrototypeJoin(ENUMS[name] as string[], ', ')}, not ${JSONStringify(text)}`);
  return text;
}

interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: unknown;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'manual' | 'error';
  [key: string]: unknown;
}

interface RequestState {
  method: string;
  url: string;
  headers: Headers;
  signal: AbortSignal;
  redirect: string;
  mode: string;
  credentials: string;
  cache: string;
  referrer: string;
  referrerPolicy: string;
  integrity: string;
  keepalive: boolean;
  priority: string;
  body: BodyState;
}

let requestParts: (request: Request) => RequestState;
let fetchedResponse: (parts: FetchedParts) => Response;

/** A signal that follows `source` (a Request's own signal), or a fresh one that never aborts. */
function followingSignal(source: AbortSignal | null): AbortSignal {
  return source === null ? new AbortController().signal : AbortSignal.any([source]);
}

export class Request {
  readonly #state: RequestState;

  constructor(input: string | URL | Request, init: RequestInit | undefined = undefined) {
    if (arguments.length === 0) throw new TypeError('Request: pass a URL or a Request');
    if (init !== undefined && init !== null && typeof init !== 'object') throw new TypeError('Request: init must be an object');
    const options = (init ?? {}) as Record<string, unknown>;
    const from = typeof input === 'object' && input !== null && #state in input ? (input as Request).#state : null;
    const url = from ? from.url : absoluteUrl(input, 'Request');
    // Init members in the standard's order of use.
    const referrerValue = options.referrer;
    let referrer = from ? from.referrer : 'about:client';
    if (referrerValue !== undefined) {
      const text = StringCtor(referrerValue);
      referrer = text === '' ? '' : absoluteUrl(text, 'Request: referrer', false);
    }
    const referrerPolicy = enumOf(options, 'referrerPolicy', from ? from.referrerPolicy : '');
    const mode = enumOf(options, 'mode', from ? from.mode : 'cors');
    if (mode === 'navigate') throw new TypeError('Request: mode "navigate" cannot be set');
    const credentials = enumOf(options, 'credentials', from ? from.credentials : 'same-origin');
    const cache = enumOf(options, 'cache', from ? from.cache : 'default');
    if (cache === 'only-if-cached' && mode !== 'same-origin') throw new TypeError('Request: cache "only-if-cached" needs mode "same-origin"');
    const redirect = enumOf(options, 'redirect', from ? from.redirect : 'follow');
    const integrity = options.integrity !== undefined ? StringCtor(options.integrity) : from ? from.integrity : '';
    const keepalive = options.keepalive !== undefined ? !!options.keepalive : from ? from.keepalive : false;
    const method = options.method !== undefined ? methodOf(options.method) : from ? from.method : 'GET';
    const signalValue = options.signal;
    if (signalValue !== undefined && signalValue !== null && !isAbortSignal(signalValue)) throw new TypeError('Request: signal must be an AbortSignal');
    const signal = followingSignal(signalValue !== undefined ? (signalValue as AbortSignal | null) : from ? from.signal : null);
    const priority = enumOf(options, 'priority', from ? from.priority : 'auto');
    if (mode === 'no-cors' && !includes(['GET', 'HEAD', 'POST'], method)) throw new TypeError(`Request: a no-cors request cannot use the method ${method}`);
    const headers = new Headers((options.headers !== undefined ? options.headers : from ? from.headers : undefined) as HeadersInit | undefined);
    const bodyInit = options.body;
    const inputHasBody = from !== null && from.body.source !== null;
    if ((bodyInit !== undefined && bodyInit !== null) || inputHasBody) {
      if (method === 'GET' || method === 'HEAD') throw new TypeError(`Request: a ${method} request cannot have a body`);
    }
    if (inputHasBody && (bodyInit === undefined || bodyInit === null) && bodyUnusable(from!.body)) throw new TypeError('Request: the body of the given Request has already been read or is locked');
    let body: BodyState;
    if (bodyInit !== undefined && bodyInit !== null) {
      if (method === 'GET' || method === 'HEAD') throw new TypeError(`Request: a ${method} request cannot have a body`);
      const extracted = extractBody(bodyInit);
      if (readableStreamBody(extracted.source) && options.duplex === undefined) throw new TypeError("Request: a ReadableStream body needs duplex: 'half'");
      if (options.duplex !== undefined) enumOf(options, 'duplex', 'half');
      body = { source: extracted.source, used: false };
      if (extracted.type !== null && !headers.has('content-type')) headers.set('content-type', extracted.type);
    } else if (from !== null && from.body.source !== null) {
      // The new request takes the body over through a proxy stream: the given one is now disturbed.
      body = { source: proxyBody(from.body), used: false };
    } else body = { source: null, used: false };
    this.#state = { method, url, headers, signal, redirect, mode, credentials, cache, referrer, referrerPolicy, integrity, keepalive, priority, body };
    const state = this.#state;
    attachBody(this, { kind: 'Request', state: () => state.body, contentType: () => state.headers.get('content-type') });
  }
  get method(): string {
    return this.#state.method;
  }
  get url(): string {
    return this.#state.url;
  }
  get headers(): Headers {
    return this.#state.headers;
  }
  get destination(): string {
    return '';
  }
  get referrer(): string {
    return this.#state.referrer;
  }
  get referrerPolicy(): string {
    return this.#state.referrerPolicy;
  }
  get mode(): string {
    return this.#state.mode;
  }
  get credentials(): string {
    return this.#state.credentials;
  }
  get cache(): string {
    return this.#state.cache;
  }
  get redirect(): string {
    return this.#state.redirect;
  }
  get integrity(): string {
    return this.#state.integrity;
  }
  get keepalive(): boolean {
    return this.#state.keepalive;
  }
  get isReloadNavigation(): boolean {
    return false;
  }
  get isHistoryNavigation(): boolean {
    return false;
  }
  get signal(): AbortSignal {
    return this.#state.signal;
  }
  get duplex(): string {
    return 'half';
  }
  clone(): Request {
    const state = this.#state;
    const body = cloneBody(state.body, 'Request.clone');
    // Built from this request without taking its body over (the clone gets the other branch).
    const kept = state.body;
    state.body = { source: null, used: false };
    let copy: Request;
    try {
      copy = requestFrom(this, {});
    } finally {
      state.body = kept;
    }
    copy.#state.body = body;
    copy.#state.headers = new Headers(state.headers);
    copy.#state.signal = followingSignal(state.signal);
    return copy;
  }
  get [SymbolToStringTag](): string {
    return 'Request';
  }
  static {
    requestParts = (request) => request.#state;
  }
}
// Its body members come from the mixin (one definition for Request and Response).
export interface Request extends BodyMembers {}
installBodyMixin(Request.prototype, 'Request');

/**
 * The Fetch standard's "proxy" of a body, for a Request made from a Request: bytes are
 * shared and the given body marked used; a complete stream is taken as its bytes (so fetch
 * can still send it); any other stream is piped through an identity TransformStream.
 */
function proxyBody(state: BodyState): Uint8Array | ReadableStream {
  const source = state.source!;
  if (isUint8Array(source)) {
    state.used = true;
    return source;
  }
  const complete = drainedBytes(state);
  if (complete !== null) return complete;
  const proxy = new TransformStream();
  handled(pipeHooks.pipeTo(bodyStream(state)!, proxy.writable, undefined));
  return proxy.readable;
}

function drainedBytes(state: BodyState): Uint8Array | null {
  try {
    return bodyBytesNow(state, 'Request');
  } catch {
    return null;
  }
}

function readableStreamBody(source: unknown): boolean {
  return source !== null && typeof source === 'object' && !isUint8Array(source);
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

const INTERNAL = SymbolCtor('Response internals');

interface ResponseState {
  status: number;
  statusText: string;
  headers: Headers;
  body: BodyState;
  url: string;
  redirected: boolean;
  type: string;
}

export class Response {
  readonly #state: ResponseState = { status: 200, statusText: '', headers: null as never, body: { source: null, used: false }, url: '', redirected: false, type: 'default' };

  constructor(body: unknown = null, init: ResponseInit | undefined = undefined) {
    const state = this.#state;
    attachBody(this, { kind: 'Response', state: () => state.body, contentType: () => state.headers.get('content-type') });
    if (init !== undefined && init !== null && typeof init !== 'object') throw new TypeError('Response: init must be an object');
    const options = init ?? {};
    if (options.status !== undefined) {
      const status = NumberCtor(options.status);
      if (status % 1 !== 0 || status < 200 || status > 599) throw new RangeError(`Response: status must be a whole number from 200 to 599, not ${StringCtor(options.status)}`);
      state.status = status;
    }
    if (options.statusText !== undefined) {
      const text = StringCtor(options.statusText);
      if (!RegExpPrototypeTest(REASON_PHRASE, text)) throw new TypeError('Response: statusText must be a reason phrase (no CR, LF or characters past U+00FF)');
      state.statusText = text;
    }
    state.headers = new Headers(options.headers);
    if (body === INTERNAL) return;
    if (body !== undefined && body !== null) {
      if (includes(NULL_BODY_STATUS, state.status)) throw new TypeError(`Response: a ${state.status} response cannot have a body`);
      const extracted = extractBody(body);
      state.body = { source: extracted.source, used: false };
      if (extracted.type !== null && !state.headers.has('content-type')) state.headers.set('content-type', extracted.type);
    }
  }
  static json(data: unknown, init: ResponseInit | undefined = undefined): Response {
    const text = JSONStringify(data);
    if (text === undefined) throw new TypeError('Response.json: the data cannot be serialised as JSON');
    const response = responseOf(text, init);
    const headers = response.#state.headers;
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    else if (headers.get('content-type') === 'text/plain;charset=UTF-8') headers.set('content-type', 'application/json');
    return response;
  }
  static error(): Response {
    const response = blankResponse();
    response.#state.status = 0;
    response.#state.type = 'error';
    freezeHeaders(response.#state.headers);
    return response;
  }
  static redirect(url: string | URL, status = 302): Response {
    const target = absoluteUrl(url, 'Response.redirect', false);
    if (!includes(REDIRECT_STATUS, status)) throw new RangeError(`Response.redirect: status must be one of ${ArrayPrototypeJoin(REDIRECT_STATUS, ', ')}`);
    const response = blankResponse();
    response.#state.status = status;
    response.#state.headers.set('location', target);
    freezeHeaders(response.#state.headers);
    return response;
  }
  get type(): string {
    return this.#state.type;
  }
  get url(): string {
    return this.#state.url;
  }
  get redirected(): boolean {
    return this.#state.redirected;
  }
  get status(): number {
    return this.#state.status;
  }
  get ok(): boolean {
    return this.#state.status >= 200 && this.#state.status <= 299;
  }
  get statusText(): string {
    return this.#state.statusText;
  }
  get headers(): Headers {
    return this.#state.headers;
  }
  clone(): Response {
    const state = this.#state;
    const body = cloneBody(state.body, 'Response.clone');
    const copy = blankResponse();
    const target = copy.#state;
    target.status = state.status;
    target.statusText = state.statusText;
    target.headers = new Headers(state.headers);
    if (state.type === 'error' || state.type === 'basic') freezeHeaders(target.headers);
    target.body = body;
    target.url = state.url;
    target.redirected = state.redirected;
    target.type = state.type;
    return copy;
  }
  get [SymbolToStringTag](): string {
    return 'Response';
  }
  static {
    fetchedResponse = (parts) => {
      const response = blankResponse();
      const state = response.#state;
      state.status = parts.status;
      state.statusText = parts.statusText;
      const names = ObjectKeys(parts.headers);
      for (let i = 0; i < names.length; i++) state.headers.append(names[i], parts.headers[names[i]]);
      freezeHeaders(state.headers);
      state.body = { source: includes(NULL_BODY_STATUS, parts.status) ? null : parts.body, used: false };
      state.url = parts.url;
      state.redirected = parts.redirected;
      state.type = 'basic';
      return response;
    };
  }
}
export interface Response extends BodyMembers {}
installBodyMixin(Response.prototype, 'Response');

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
  if (timeoutMs !== undefined && timeoutMs <= 0) return PromiseReject(newDOMException('signal timed out', 'TimeoutError'));
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
        if (timeoutMs !== undefined && error instanceof Error && error.name === 'TimeoutError') reject(newDOMException('signal timed out', 'TimeoutError'));
        else reject(failed(error, parts.url));
      },
    );
  });
}
