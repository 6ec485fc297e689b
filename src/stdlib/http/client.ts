// The outbound HTTP client of `svc:http`, shared by the verbs, `download` and `fetch`: URL
// and header checks, auth_proxy injection for `main`, sending through the egress guard,
// and redirects (follow, manual or error) with every hop gated again under the same caller.
import { errors as undiciErrors, type Dispatcher } from 'undici';
import { deadlineSignal, EgressBlockedError, timeoutReason, type DeadlineSignal } from '../../network';
import { abortSoon, StreamedBytes } from '../../../sandbox';
import type { AuthProxyRule } from '../../blueprints';
import type { HostCall, RunContext } from '../types';

import type { HttpServices } from './services';

export type { HttpServices };

export const MAX_RESPONSE_BYTES = 52_428_800;
const MAX_REDIRECTS = 10;
export const VERB_TIMEOUT_MS = 30_000;
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade']);
export const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A request that ran out of time (the verb's timeout or a shorter one the caller asked for). */
export class HttpTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/** How a redirect is handled: followed (each hop checked again), returned as is, or refused. */
export type RedirectMode = 'follow' | 'manual' | 'error';

export interface Prepared {
  url: URL;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** A request's redirect chain as it goes: the next hop's request, gate and what was injected so far. */
export interface HopState {
  readonly fn: string;
  readonly redirect: RedirectMode;
  /** Where the chain started (after credential injection, redirects stay there). */
  readonly origin: string;
  verb: string;
  url: URL;
  headers: Record<string, string>;
  body: Buffer | null;
  capability: string;
  context: Record<string, unknown>;
  injected: boolean;
}

/** How a hop failed before its response head arrived, as the HTTP client tells them apart. */
export type HopFailureKind = 'blocked' | 'timeout' | 'other';

/** The error a program sees for a hop that failed before its head (a blocked address is also a refusal on record). */
export function hopFailure(call: HostCall, method: string, prepared: Prepared, capability: string, context: Record<string, unknown>, timeoutMs: number, kind: HopFailureKind, message: string): Error {
  if (kind === 'blocked') return call.refuse(capability, context, 'egress_guard', new Error(message));
  if (kind === 'timeout') return new HttpTimeoutError(`http: ${method} ${prepared.url.origin}${prepared.url.pathname} timed out after ${timeoutMs / 1000} s`);
  return new Error(`http: ${method} ${prepared.url.origin}${prepared.url.pathname} failed: ${message}`);
}

export function services(call: RunContext): HttpServices {
  const http = call.services.http;
  if (!http) throw new Error('http: outbound HTTP is not available for this run');
  return http;
}

export function parseUrl(raw: unknown, http: HttpServices, fn: string): URL {
  if (typeof raw !== 'string') throw new TypeError(`http.${fn}: url must be a string`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`http.${fn}: ${JSON.stringify(raw)} is not an absolute URL`);
  }
  checkUrl(url, raw, http, fn);
  return url;
}

export function checkUrl(url: URL, raw: string, http: HttpServices, fn: string): void {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && http.allowInsecureHttp)) {
    throw new TypeError(`http.${fn}: only https:// URLs are allowed${url.protocol === 'http:' ? ' (this Blueprint does not set allow_insecure_http)' : ''}`);
  }
  if (url.username || url.password) throw new TypeError(`http.${fn}: credentials never travel in URLs; the operator's auth_proxy injects them`);
  const rawPath = raw.replace(/^[a-z]+:\/\/[^/?#]*/i, '').split(/[?#]/)[0];
  if (rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) throw new TypeError(`http.${fn}: URL paths with . or .. segments are refused`);
}

export function headersOf(value: unknown, fn: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined || value === null) return out;
  const entries = value instanceof Map ? [...value.entries()] : typeof value === 'object' ? Object.entries(value as Record<string, unknown>) : null;
  if (!entries) throw new TypeError(`http.${fn}: headers must be a Map or a plain object`);
  for (const [name, v] of entries) {
    const lower = String(name).toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower)) throw new TypeError(`http.${fn}: the header ${lower} cannot be set by a program`);
    out[lower] = String(v);
  }
  return out;
}

export function bodyOf(value: unknown, headers: Record<string, string>, fn: string): Buffer | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    return Buffer.from(value, 'utf8');
  }
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'object') {
    headers['content-type'] ??= 'application/json';
    return Buffer.from(JSON.stringify(value), 'utf8');
  }
  throw new TypeError(`http.${fn}: the body must be a string, a Uint8Array, an object or an array`);
}

export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '');
}

/** The port the request goes to: the URL's, else the scheme's default (443 for https, 80 for http). */
export function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Injects the first matching auth_proxy rule (caller main only); returns whether it did. */
export function inject(call: HostCall, http: HttpServices, prepared: Prepared): boolean {
  if (call.caller !== 'main') return false;
  const host = hostOf(prepared.url);
  const rule = http.authProxy.find((r) => r.host === host);
  if (!rule) return false;
  // The hop's own copies: the credentials below must not reach the caller's URL and headers.
  prepared.url = new URL(prepared.url);
  prepared.headers = { ...prepared.headers };
  if (prepared.url.protocol === 'http:' && !rule.allow_insecure_http) throw new TypeError(`http: ${host} has credentials configured and needs https:// (its auth_proxy rule does not allow http)`);
  const secret = (name: string) => {
    const value = http.secretValue(name);
    if (value === undefined || value === '') throw new Error(`http: the credentials for ${host} are not available (secret '${name}' has no value); the request was not sent`);
    return value;
  };
  const fill = (text: string) => text.replace(/\$\{secrets\.([^}]+)\}/g, (_m, name: string) => secret(name));
  if (rule.auth && 'bearer' in rule.auth) prepared.headers.authorization = `Bearer ${secret(rule.auth.bearer)}`;
  if (rule.auth && 'basic' in rule.auth) prepared.headers.authorization = `Basic ${Buffer.from(`${rule.auth.basic.username}:${secret(rule.auth.basic.password)}`).toString('base64')}`;
  for (const [name, value] of Object.entries(rule.headers ?? {})) prepared.headers[name.toLowerCase()] = fill(value);
  for (const [name, value] of Object.entries(rule.query ?? {})) prepared.url.searchParams.set(name, fill(value));
  return true;
}

/**
 * A hop's cancel signal: the call's (the run ended, or the program aborted the call) or the
 * hop's time limit, whichever comes first, until the response body closes. Many calls' limits
 * can expire in one turn (a fan-out started together): those aborts go in bounded slices.
 */
function hopSignal(callSignal: AbortSignal, timeoutMs: number): DeadlineSignal {
  return deadlineSignal([callSignal], timeoutMs, (controller) => abortSoon(controller, timeoutReason()));
}

async function send(call: HostCall, http: HttpServices, method: string, prepared: Prepared, capability: string, context: Record<string, unknown>, timeoutMs: number) {
  const cancel = hopSignal(call.signal, timeoutMs);
  try {
    // The dispatcher's own request, not undici's `request(url, options)`, which spreads the
    // options into a copy (an object with a map of its own per waiting call).
    const { url } = prepared;
    const response = await http.dispatcher.request({
      origin: url.origin,
      path: url.search ? `${url.pathname}${url.search}` : url.pathname,
      method: method as Dispatcher.HttpMethod,
      headers: prepared.headers,
      body: prepared.body ?? undefined,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: cancel.signal,
    });
    // The limit and the call's cancellation still cover reading the body; they go with it.
    response.body.once('close', cancel.release);
    return response;
  } catch (error) {
    cancel.release();
    // The program gave up on the call or its run ended: nobody reads this error, so none is built.
    if (call.signal.aborted) throw call.signal.reason;
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (cause instanceof EgressBlockedError || error instanceof EgressBlockedError) {
      const blocked = (cause instanceof EgressBlockedError ? cause : error) as EgressBlockedError;
      throw hopFailure(call, method, prepared, capability, context, timeoutMs, 'blocked', blocked.message);
    }
    const timedOut = error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError || (error as Error).name === 'TimeoutError';
    throw hopFailure(call, method, prepared, capability, context, timeoutMs, timedOut ? 'timeout' : 'other', (cause as Error).message ?? String(cause));
  }
}

export function tooLarge(url: URL): RangeError {
  return new RangeError(`http: the response from ${url.origin} is larger than ${MAX_RESPONSE_BYTES} bytes; use http.download to stream it into a file`);
}

function declaredLength(contentLength: unknown): number {
  return typeof contentLength === 'string' && /^\d+$/.test(contentLength) ? Number(contentLength) : -1;
}

/** Chunks of a streamed body are gathered into pieces of about this size (fewer messages to the runner). */
const STREAM_PIECE_BYTES = 256 * 1024;
/** Bytes of one body sent to the runner and not yet written to its channel; past this the next read waits. */
const STREAM_WINDOW_BYTES = 1024 * 1024;

/**
 * The body, up to MAX_RESPONSE_BYTES: streamed to the runner as it arrives when the call can
 * (HostCall.streamBytes), in pieces of about STREAM_PIECE_BYTES with at most
 * STREAM_WINDOW_BYTES not yet written to the runner's channel (then the next chunk waits, and
 * the far end with it), else read whole (./readCapped). A body that says it is over the cap is
 * refused before it is read.
 */
export async function receiveBody(call: HostCall, body: Dispatcher.ResponseData['body'], url: URL, contentLength?: unknown): Promise<Buffer | StreamedBytes> {
  if (declaredLength(contentLength) > MAX_RESPONSE_BYTES) {
    body.destroy();
    throw tooLarge(url);
  }
  // A run whose journal keeps whole answers reads the body whole here (only the network thread's exchange streams past the journal's room).
  const stream = call.streamBytesPast === undefined ? call.streamBytes?.bind(call) : undefined;
  if (!stream) return readCapped(body, url, contentLength);
  let size = 0;
  let staged: Buffer[] = [];
  let stagedBytes = 0;
  const writes: Array<{ bytes: number; written: Promise<boolean> }> = [];
  let unwritten = 0;
  const ended = () => (call.signal.aborted ? call.signal.reason : new Error('http: the call ended while its body was arriving'));
  const settle = async (room: number) => {
    while (writes.length > 0 && unwritten > room) {
      const write = writes.shift()!;
      unwritten -= write.bytes;
      if (!(await write.written)) throw ended();
    }
  };
  const flush = async () => {
    if (stagedBytes === 0) return;
    const piece = staged.length === 1 ? staged[0] : Buffer.concat(staged, stagedBytes);
    staged = [];
    stagedBytes = 0;
    writes.push({ bytes: piece.length, written: stream(piece) });
    unwritten += piece.length;
    await settle(STREAM_WINDOW_BYTES);
  };
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) throw tooLarge(url);
      staged.push(chunk);
      stagedBytes += chunk.length;
      if (stagedBytes >= STREAM_PIECE_BYTES) await flush();
    }
    await flush();
    await settle(0);
  } catch (error) {
    // The far end sees its connection closed: nothing more is read.
    body.destroy();
    throw error;
  }
  return new StreamedBytes(size);
}

/** The first buffer for a body of unknown length; it doubles as the body grows. */
const FIRST_BODY_BUFFER = 64 * 1024;

/**
 * The body, up to MAX_RESPONSE_BYTES. Each chunk is copied into place as it arrives (the
 * buffer sized by `content-length` when it is given and within the cap), so no single turn
 * of the event loop concatenates a whole 50 MiB body.
 */
export async function readCapped(body: Dispatcher.ResponseData['body'], url: URL, contentLength?: unknown): Promise<Buffer> {
  const declared = declaredLength(contentLength);
  let buffer = Buffer.allocUnsafe(declared >= 0 && declared <= MAX_RESPONSE_BYTES ? declared : FIRST_BODY_BUFFER);
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw tooLarge(url);
    }
    if (size + chunk.length > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(MAX_RESPONSE_BYTES, Math.max(size + chunk.length, buffer.length * 2)));
      buffer.copy(grown, 0, 0, size);
      buffer = grown;
    }
    chunk.copy(buffer, size);
    size += chunk.length;
  }
  return buffer.subarray(0, size);
}

export function contextFor(url: URL, method: string, bodySize: number, withTimeout: boolean): Record<string, unknown> {
  return { host: hostOf(url), port: portOf(url), path: url.pathname, method, body_size: bodySize, ...(withTimeout ? { timeout_ms: VERB_TIMEOUT_MS } : {}) };
}

/** A redirect answer's status and `location`, or null when the answer is not one (or is 304). */
export function redirectTarget(status: number, location: unknown): string | null {
  return status >= 300 && status < 400 && status !== 304 && typeof location === 'string' ? location : null;
}

/**
 * The redirect answer of hop `hop` (`status`, to `location`) checked, and `state` moved to
 * the next hop, whose gate passed (an audit line); throws what the program sees when the
 * chain stops here (redirect "error", too many hops, a URL or policy refusal).
 */
export function nextHop(call: HostCall, http: HttpServices, state: HopState, status: number, location: string, hop: number): void {
  const { url } = state;
  if (state.redirect === 'error') throw new TypeError(`http: ${url.origin}${url.pathname} answered with a redirect (${status}) and redirect is "error"`);
  if (hop >= MAX_REDIRECTS) throw new Error(`http: more than ${MAX_REDIRECTS} redirects starting at ${state.origin}`);
  const next = new URL(location, url);
  checkUrl(next, next.href, http, state.fn);
  if (state.injected && next.origin !== state.origin) throw new Error(`http: a redirect to ${next.origin} was refused: after credential injection, redirects stay on ${state.origin}`);
  const toGet = status === 303 || ((status === 301 || status === 302) && state.verb === 'POST');
  if (toGet) {
    state.verb = 'GET';
    state.body = null;
    delete state.headers['content-type'];
  }
  if (next.origin !== url.origin) for (const h of ['authorization', 'cookie', 'proxy-authorization']) delete state.headers[h];
  state.url = next;
  if (state.capability === 'http.download') state.context = { ...state.context, host: hostOf(next), port: portOf(next), url_path: next.pathname };
  else {
    state.capability = `http.${state.verb.toLowerCase()}`;
    state.context = contextFor(next, state.verb, state.body?.length ?? 0, !toGet);
  }
  call.gate(state.capability, state.context);
}

/** A redirect chain's state before its first hop. */
export interface HopStart { verb: string; url: URL; headers: Record<string, string>; body: Buffer | null; capability: string; context: Record<string, unknown>; redirect?: RedirectMode }

export function firstHop(fn: string, start: HopStart): HopState {
  return { fn, redirect: start.redirect ?? 'follow', origin: start.url.origin, verb: start.verb, url: start.url, headers: start.headers, body: start.body, capability: start.capability, context: start.context, injected: false };
}

/** Sends the request and follows redirects, checking every hop; returns the final response. */
export async function follow(
  call: HostCall,
  http: HttpServices,
  fn: string,
  start: HopStart & { timeoutMs?: number },
) {
  const state = firstHop(fn, start);
  const timeoutMs = start.timeoutMs ?? VERB_TIMEOUT_MS;
  for (let hop = 0; ; hop++) {
    const prepared: Prepared = { url: state.url, headers: state.headers, body: state.body };
    state.injected = inject(call, http, prepared) || state.injected;
    const response = await send(call, http, state.verb, prepared, state.capability, state.context, timeoutMs);
    const location = redirectTarget(response.statusCode, response.headers.location);
    if (location === null || state.redirect === 'manual') return { response, url: state.url, redirected: hop > 0 };
    await response.body.dump();
    nextHop(call, http, state, response.statusCode, location, hop);
  }
}
