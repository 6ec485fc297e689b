// Host side of `svc:http` (program-runtime §6.2): gated as `http.<method>` with host,
// path, body size and timeout; https only unless the Blueprint allows http; every hop of
// a redirect chain checked again under the same caller; connections only through the
// egress guard; the operator's auth_proxy credentials injected for `main`.
import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import { EgressBlockedError } from '../../network';
import type { AuthProxyRule } from '../../blueprints';
import { HOST_FUEL } from '../fuel';
import { gated, type HostCall, type HostOperation, type RunContext } from '../types';
import { download, prepareDownload } from './download';

declare module '../types' {
  interface RunServices {
    http?: HttpServices;
  }
}

export interface HttpServices {
  allowInsecureHttp: boolean;
  authProxy: readonly AuthProxyRule[];
  /** Secret value for injection (store or harness), or undefined. */
  secretValue: (name: string) => string | undefined;
  /** The egress-guarded dispatcher. */
  dispatcher: Dispatcher;
  userAgent: string;
}

export const MAX_RESPONSE_BYTES = 52_428_800;
const MAX_REDIRECTS = 10;
const VERB_TIMEOUT_MS = 30_000;
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade']);
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A request that ran out of time (the verb's timeout or a shorter one the caller asked for). */
export class HttpTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/** How a redirect is handled: followed (each hop checked again), returned as is, or refused. */
export type RedirectMode = 'follow' | 'manual' | 'error';

interface Prepared {
  url: URL;
  headers: Record<string, string>;
  body: Buffer | null;
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

function checkUrl(url: URL, raw: string, http: HttpServices, fn: string): void {
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

function bodyOf(value: unknown, headers: Record<string, string>, fn: string): Buffer | null {
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

/** Injects the first matching auth_proxy rule (caller main only); returns whether it did. */
function inject(call: HostCall, http: HttpServices, prepared: Prepared): boolean {
  if (call.caller !== 'main') return false;
  const host = hostOf(prepared.url);
  const rule = http.authProxy.find((r) => r.host === host);
  if (!rule) return false;
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

async function send(call: HostCall, http: HttpServices, method: string, prepared: Prepared, capability: string, context: Record<string, unknown>, timeoutMs: number) {
  try {
    return await request(prepared.url, {
      method: method as Dispatcher.HttpMethod,
      headers: prepared.headers,
      body: prepared.body ?? undefined,
      dispatcher: http.dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.any([call.signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (cause instanceof EgressBlockedError || error instanceof EgressBlockedError) {
      const blocked = (cause instanceof EgressBlockedError ? cause : error) as EgressBlockedError;
      throw call.refuse(capability, context, 'egress_guard', new Error(blocked.message));
    }
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError || (error as Error).name === 'TimeoutError') {
      throw new HttpTimeoutError(`http: ${method} ${prepared.url.origin}${prepared.url.pathname} timed out after ${timeoutMs / 1000} s`);
    }
    throw new Error(`http: ${method} ${prepared.url.origin}${prepared.url.pathname} failed: ${(cause as Error).message ?? String(cause)}`);
  }
}

async function readCapped(body: Dispatcher.ResponseData['body'], url: URL): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new RangeError(`http: the response from ${url.origin} is larger than ${MAX_RESPONSE_BYTES} bytes; use http.download to stream it into a file`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function contextFor(url: URL, method: string, bodySize: number, withTimeout: boolean): Record<string, unknown> {
  return { host: hostOf(url), path: url.pathname, method, body_size: bodySize, ...(withTimeout ? { timeout_ms: VERB_TIMEOUT_MS } : {}) };
}

/** Sends the request and follows redirects, checking every hop; returns the final response. */
export async function follow(
  call: HostCall,
  http: HttpServices,
  fn: string,
  start: { verb: string; url: URL; headers: Record<string, string>; body: Buffer | null; capability: string; context: Record<string, unknown>; redirect?: RedirectMode; timeoutMs?: number },
) {
  let { verb, url, body, capability, context } = start;
  const headers = start.headers;
  const redirect = start.redirect ?? 'follow';
  const timeoutMs = start.timeoutMs ?? VERB_TIMEOUT_MS;
  let injected = false;
  const origin = url.origin;
  for (let hop = 0; ; hop++) {
    const prepared: Prepared = { url: new URL(url), headers: { ...headers }, body };
    injected = inject(call, http, prepared) || injected;
    const response = await send(call, http, verb, prepared, capability, context, timeoutMs);
    const status = response.statusCode;
    const location = response.headers.location;
    if (!(status >= 300 && status < 400 && status !== 304 && typeof location === 'string') || redirect === 'manual') return { response, url, redirected: hop > 0 };
    await response.body.dump();
    if (redirect === 'error') throw new TypeError(`http: ${url.origin}${url.pathname} answered with a redirect (${status}) and redirect is "error"`);
    if (hop >= MAX_REDIRECTS) throw new Error(`http: more than ${MAX_REDIRECTS} redirects starting at ${origin}`);
    const next = new URL(location, url);
    checkUrl(next, next.href, http, fn);
    if (injected && next.origin !== origin) throw new Error(`http: a redirect to ${next.origin} was refused: after credential injection, redirects stay on ${origin}`);
    const toGet = status === 303 || ((status === 301 || status === 302) && verb === 'POST');
    if (toGet) {
      verb = 'GET';
      body = null;
      delete headers['content-type'];
    }
    if (next.origin !== url.origin) for (const h of ['authorization', 'cookie', 'proxy-authorization']) delete headers[h];
    url = next;
    if (capability === 'http.download') context = { ...context, host: hostOf(url), url_path: url.pathname };
    else {
      capability = `http.${verb.toLowerCase()}`;
      context = contextFor(url, verb, body?.length ?? 0, !toGet);
    }
    call.gate(capability, context);
  }
}

/** A verb's validated arguments; fetch adds its redirect mode and a shorter timeout. */
export interface VerbParams {
  http: HttpServices;
  fn: string;
  verb: string;
  url: URL;
  headers: Record<string, string>;
  body: Buffer | null;
  redirect?: RedirectMode;
  /** A shorter limit than the verb's 30 s (fetch with a timeout signal). */
  timeoutMs?: number;
}

export function prepare(run: RunContext, fn: string, method: unknown, urlArg: unknown, bodyArg: unknown, headersArg: unknown): VerbParams {
  const http = services(run);
  if (typeof method !== 'string') throw new TypeError(`http.${fn}: method must be a string`);
  if (!METHOD_TOKEN.test(method)) throw new TypeError(`http.${fn}: ${JSON.stringify(method)} is not an HTTP method token`);
  const verb = method.toUpperCase();
  const url = parseUrl(urlArg, http, fn);
  const headers = headersOf(headersArg, fn);
  const body = bodyOf(bodyArg, headers, fn);
  headers['user-agent'] ??= http.userAgent;
  return { http, fn, verb, url, headers, body };
}

/** The verb's gate: `http.<method>` with host, path, body size and timeout. */
export function verbGate({ verb, url, body }: VerbParams) {
  return { capability: `http.${verb.toLowerCase()}`, context: contextFor(url, verb, body?.length ?? 0, true) };
}

/**
 * One request as the `http.<method>` verb does it, after its gate allowed it: https only,
 * auth_proxy, redirect re-checks, the size cap. Shared by the svc:http verbs and fetch.
 */
export async function exchange(call: HostCall, { http, fn, verb, url, headers, body, redirect, timeoutMs }: VerbParams, context: Record<string, unknown>) {
  const capability = `http.${verb.toLowerCase()}`;
  const limit = Math.max(1, Math.min(VERB_TIMEOUT_MS, timeoutMs ?? VERB_TIMEOUT_MS));
  const { response, url: finalUrl, redirected } = await follow(call, http, fn, { verb, url, headers, body, capability, context, redirect, timeoutMs: limit });
  const content = await readCapped(response.body, finalUrl);
  call.charge(content.length / 4 + (body?.length ?? 0) / 4);
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return { status: response.statusCode, headers: responseHeaders, content, url: finalUrl.href, redirected };
}

async function perform(call: HostCall, params: VerbParams, context: Record<string, unknown>) {
  const reply = await exchange(call, params, context);
  return { status: reply.status, statusText: '', headers: reply.headers, body: new TextDecoder('utf-8').decode(reply.content), url: reply.url };
}

/** Gated as `http.<method>` with host, path, body size and timeout, before anything is sent. */
function verbOperation(parse: (args: unknown[], run: RunContext) => VerbParams): HostOperation {
  return gated({
    parse,
    gate: verbGate,
    run: (call, params, allowed) => perform(call, params, allowed[0].context),
  });
}

const fixedVerb = (name: string, method: string, withBody: boolean) =>
  verbOperation((args, run) => (withBody ? prepare(run, name, method, args[0], args[1], args[2]) : prepare(run, name, method, args[0], undefined, args[1])));

export const httpOperations: Record<string, HostOperation> = {
  get: fixedVerb('get', 'GET', false),
  head: fixedVerb('head', 'HEAD', false),
  options: fixedVerb('options', 'OPTIONS', false),
  delete: fixedVerb('delete', 'DELETE', false),
  post: fixedVerb('post', 'POST', true),
  put: fixedVerb('put', 'PUT', true),
  patch: fixedVerb('patch', 'PATCH', true),
  download: gated({
    parse: (args, run) => prepareDownload(run, args),
    gate: (params) => params.gates,
    run: (call, params, allowed) => download(call, params, allowed),
  }),
  request: verbOperation((args, run) => prepare(run, 'request', args[0], args[1], args[2], args[3])),
};
