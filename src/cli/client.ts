// The shared HTTP client of every command that talks to a server: resolves the server URL
// and the token (--server / SVC_SERVER_URL; --token-file / SVC_SERVER_TOKEN_FILE, then
// SVC_SERVER_TOKEN), sends JSON, and turns the answers every route shares (401, 403, no
// server listening, an untrusted certificate) into one clear message. HTTPS goes through
// Node's trust store, so NODE_EXTRA_CA_CERTS adds a private CA. Requests go through
// node:http(s) rather than fetch: fetch compiles its WebAssembly HTTP parser in every
// process that calls it, about 0.1 CPU-s of each command's 0.2. Routes, their parameters
// and bodies are typed by `paths`, generated from the server's OpenAPI document (the
// TypeScript client's openapi-types.ts); openapi-fetch's serializers build the URL.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Command } from 'commander';
import { createFinalURL, createQuerySerializer, defaultPathSerializer, type ParamsOption, type RequestBodyOption } from 'openapi-fetch';
import type { paths } from '../../clients/typescript/src/openapi-types';
import { CliError, UsageError } from './errors';
import { subcommand } from './help';
import { envValue, type CliIo } from './io';

export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8128';

/** The common options as commander hands them over. */
export interface ServerOptions {
  server?: string;
  tokenFile?: string;
}

/** Adds --server and --token-file to a command that sends requests. No option takes a token value. */
export function withServerOptions(command: Command): Command {
  return command
    .option('--server <url>', `server to talk to (env SVC_SERVER_URL; default ${DEFAULT_SERVER_URL})`)
    .option('--token-file <path>', 'file holding the API token (env SVC_SERVER_TOKEN_FILE; else the token in SVC_SERVER_TOKEN)');
}

/**
 * Declares a subcommand that talks to the server: its help lists --server and --token-file
 * first and ends with `examples`; the caller adds its own arguments, options and action.
 */
export function serverCommand(parent: Command, name: string, description: string, examples: readonly string[]): Command {
  return withServerOptions(subcommand(parent, name, description, examples));
}

export interface ApiReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: any;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The documented paths that take `method`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][Lowercase<M>] extends undefined ? never : P }[keyof paths];

type Operation<M extends Method, P extends PathsWith<M>> = NonNullable<paths[P][Lowercase<M>]>;

/** A request's path and query parameters and JSON body, as the document declares them; headers beside. */
export type RequestInit<O> = ParamsOption<O> & RequestBodyOption<O> & { headers?: Record<string, string> };

/** The init argument may be left out only when nothing in it is required. */
type InitArgument<O> = {} extends RequestInit<O> ? [init?: RequestInit<O>] : [init: RequestInit<O>];

const querySerializer = createQuerySerializer();

/** Where the token came from, for the 401 message (never the token itself). */
type TokenSource = { kind: 'file'; path: string; label: string } | { kind: 'env' } | { kind: 'none' };

/** Connection failures that mean nothing is listening at the URL. */
const NOTHING_LISTENING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** TLS verification failures: the server answered with a certificate we do not trust. */
const UNTRUSTED_CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/;

/** The server could not be used at all (unreachable, untrusted, token refused): no later request would fare better. */
export class ServerAccessError extends CliError {
  constructor(message: string, details: readonly string[]) {
    super(message, 1, details);
    this.name = 'ServerAccessError';
  }
}

export class ServerUnreachableError extends ServerAccessError {
  constructor(readonly url: string) {
    super(`no server at ${url}`, ['start one with `bin/svc-server`, or point --server / SVC_SERVER_URL at a running server']);
    this.name = 'ServerUnreachableError';
  }
}

export class ServerClient {
  private constructor(
    readonly url: string,
    private readonly token: string | null,
    private readonly tokenSource: TokenSource,
  ) {}

  /** Resolves URL and token from the options and environment; a malformed one is a usage error. */
  static from(options: ServerOptions, io: CliIo): ServerClient {
    const url = serverUrl(options.server ?? envValue(io, 'SVC_SERVER_URL') ?? DEFAULT_SERVER_URL, options.server !== undefined ? '--server' : '$SVC_SERVER_URL');
    const fromOption = options.tokenFile !== undefined ? { path: options.tokenFile, label: '--token-file' } : undefined;
    const fromEnvFile = envValue(io, 'SVC_SERVER_TOKEN_FILE');
    const file = fromOption ?? (fromEnvFile !== undefined ? { path: fromEnvFile, label: '$SVC_SERVER_TOKEN_FILE' } : undefined);
    if (file) {
      const resolved = path.resolve(io.cwd, file.path);
      return new ServerClient(url, readTokenFile(resolved, file.label), { kind: 'file', path: resolved, label: file.label });
    }
    const fromEnv = envValue(io, 'SVC_SERVER_TOKEN');
    if (fromEnv !== undefined) return new ServerClient(url, fromEnv.trim(), { kind: 'env' });
    return new ServerClient(url, null, { kind: 'none' });
  }

  /** Sends one request to a documented route; answers every status except 401/403, which become CliErrors. */
  async request<M extends Method, P extends PathsWith<M>>(method: M, route: P, ...[init]: InitArgument<Operation<M, P>>): Promise<ApiReply> {
    const options = (init ?? {}) as { params?: { path?: Record<string, unknown>; query?: Record<string, unknown> }; body?: unknown; headers?: Record<string, string> };
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token !== null) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: SentReply;
    try {
      const url = createFinalURL(route, { baseUrl: this.url, params: options.params ?? {}, querySerializer, pathSerializer: defaultPathSerializer });
      response = await send(new URL(url), method, headers, body);
    } catch (error) {
      throw this.connectionError(error);
    }
    const text = response.text;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined; // plain-text refusals (400/413/415/422) keep their text
    }
    const reply: ApiReply = { status: response.status, headers: response.headers, text, json };
    if (reply.status === 401) throw this.unauthorized();
    if (reply.status === 403) throw new ServerAccessError(serverMessage(reply), ['this command needs a token with the `admin` role']);
    return reply;
  }

  private unauthorized(): ServerAccessError {
    const how = 'set SVC_SERVER_TOKEN to a token the server was started with, or put it in a file named by SVC_SERVER_TOKEN_FILE or --token-file';
    switch (this.tokenSource.kind) {
      case 'none':
        return new ServerAccessError(`the server at ${this.url} needs a token and none was given`, [how]);
      case 'env':
        return new ServerAccessError(`the server at ${this.url} did not accept the token in SVC_SERVER_TOKEN`, [how]);
      case 'file':
        return new ServerAccessError(`the server at ${this.url} did not accept the token from ${this.tokenSource.path} (${this.tokenSource.label})`, [how]);
    }
  }

  private connectionError(error: unknown): ServerAccessError {
    const code = causeCode(error);
    if (code && UNTRUSTED_CERTIFICATE.test(code)) {
      return new ServerAccessError(`the server at ${this.url} presented a certificate this machine does not trust (${code})`, [
        "add the CA that signed it with NODE_EXTRA_CA_CERTS=<ca.pem>, or check that --server names the certificate's host",
      ]);
    }
    if (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
      return new ServerAccessError(`the server at ${this.url} does not speak HTTPS`, ['use an http:// URL for a server without TLS']);
    }
    if (code === undefined || NOTHING_LISTENING.has(code)) return new ServerUnreachableError(this.url);
    return new ServerAccessError(`could not reach the server at ${this.url}: ${code}`, ['check --server / SVC_SERVER_URL (http:// for a plain server, https:// for TLS)']);
  }
}

/** `message` of an error body, else the plain text, else the status. */
export function serverMessage(reply: ApiReply): string {
  if (reply.json && typeof reply.json.message === 'string') return reply.json.message;
  // Idempotency refusals say what happened in `detail` (`{error, session_id, detail}`).
  if (reply.json && typeof reply.json.error === 'string' && typeof reply.json.detail === 'string') return `${reply.json.error}: ${reply.json.detail}`;
  if (reply.json && typeof reply.json.error === 'string') return reply.json.error;
  return reply.text.trim() || `the server answered ${reply.status}`;
}

/** The server's `message` of a refused reply, else its text, else its status. */
export function refusalText(reply: ApiReply): string {
  return typeof reply.json?.message === 'string' ? reply.json.message : reply.text.trim() || `the server answered ${reply.status}`;
}

/** The CliError for a refused reply: its refusalText, with the hint the command keeps for the reply's
 *  `error` code, if any. */
export function refusalWithHint(reply: ApiReply, hints: Readonly<Record<string, string>>): CliError {
  const code = typeof reply.json?.error === 'string' ? reply.json.error : '';
  return new CliError(refusalText(reply), 1, Object.hasOwn(hints, code) ? [hints[code]] : []);
}

/** The reply, or a CliError `the server answered <status>: <message>` when its status is not `expected`. */
export function expectStatus(reply: ApiReply, expected: number, exitCode = 1): ApiReply {
  if (reply.status !== expected) throw new CliError(`the server answered ${reply.status}: ${serverMessage(reply)}`, exitCode);
  return reply;
}

/** Throws a CliError for any non-2xx reply, with the server's message and optional hints. */
export function expectOk(reply: ApiReply, hints: readonly string[] = []): ApiReply {
  if (reply.status >= 200 && reply.status < 300) return reply;
  throw new CliError(serverMessage(reply), 1, hints);
}

function serverUrl(raw: string, label: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    throw new UsageError(`${label}: expected an http:// or https:// URL, got \`${raw}\``);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`${label}: expected an http:// or https:// URL, got \`${raw}\``);
  if (parsed.search || parsed.hash || parsed.username || parsed.password) throw new UsageError(`${label}: give the server's base URL only (no query, fragment or credentials), got \`${raw}\``);
  return parsed.toString().replace(/\/+$/, '');
}

function readTokenFile(file: string, label: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${label}: cannot read token file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const token = text.trim();
  if (token === '') throw new UsageError(`${label}: token file ${file} is empty`, ['write the token the server was started with into it (e.g. the value of its SVC_SERVER_TOKEN)']);
  return token;
}

/**
 * One request and its whole answer as text; redirects are answers, not followed. Node's
 * global agent keeps connections alive: a request that meets one the server closed while it
 * sat idle (the server's idle timeout passing as a stalled process picked it) is sent again,
 * on the next idle connection and at last on a fresh one. The server closes only idle
 * connections, so it never read such a request, whatever its method.
 */
async function send(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<SentReply> {
  for (let attempt = 1; ; attempt++) {
    const reply = await sendOnce(url, method, headers, body, attempt < MAX_SEND_ATTEMPTS);
    if (reply !== CLOSED_WHILE_IDLE) return reply;
  }
}

type SentReply = { status: number; headers: http.IncomingHttpHeaders; text: string };
/** Attempts of one request; past the idle connections the agent keeps, each is a fresh one. */
const MAX_SEND_ATTEMPTS = 10;
const CLOSED_WHILE_IDLE = Symbol('the reused connection was closed while idle');

async function sendOnce(url: URL, method: string, headers: Record<string, string>, body: string | undefined, mayRetry: boolean): Promise<SentReply | typeof CLOSED_WHILE_IDLE> {
  const transport = url.protocol === 'https:' ? await import('node:https') : http;
  const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = transport.request(url, { method, headers: sent }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.once('error', (error: NodeJS.ErrnoException) => (mayRetry && request.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE') ? resolve(CLOSED_WHILE_IDLE) : reject(error)));
    request.end(body);
  });
}

/** The system error code under a connection failure (a wrapping error may carry it in `cause`). */
function causeCode(error: unknown): string | undefined {
  let current: any = error;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current.code === 'string' && current.code !== 'UND_ERR_SOCKET') return current.code;
    current = current.cause;
  }
  return undefined;
}
