// The MCP endpoint `/mcp/<blueprint>`: Streamable HTTP,
// stateful, one svc session per MCP session (the same id), bindings from the
// `svc-variables`/`svc-secrets` headers or `_meta`, a Host-header check against DNS
// rebinding, and the eight tools. The HTTP layer mounts it (src/http/routes/mcp.ts) and
// hands each request over as an McpHttpRequest; nothing here depends on the HTTP layer.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Elicitation } from '../approvals';
import { elicitApproval, type ElicitSender } from './elicitation';
import type { AuditWriter } from '../audit';
import type { Blueprint, BlueprintRegistry } from '../blueprints';
import type { AllowsMode } from '../config';
import type { RegistryLookup } from '../discovery';
import { executionIdOf, HostDispatcher, type ExecuteError, type Executor, type ToolExecuteResult, type ToolLastRun } from '../execution';
import { RunDecisions } from '../policy';
import { SessionError, type SessionActor, type SessionManager, type SessionView } from '../sessions';
import type { HostModule, RunServices } from '../stdlib';
import { checkArguments, discoveryTool, errorAnswer, filesTool, toolList, type McpViews, type ToolAnswer } from './tools';

export interface McpEndpointDependencies {
  registry: BlueprintRegistry;
  sessions: SessionManager<Blueprint>;
  executor: Executor<Blueprint>;
  modules: ReadonlyMap<string, HostModule>;
  /** The Blueprint's installed Packages for search and docs. */
  packages?: RegistryLookup;
  audit: AuditWriter;
  allows: AllowsMode;
  allowedHosts: readonly string[];
  /** A file tool's services, built from the Blueprint the call resolved (not looked up again). */
  servicesFor: (session: SessionView, blueprint: Blueprint) => RunServices;
  /** `@mcp/` Packages seen from a session (its harness secrets included). */
  mcpViews?: (blueprint: Blueprint, session: SessionView) => McpViews;
  version: string;
}

/** One request to `/mcp/<blueprint>`, as the HTTP layer hands it over. */
export interface McpHttpRequest {
  method: string;
  blueprint: string;
  /** Who sent it (the authenticated principal). */
  actor: SessionActor;
  header(name: string): string | undefined;
  /** The request itself: the MCP transport reads its headers and answers it. */
  raw: Request;
  /** The body's text (bounded by the HTTP layer); null when it is over the bound. */
  body(): Promise<string | null>;
}

/** An answer the HTTP layer renders: plain text, JSON, no body, or the HTTP layer's own "too large" answer. */
export type McpHttpAnswer =
  | { status: 400 | 403 | 404 | 405 | 429; text: string }
  | { status: 400 | 404; json: unknown }
  | { status: 204 | 404; empty: true }
  | { status: 413; tooLarge: true };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** `localhost`/`127.0.0.1`/`::1` on any port, or a configured `host` / `host:port`. */
export function hostAllowed(hostHeader: string | undefined, allowed: readonly string[]): boolean {
  if (!hostHeader) return false;
  const value = hostHeader.trim().toLowerCase();
  const bare = value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.replace(/:\d+$/, '');
  if (LOOPBACK_HOSTS.has(bare)) return true;
  return allowed.some((entry) => entry === value || (!/:\d+$/.test(entry) && entry === bare));
}

function parseVariablesHeader(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value) return out;
  for (const segment of value.split(';')) {
    const part = segment.trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new SessionError('invalid_binding', `invalid variables: the svc-variables header segment "${part}" needs key=value`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

function parseSecretsHeader(value: string | undefined): Record<string, string> {
  if (!value) return {};
  for (const text of [value, value + '='.repeat((4 - (value.length % 4)) % 4)]) {
    try {
      const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.values(parsed).every((v) => typeof v === 'string')) return parsed as Record<string, string>;
    } catch {
      // try the padded form next
    }
  }
  throw new SessionError('invalid_binding', 'invalid secrets: the svc-secrets header must be base64url of a JSON object of strings');
}

/**
 * The requesting token travels to the tool handlers as the SDK's per-request auth info:
 * a transport outlives requests, and each request names its own principal (the audit
 * must name the token that asked, never the session's opener). The credential itself is
 * never put there.
 */
function authInfoOf(actor: SessionActor): AuthInfo {
  return { token: '', clientId: actor.name, scopes: [], extra: { role: actor.role } };
}

function actorOf(authInfo: AuthInfo | undefined): SessionActor | null {
  const role = authInfo?.extra?.role;
  return authInfo && typeof role === 'string' ? { name: authInfo.clientId, role } : null;
}

const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null } as const;

const answer = (a: ToolAnswer) => ({ content: [{ type: 'text', text: a.text }], ...(a.structured ? { structuredContent: a.structured } : {}), ...(a.isError ? { isError: true } : {}) });

export class McpEndpoint {
  private readonly transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

  constructor(private readonly deps: McpEndpointDependencies) {}

  async handle(c: McpHttpRequest): Promise<Response | McpHttpAnswer> {
    if (!hostAllowed(c.header('host'), this.deps.allowedHosts)) return { status: 403, text: 'the Host header is not allowed for the MCP endpoint (DNS-rebinding guard); add it to mcp_allowed_hosts' };
    const blueprintName = c.blueprint;
    const sessionId = c.header('mcp-session-id');
    if (c.method === 'GET') return { status: 405, text: 'GET is not supported on the MCP endpoint; send JSON-RPC with POST' };
    if (c.method === 'DELETE') return this.remove(c, blueprintName, sessionId);
    if (c.method !== 'POST') return { status: 405, text: 'method not allowed' };

    let body: unknown;
    try {
      const text = await c.body();
      if (text === null) return { status: 413, tooLarge: true };
      body = JSON.parse(text);
    } catch {
      return { status: 400, json: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON' }, id: null } };
    }
    const actor = c.actor;
    const principal = actor.name;
    if (!sessionId) {
      const init = Array.isArray(body) ? body.find((m) => m?.method === 'initialize') : (body as { method?: string })?.method === 'initialize' ? body : null;
      if (!init) return { status: 400, json: { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no MCP session; start with initialize' }, id: null } };
      let created: string;
      try {
        const meta = ((init as { params?: { _meta?: { variables?: Record<string, string>; secrets?: Record<string, string> } } }).params?._meta ?? {}) as { variables?: Record<string, string>; secrets?: Record<string, string> };
        const variables = { ...parseVariablesHeader(c.header('svc-variables')), ...(meta.variables ?? {}) };
        const secrets = { ...parseSecretsHeader(c.header('svc-secrets')), ...(meta.secrets ?? {}) };
        created = this.deps.sessions.create({ blueprint: blueprintName, variables, secrets, principal, mcp: { protocolVersion: (init as { params?: { protocolVersion?: string } }).params?.protocolVersion ?? null } }).sessionId;
      } catch (error) {
        if (error instanceof SessionError) return { status: error.code === 'unknown_blueprint' ? 404 : error.code === 'session_limit' ? 429 : 400, text: error.message };
        throw error;
      }
      const capabilities = (init as { params?: { capabilities?: { elicitation?: unknown } } }).params?.capabilities;
      const transport = this.open(created, blueprintName, false, capabilities?.elicitation !== undefined && capabilities.elicitation !== null);
      return transport.handleRequest(c.raw, { parsedBody: body, authInfo: authInfoOf(actor) });
    }
    // Someone else's session answers exactly as an unknown one.
    const session = this.deps.sessions.get(sessionId, actor);
    if (!session || session.blueprintName !== blueprintName) return { status: 404, json: SESSION_NOT_FOUND };
    const transport = this.transports.get(sessionId) ?? this.open(sessionId, blueprintName, true);
    return transport.handleRequest(c.raw, { parsedBody: body, authInfo: authInfoOf(actor) });
  }

  /**
   * A session ended however it ended (REST delete, idle timeout, its Blueprint deleted): its
   * protocol state goes with it, or a token that opens and ends sessions grows it forever.
   */
  sessionEnded(sessionId: string): void {
    const transport = this.transports.get(sessionId);
    if (!transport) return;
    this.transports.delete(sessionId);
    void transport.close().catch(() => {});
  }

  /** MCP sessions whose protocol state is held. */
  get transportCount(): number {
    return this.transports.size;
  }

  private async remove(c: McpHttpRequest, blueprintName: string, sessionId: string | undefined): Promise<McpHttpAnswer> {
    const actor = c.actor;
    const session = sessionId ? this.deps.sessions.get(sessionId, actor) : null;
    if (!sessionId || !session || session.blueprintName !== blueprintName) return { status: 404, empty: true };
    this.deps.sessions.delete(sessionId, actor);
    await this.transports.get(sessionId)?.close();
    this.transports.delete(sessionId);
    return { status: 204, empty: true };
  }

  /**
   * A transport bound to an svc session; `resumed` after a restart (the client already
   * initialized). A client that declared `elicitation` gets its answers as event streams, so
   * a tool call can put an approval question to it (elicitation/create) before it answers.
   */
  private open(sessionId: string, blueprintName: string, resumed: boolean, elicitation = false): WebStandardStreamableHTTPServerTransport {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => sessionId, enableJsonResponse: !elicitation });
    if (resumed) {
      // The SDK keeps its session state in memory; a session that survived a restart is
      // already initialized from the client's point of view.
      const state = transport as unknown as { sessionId?: string; _initialized: boolean };
      state.sessionId = sessionId;
      state._initialized = true;
    }
    const server = new Server({ name: 'svc', version: this.deps.version }, { capabilities: { tools: { listChanged: false } } });
    if (resumed) (server as unknown as { _clientCapabilities?: object })._clientCapabilities = {};
    server.setRequestHandler(ListToolsRequestSchema, () => {
      const blueprint = this.deps.registry.get(blueprintName);
      return { tools: blueprint ? toolList(blueprint) : [] };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const actor = actorOf(extra.authInfo);
      if (!actor) throw new McpError(ErrorCode.InternalError, 'the request carried no principal');
      // Approvals of this call's run are also asked here when the client can answer them.
      const asking = server.getClientCapabilities()?.elicitation ? { elicit: elicitApproval(extra.sendRequest as ElicitSender), by: actor.name } : undefined;
      return answer(await this.call(sessionId, blueprintName, actor, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, asking));
    });
    void server.connect(transport);
    this.transports.set(sessionId, transport);
    return transport;
  }

  private async call(sessionId: string, blueprintName: string, actor: SessionActor, name: string, args: Record<string, unknown>, elicitation?: Elicitation): Promise<ToolAnswer> {
    const principal = actor.name;
    const blueprint = this.deps.registry.get(blueprintName);
    const session = this.deps.sessions.get(sessionId, actor);
    if (!blueprint || !session) return { text: `session ${sessionId} has ended or its Blueprint is gone`, isError: true };
    const checked = checkArguments(name, args);
    if (!checked.ok) return checked.answer;
    args = checked.args;
    const discovery = await discoveryTool(name, args, blueprint, this.deps.modules, this.deps.packages, this.deps.mcpViews?.(blueprint, session));
    if (discovery) return discovery;
    switch (name) {
      case 'svc__typescript__execute':
        return this.execute(session, actor, args, elicitation);
      case 'svc__typescript__last_run': {
        const last = this.deps.sessions.lastRun(sessionId, actor);
        if (!last) return errorAnswer('no_previous_run', 'no run has been recorded in this session yet; run a program with svc__typescript__execute first');
        // src/sessions keeps the record's error untyped; it is the execute result's.
        const body: ToolLastRun = { result: last.result, console: last.console, error: last.error as ExecuteError | null, ...(last.warnings ? { warnings: last.warnings as ToolLastRun['warnings'] } : {}), execution_id: executionIdOf(last) };
        return { structured: body, text: JSON.stringify(body) };
      }
      case 'svc__files__read':
      case 'svc__files__list':
        return this.files(name, session, blueprint, principal, args);
      default:
        throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
    }
  }

  private async execute(session: SessionView, actor: SessionActor, args: Record<string, unknown>, elicitation?: Elicitation): Promise<ToolAnswer> {
    if (typeof args.code !== 'string') return { text: 'svc__typescript__execute needs {code: string}', isError: true };
    const principal = actor.name;
    try {
      // The run's one Blueprint: the version in force now (the tool call's lookup came before an await).
      const { session: view, blueprint } = this.deps.sessions.prepareRun(session.id, actor);
      const done = this.deps.sessions.runStarted(session.id);
      try {
        const report = await this.deps.executor.execute({
          entryPoint: 'mcp',
          principal,
          sessionId: session.id,
          blueprint,
          variables: { ...view.variables },
          cwd: view.fileArea.cwd,
          code: args.code,
          fileArea: view.fileArea,
          harnessSecrets: view.secrets,
          ...(elicitation ? { elicitation } : {}),
        });
        if (report.lastRun) this.deps.sessions.recordLastRun(session.id, report.lastRun);
        const r = report.response;
        const body: ToolExecuteResult = { result: r.result, console: r.console, error: r.error, execution_id: r.execution_id, ...(r.discovery_warnings ? { discovery_warnings: r.discovery_warnings } : {}), ...(r.warnings ? { warnings: r.warnings } : {}) };
        // A run that ended with an error says so in `isError` too: MCP clients read it to tell failure from success.
        return { structured: body, text: JSON.stringify(body), ...(r.error ? { isError: true } : {}) };
      } finally {
        done();
      }
    } catch (error) {
      if (error instanceof SessionError) return { text: `${error.code}: ${error.message}`, isError: true };
      throw error;
    }
  }

  /** File tools run outside a run: decisions carry no execution_id. */
  private async files(name: string, session: SessionView, blueprint: Blueprint, principal: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    const services = this.deps.servicesFor(session, blueprint);
    const decisions = new RunDecisions(
      { session_id: session.id, blueprint: blueprint.name, blueprint_hash: blueprint.hash, principal, cwd: session.fileArea.cwd, variables: { ...session.variables }, policy: blueprint.policy },
      this.deps.audit,
      this.deps.allows,
    );
    // The same dispatcher as a run: validated, gated, then run.
    const dispatcher = new HostDispatcher({
      run: { executionId: '', sessionId: session.id, principal, blueprintName: blueprint.name, variables: session.variables, signal: new AbortController().signal, services },
      modules: this.deps.modules,
      decisions,
    });
    try {
      return await filesTool(name as 'svc__files__read' | 'svc__files__list', (module, op, opArgs) => dispatcher.invoke(module, op, opArgs), services.files?.cwd ?? session.fileArea.cwd, args);
    } finally {
      dispatcher.end();
      decisions.flush();
      services.endOfRun?.();
    }
  }
}
