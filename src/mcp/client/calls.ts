// Calls from a run to its `@mcp/<server>` Packages: the capability check before any byte
// is sent, one upstream session per server per run (shared by concurrent calls, reopened
// after a failure), the 60-second limit, result mapping.
import type { Dispatcher } from 'undici';
import type { Blueprint } from '../../blueprints';
import { gated, HOST_FUEL, withAsyncForm, type HostCall, type HostModule } from '../../stdlib';
import type { CatalogueTool } from './declarations';
import { isNamedExport, renderDeclarations } from './declarations';
import type { DiscoveryScope, McpDiscovery, ServerCatalogue } from './discovery';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Exchange, Upstream, UpstreamError } from './upstream';
import { untilAborted } from '../../../sandbox/until-aborted';

export const CALL_LIMIT_MS = 60_000;
const MAX_RESPONSE_BYTES = 50 * 1024 * 1024;
const TRANSPORT = 'streamable_http';

/** The OAuth login behind a server can no longer be refreshed (catchable by the program). */
export class McpAuthExpiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpAuthExpiredError';
  }
}

interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/** A tool result as the program sees it: structured content; else one text part as JSON or text; several joined; none → null. */
export function mapResult(result: ToolResult): { value: unknown; text: string } {
  const texts = (result.content ?? []).filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string);
  const text = texts.join('\n');
  if (result.structuredContent !== undefined && result.structuredContent !== null && !result.isError) return { value: result.structuredContent, text };
  if (texts.length === 0) return { value: null, text };
  if (texts.length === 1) {
    try {
      return { value: JSON.parse(texts[0]), text };
    } catch {
      return { value: texts[0], text };
    }
  }
  return { value: text, text };
}

interface Connection {
  upstream: Upstream;
  token?: string;
  /** Why the session was dropped, for the calls that were in flight on it. */
  failure?: string;
}

export interface McpRunOptions {
  blueprint: Blueprint;
  scope: DiscoveryScope;
  discovery: McpDiscovery;
  dispatcher: Dispatcher;
  version: string;
}

/** The run ended (returned, limit, cancelled): nothing more is sent. */
const RUN_ENDED = 'the run has ended';

/**
 * One run's upstream MCP sessions; `close()` at the end of the run. Calls to one server
 * run concurrently over its one session. A session that fails (an HTTP status, the
 * transport, an oversized response) is dropped once, by the first call that sees it
 * fail; the calls still in flight on it fail too (a tool call that may have arrived is
 * not sent again), and the next call opens one new session, shared by every call that
 * asks meanwhile. A call's own limit or abort cancels only that request
 * (notifications/cancelled) and leaves the session to the others.
 */
export class McpRun {
  private readonly connections = new Map<string, Connection>();
  /** Per server: the session being opened, shared by every call that needs it meanwhile. */
  private readonly opening = new Map<string, Promise<Connection>>();
  /** The bearer token last sent to each OAuth server (refused ones are passed back on refresh). */
  private readonly lastToken = new Map<string, string>();
  /** Aborted by `close()`: sessions being opened stop, and no call opens another. */
  private readonly ended = new AbortController();
  readonly warnings: string[] = [];

  constructor(private readonly options: McpRunOptions) {}

  /** Servers the source imports (`"@mcp/<name>"` specifiers) that the Blueprint declares. */
  importedServers(source: string): string[] {
    const found = new Set<string>();
    for (const m of source.matchAll(/["'`]@mcp\/([A-Za-z0-9_-]+)(?:\/async)?["'`]/g)) if (m[1] in this.options.blueprint.mcp) found.add(m[1]);
    return [...found].sort();
  }

  /** Discovers the imported servers; modules for the available ones, warnings for all. */
  async prepare(source: string): Promise<{ modules: HostModule[]; warnings: string[]; unavailable: Record<string, string> }> {
    const servers = this.importedServers(source);
    const catalogues = await Promise.all(servers.map((s) => this.options.discovery.catalogue(this.options.blueprint, s, this.options.scope)));
    const modules: HostModule[] = [];
    const unavailable: Record<string, string> = {};
    // An `@mcp/` server the Blueprint does not declare: the refusal lists the ones it does.
    const declared = Object.keys(this.options.blueprint.mcp).sort();
    for (const m of source.matchAll(/["'`]@mcp\/([A-Za-z0-9_-]+)(?:\/async)?["'`]/g)) {
      if (m[1] in this.options.blueprint.mcp) continue;
      unavailable[m[0].slice(1, -1)] = declared.length > 0 ? `the Blueprint declares no MCP server '${m[1]}'; its MCP servers: ${declared.map((name) => `@mcp/${name}`).join(', ')}` : 'the Blueprint declares no MCP servers';
    }
    for (const c of catalogues) {
      if (!c.ok) {
        unavailable[`@mcp/${c.server}`] = c.reason;
        this.warnings.push(`@mcp/${c.server}: unavailable: ${c.reason}`);
        continue;
      }
      this.warnings.push(...c.warnings);
      modules.push(...withAsyncForm(this.moduleOf(c), renderDeclarations(c.server, c.tools, 'async')));
    }
    return { modules, warnings: this.warnings, unavailable };
  }

  private moduleOf(catalogue: Extract<ServerCatalogue, { ok: true }>): HostModule {
    const server = catalogue.server;
    return {
      name: `@mcp/${server}`,
      description: catalogue.description,
      declarations: catalogue.declarations,
      operations: {
        // Arguments checked first, then `mcp.<server>` with {tool, transport} before any byte is sent.
        call: gated<{ tool: string; args: Record<string, unknown> }>({
          parse: (args) => parseCall(server, catalogue.tools, args[0], args[1]),
          gate: ({ tool }) => ({ capability: `mcp.${server}`, context: { tool, transport: TRANSPORT } }),
          run: (call, params, allowed) => this.call(call, server, params.tool, params.args, allowed[0].context),
        }),
      },
      guest: guestFactory(catalogue.tools),
    };
  }

  /** One tool call under the 60-second limit (token and connection included), cancelled when the run ends or the program gives up on it. */
  private async call(call: HostCall, server: string, tool: string, args: Record<string, unknown>, context: Record<string, unknown>): Promise<unknown> {
    const where = `@mcp/${server}.${tool}`;
    const sent = JSON.stringify(args);
    call.charge(HOST_FUEL.COPY_PER_8_BYTES * (Buffer.byteLength(sent) / 8) + HOST_FUEL.IO_PER_4_BYTES * (Buffer.byteLength(sent) / 4));
    const limit = new AbortController();
    const onEnd = () => limit.abort(new Error(`${where}: ${RUN_ENDED}`));
    call.signal.addEventListener('abort', onEnd, { once: true });
    this.ended.signal.addEventListener('abort', onEnd, { once: true });
    if (call.signal.aborted || this.ended.signal.aborted) onEnd();
    const timer = setTimeout(() => limit.abort(new Error(`${where}: the tool timed out after ${CALL_LIMIT_MS / 1000} seconds`)), CALL_LIMIT_MS);
    try {
      return await untilAborted(this.attempt(call, server, tool, args, context, limit.signal), limit.signal);
    } finally {
      clearTimeout(timer);
      call.signal.removeEventListener('abort', onEnd);
      this.ended.signal.removeEventListener('abort', onEnd);
    }
  }

  private async attempt(call: HostCall, server: string, tool: string, args: Record<string, unknown>, context: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const where = `@mcp/${server}.${tool}`;
    const oauth = this.options.blueprint.mcp[server].auth?.type === 'oauth2';
    let failedToken: string | undefined;
    for (let round = 0; ; round++) {
      let connection: Connection | undefined;
      const exchange = new Exchange();
      let result: ToolResult;
      try {
        connection = await untilAborted(this.connection(server, failedToken), signal);
        const upstream = connection.upstream;
        // The SDK's own timeout is a backstop: the call's limit (above) fires first.
        result = (await upstream.within(exchange, () => upstream.client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: CALL_LIMIT_MS + 5_000 }))) as ToolResult;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const explained = connection ? this.explain(connection, error, exchange) : error;
        if (connection && !answeredBySession(error)) this.drop(server, connection, explained);
        const retryable = !(explained instanceof McpAuthExpiredError) && !(explained instanceof UpstreamError && explained.kind === 'blocked') && !answeredBySession(error);
        // OAuth: a failed session forces one refresh (passing the failed token) and one retry.
        if (oauth && round === 0 && retryable) {
          failedToken = connection?.token ?? this.lastToken.get(server);
          continue;
        }
        throw this.callError(call, where, explained, context);
      }
      const bytes = exchange.received;
      call.charge(HOST_FUEL.COPY_PER_8_BYTES * (bytes / 8) + HOST_FUEL.IO_PER_4_BYTES * (bytes / 4));
      const mapped = mapResult(result);
      if (result.isError) throw new Error(`${where}: ${mapped.text || 'the tool reported an error without text'}`);
      return mapped.value;
    }
  }

  /** A call's failure in words; a call cut off because a sibling dropped the session says why. */
  private explain(connection: Connection, error: unknown, exchange: Exchange): unknown {
    if (connection.failure !== undefined && error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return new UpstreamError(`the session failed while the call was in flight (${connection.failure})`, 'transport');
    }
    return connection.upstream.explain(error, exchange);
  }

  private callError(call: HostCall, where: string, error: unknown, context: Record<string, unknown>): Error {
    if (error instanceof McpAuthExpiredError) {
      const e = new McpAuthExpiredError(`${where}: ${error.message}`);
      return e;
    }
    if (error instanceof UpstreamError && error.kind === 'blocked') {
      const server = where.slice(5, where.indexOf('.'));
      return call.refuse(`mcp.${server}`, context, 'egress_guard', new Error(`${where}: ${error.message}`));
    }
    const message = (error as Error)?.message ?? String(error);
    return new Error(`${where}: ${message}`);
  }

  /** The server's open session, or one new session opened once for every call that asks meanwhile. */
  private connection(server: string, failedToken?: string): Promise<Connection> {
    const open = this.connections.get(server);
    if (open) return Promise.resolve(open);
    const pending = this.opening.get(server);
    if (pending) return pending;
    const opened = this.open(server, failedToken).finally(() => this.opening.delete(server));
    this.opening.set(server, opened);
    return opened;
  }

  private async open(server: string, failedToken?: string): Promise<Connection> {
    if (this.ended.signal.aborted) throw new Error(RUN_ENDED);
    const headers = await this.options.discovery.credentials(this.options.blueprint, server, this.options.scope, failedToken);
    const token = headers.Authorization?.startsWith('Bearer ') ? headers.Authorization.slice(7) : undefined;
    if (token) this.lastToken.set(server, token);
    if (this.ended.signal.aborted) throw new Error(RUN_ENDED);
    // Opened for every waiting call, so only the end of the run stops it (each call has its own limit).
    const upstream = new Upstream({ url: this.options.blueprint.mcp[server].url, headers, dispatcher: this.options.dispatcher, version: this.options.version, maxBytes: MAX_RESPONSE_BYTES, signal: this.ended.signal });
    try {
      await upstream.connect();
    } catch (error) {
      void upstream.close();
      throw error;
    }
    if (this.ended.signal.aborted) {
      void upstream.close();
      throw new Error(RUN_ENDED);
    }
    const connection: Connection = { upstream, token };
    this.connections.set(server, connection);
    return connection;
  }

  /** Drops a failed session, unless another call already replaced it. */
  private drop(server: string, connection: Connection, why: unknown): void {
    if (this.connections.get(server) !== connection) return;
    this.connections.delete(server);
    connection.failure = (why as Error)?.message ?? String(why);
    void connection.upstream.close();
  }

  /** End of run: calls still in flight are cancelled (their signals), every upstream session ends (DELETE when the server issued an id). */
  async close(): Promise<void> {
    this.ended.abort();
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(open.map((c) => c.upstream.close()));
  }
}

/** A JSON-RPC error the server answered on a live session: the call failed, the session did not. */
function answeredBySession(error: unknown): boolean {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout;
}

/** A tool call's arguments: a listed tool, and an object (omitted sends `{}`). */
function parseCall(server: string, tools: CatalogueTool[], tool: unknown, rawArgs: unknown): { tool: string; args: Record<string, unknown> } {
  const name = String(tool);
  const where = `@mcp/${server}.${name}`;
  if (!tools.some((t) => t.name === name)) throw new TypeError(`${where}: the server lists no such tool`);
  if (rawArgs !== undefined && (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs))) throw new TypeError(`${where}: args must be an object`);
  return { tool: name, args: (rawArgs ?? {}) as Record<string, unknown> };
}

/**
 * Guest side of `@mcp/<server>`: one synchronous function per tool on the default export,
 * named exports for identifier names. `call` performs the host call.
 */
function guestFactory(tools: CatalogueTool[]): string {
  const names = JSON.stringify(tools.map((t) => t.name));
  const named = JSON.stringify(tools.filter((t) => t.named && isNamedExport(t.name)).map((t) => t.name));
  // Trusted guest code: primordials `P` only (see src/stdlib/types.ts).
  return `function (call, P) {
  const names = ${names};
  const named = ${named};
  const server = P.ObjectCreate(null);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    P.ObjectDefineProperty(server, name, { enumerable: true, value: function (args) { return call("call", name, args === undefined ? {} : args); } });
  }
  P.ObjectFreeze(server);
  const namespace = P.ObjectCreate(null);
  P.ObjectDefineProperty(namespace, "__esModule", { value: true });
  P.ObjectDefineProperty(namespace, "default", { enumerable: true, value: server });
  for (let i = 0; i < named.length; i++) P.ObjectDefineProperty(namespace, named[i], { enumerable: true, value: server[named[i]] });
  return P.ObjectFreeze(namespace);
}`;
}
