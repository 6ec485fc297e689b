// Host side of `svc:http`: gated as `http.<method>` with host,
// path, body size and timeout; https only unless the Blueprint allows http; every hop of
// a redirect chain checked again under the same caller; connections only through the
// egress guard; the operator's auth_proxy credentials injected for `main`.
import { gated, type HostCall, type HostOperation, type RunContext } from '../types';
import { bodyOf, contextFor, follow, headersOf, METHOD_TOKEN, parseUrl, receiveBody, services, VERB_TIMEOUT_MS, type HttpServices, type RedirectMode } from './client';
import { download, prepareDownload } from './download';
import { StreamedBytes } from '../../../sandbox';
import { NetworkThread } from '../../network';
import { ThreadExchange, type ExchangeReply } from './thread-exchange';

export { MAX_RESPONSE_BYTES, type HttpServices, type RedirectMode } from './client';

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

export function prepare(run: RunContext, fn: string, method: unknown, urlArg: unknown, bodyArg: unknown, headersArg: unknown, redirect?: RedirectMode, timeoutMs?: number): VerbParams {
  const http = services(run);
  if (typeof method !== 'string') throw new TypeError(`http.${fn}: method must be a string`);
  if (!METHOD_TOKEN.test(method)) throw new TypeError(`http.${fn}: ${JSON.stringify(method)} is not an HTTP method token`);
  const verb = method.toUpperCase();
  const url = parseUrl(urlArg, http, fn);
  const headers = headersOf(headersArg, fn);
  const body = bodyOf(bodyArg, headers, fn);
  headers['user-agent'] ??= http.userAgent;
  return { http, fn, verb, url, headers, body, redirect, timeoutMs };
}

/** The verb's gate: `http.<method>` with host, port, path, body size and timeout. */
export function verbGate({ verb, url, body }: VerbParams) {
  return { capability: `http.${verb.toLowerCase()}`, context: contextFor(url, verb, body?.length ?? 0, true) };
}

/**
 * One request as the `http.<method>` verb does it, after its gate allowed it: https only,
 * auth_proxy, redirect re-checks, the size cap. Shared by the svc:http verbs and fetch.
 */
export function exchange(call: HostCall, params: VerbParams, context: Record<string, unknown>): Promise<ExchangeReply> {
  const { http, fn, verb, url, headers, body, redirect, timeoutMs } = params;
  const capability = `http.${verb.toLowerCase()}`;
  const limit = Math.max(1, Math.min(VERB_TIMEOUT_MS, timeoutMs ?? VERB_TIMEOUT_MS));
  if (!(http.dispatcher instanceof NetworkThread)) return exchangeHere(call, params, capability, context, limit);
  // Not async: a call waiting on the far end keeps only its ThreadExchange here.
  const requestBytes = body?.length ?? 0;
  return new ThreadExchange(call, http, http.dispatcher, fn, { verb, url, headers, body, capability, context, redirect: redirect ?? 'follow' }, limit).start().then((reply) => {
    call.charge(reply.content.byteLength / 4 + requestBytes / 4);
    return reply;
  });
}

/** The exchange through an undici dispatcher in this thread (no network thread: unit tests, the CLI's local runs). */
async function exchangeHere(call: HostCall, { http, fn, verb, url, headers, body, redirect }: VerbParams, capability: string, context: Record<string, unknown>, limit: number): Promise<ExchangeReply> {
  const { response, url: finalUrl, redirected } = await follow(call, http, fn, { verb, url, headers, body, capability, context, redirect, timeoutMs: limit });
  const content = await receiveBody(call, response.body, finalUrl, response.headers['content-length']);
  call.charge(content.byteLength / 4 + (body?.length ?? 0) / 4);
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return { status: response.statusCode, headers: responseHeaders, content, url: finalUrl.href, redirected };
}

/**
 * The verb's reply. The body leaves as bytes (binary on the runner's channel, in bounded
 * chunks, streamed as it arrives) and the guest decodes it (./guest.ts): decoding up to
 * 50 MiB here, then escaping the text into the reply's JSON, held the server's event loop
 * for each large body.
 */
function perform(call: HostCall, params: VerbParams, context: Record<string, unknown>) {
  return exchange(call, params, context).then((reply) => ({ status: reply.status, statusText: '', headers: reply.headers, body: bodyForReply(reply.content), url: reply.url }));
}

/** The body as the reply carries it: the bytes streamed ahead, or a view of the bytes read (not a copy). */
export function bodyForReply(content: Buffer | StreamedBytes): Uint8Array | StreamedBytes {
  return content instanceof StreamedBytes ? content : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
}

/** Gated as `http.<method>` with host, port, path, body size and timeout, before anything is sent. */
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
