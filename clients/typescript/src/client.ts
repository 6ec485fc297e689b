// SvcClient: one typed method per user and admin route. Nothing throws for an HTTP or
// network failure: every call resolves to a SvcResult, whose error is a typed value.
import type {
  Approval,
  ApprovalDecisionRequest,
  BlueprintSummary,
  BuiltinsDocs,
  BuiltinsList,
  ExecuteResult,
  LastRunRecord,
  OAuthExchangeRequest,
  OAuthState,
  OneOffRequest,
  PackageDocs,
  PackageInstalled,
  PackageInstallRequest,
  PackageRef,
  PackageSearchResults,
  Prompt,
  RefreshTokenRequest,
  SessionRequest,
  Status,
} from './types.js';

export type SvcError =
  /** The route answered with a JSON error body (`error` is its stable code). */
  | { kind: 'api'; status: number; code: string; message: string; body: Record<string, unknown> }
  /** A refusal before the route ran (bad JSON, 413, 415, 422, missing query, draining): plain text. */
  | { kind: 'refused'; status: number; message: string }
  /** 404 with an empty body: no such session, or no run recorded yet. */
  | { kind: 'not_found'; status: 404 }
  /** The server could not be reached or the reply could not be read. */
  | { kind: 'network'; message: string };

export type SvcResult<T> = { ok: true; value: T } | { ok: false; error: SvcError };

export interface SvcClientOptions {
  /** e.g. `http://127.0.0.1:8128` */
  baseUrl: string;
  /** A `user` or `admin` token. */
  token: string;
  /** Replaces the global fetch (custom TLS, proxies, tests). */
  fetch?: typeof fetch;
}

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Array<[string, string]>;
  body?: unknown;
  headers?: Record<string, string>;
}

const seg = encodeURIComponent;

export class SvcClient {
  private readonly baseUrl: string;
  private readonly token: string;
  private readonly fetchFn: typeof fetch;

  constructor(options: SvcClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.fetchFn = options.fetch ?? fetch;
  }

  // ---- user routes -------------------------------------------------------------------

  /** The server's OpenAPI 3.1 document. */
  openapi(): Promise<SvcResult<Record<string, unknown>>> {
    return this.json({ method: 'GET', path: '/v1/openapi.json' });
  }

  createSession(request: SessionRequest): Promise<SvcResult<{ session_id: string }>> {
    return this.json({ method: 'POST', path: '/v1/sessions', body: request });
  }

  /** Runs `code` in a session. With `idempotencyKey`, a retry with the same code replays the recorded outcome. */
  execute(sessionId: string, code: string, options: { idempotencyKey?: string } = {}): Promise<SvcResult<ExecuteResult>> {
    const headers: Record<string, string> = { 'mcp-session-id': sessionId };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    return this.json({ method: 'POST', path: `/v1/sessions/${seg(sessionId)}/execute`, body: { code }, headers });
  }

  /** A one-off run in a throw-away session; its last run stays readable by `session_id`. */
  executeOnce(request: OneOffRequest): Promise<SvcResult<ExecuteResult>> {
    return this.json({ method: 'POST', path: '/v1/execute', body: request });
  }

  rebind(sessionId: string, secrets: Record<string, string>): Promise<SvcResult<null>> {
    return this.json({ method: 'POST', path: `/v1/sessions/${seg(sessionId)}/rebind`, body: { secrets }, headers: { 'mcp-session-id': sessionId } });
  }

  lastRun(sessionId: string): Promise<SvcResult<LastRunRecord>> {
    return this.json({ method: 'GET', path: `/v1/sessions/${seg(sessionId)}/last-run`, headers: { 'mcp-session-id': sessionId } });
  }

  deleteSession(sessionId: string): Promise<SvcResult<null>> {
    return this.json({ method: 'DELETE', path: `/v1/sessions/${seg(sessionId)}`, headers: { 'mcp-session-id': sessionId } });
  }

  prompt(blueprint: string): Promise<SvcResult<Prompt>> {
    return this.json({ method: 'GET', path: `/v1/blueprints/${seg(blueprint)}/prompt` });
  }

  searchPackages(blueprint: string, query = ''): Promise<SvcResult<PackageSearchResults>> {
    return this.json({ method: 'GET', path: `/v1/blueprints/${seg(blueprint)}/packages/search`, query: [['q', query]] });
  }

  async packageDocs(blueprint: string, name: string): Promise<SvcResult<PackageDocs>> {
    const reply = await this.send({ method: 'GET', path: `/v1/blueprints/${seg(blueprint)}/packages/docs`, query: [['name', name]] });
    if (!reply.ok) return reply;
    const { response, text } = reply.value;
    if (response.ok && !isJson(response)) return { ok: true, value: { format: 'markdown', text } };
    const parsed = interpret<Omit<Extract<PackageDocs, { format: 'json' }>, 'format'>>(response, text);
    return parsed.ok ? { ok: true, value: { format: 'json', ...parsed.value } } : parsed;
  }

  builtins(blueprint: string): Promise<SvcResult<BuiltinsList>> {
    return this.json({ method: 'GET', path: `/v1/blueprints/${seg(blueprint)}/builtins` });
  }

  builtinsDocs(blueprint: string, names: string[]): Promise<SvcResult<BuiltinsDocs>> {
    return this.json({ method: 'GET', path: `/v1/blueprints/${seg(blueprint)}/builtins/docs`, query: names.map((n) => ['name', n]) });
  }

  // ---- admin routes ------------------------------------------------------------------

  status(): Promise<SvcResult<Status>> {
    return this.json({ method: 'GET', path: '/v1/status' });
  }

  shutdown(): Promise<SvcResult<{ status: 'shutting-down' }>> {
    return this.json({ method: 'POST', path: '/v1/shutdown' });
  }

  registerBlueprint(yaml: string): Promise<SvcResult<{ name: string; hash: string }>> {
    return this.json({ method: 'POST', path: '/v1/blueprints', body: { yaml } });
  }

  putBlueprint(name: string, yaml: string): Promise<SvcResult<{ name: string; created: boolean; hash: string }>> {
    return this.json({ method: 'PUT', path: `/v1/blueprints/${seg(name)}`, body: { yaml } });
  }

  getBlueprint(name: string): Promise<SvcResult<{ name: string; yaml: string; hash: string | null }>> {
    return this.json({ method: 'GET', path: `/v1/blueprints/${seg(name)}` });
  }

  listBlueprints(): Promise<SvcResult<{ blueprints: BlueprintSummary[] }>> {
    return this.json({ method: 'GET', path: '/v1/blueprints' });
  }

  deleteBlueprint(name: string): Promise<SvcResult<{ name: string }>> {
    return this.json({ method: 'DELETE', path: `/v1/blueprints/${seg(name)}` });
  }

  capabilities(): Promise<SvcResult<{ groups: Array<{ source: string; kind: string; capabilities: Array<Record<string, unknown>> }> }>> {
    return this.json({ method: 'GET', path: '/v1/capabilities' });
  }

  putSecret(key: string, value: string): Promise<SvcResult<{ key: string }>> {
    return this.json({ method: 'POST', path: '/v1/secrets', body: { key, value } });
  }

  listSecrets(prefix?: string): Promise<SvcResult<{ keys: string[] }>> {
    return this.json({ method: 'GET', path: '/v1/secrets', query: prefix === undefined ? [] : [['prefix', prefix]] });
  }

  deleteSecret(key: string): Promise<SvcResult<{ key: string }>> {
    return this.json({ method: 'DELETE', path: `/v1/secrets/${key.split('/').map(seg).join('/')}` });
  }

  listPackages(): Promise<SvcResult<{ roots: string[]; packages: Array<PackageRef & { description?: string; root: string; managed: boolean }> }>> {
    return this.json({ method: 'GET', path: '/v1/packages' });
  }

  installPackages(request: PackageInstallRequest): Promise<SvcResult<PackageInstalled>> {
    return this.json({ method: 'POST', path: '/v1/packages/install', body: request });
  }

  removePackage(name: string): Promise<SvcResult<PackageRef & { still_available_from?: string }>> {
    return this.json({ method: 'DELETE', path: `/v1/packages/${name.split('/').map(seg).join('/')}` });
  }

  volumes(): Promise<SvcResult<{ volumes: string[] }>> {
    return this.json({ method: 'GET', path: '/v1/volumes' });
  }

  mcpAuthStatus(blueprint: string): Promise<SvcResult<{ blueprint: string; state: 'active' | 'pending'; servers: Array<{ name: string; kind: 'oauth' | 'static' | 'none'; authenticated?: boolean }> }>> {
    return this.json({ method: 'GET', path: `/v1/mcp/${seg(blueprint)}/auth-status` });
  }

  mcpAuthConfig(blueprint: string, server: string, redirectUri?: string): Promise<SvcResult<{ url: string; client_id?: string; authorization_endpoint?: string; token_endpoint?: string; scopes?: string[] }>> {
    return this.json({ method: 'GET', path: `/v1/mcp/${seg(blueprint)}/${seg(server)}/auth-config`, query: redirectUri === undefined ? [] : [['redirect_uri', redirectUri]] });
  }

  setRefreshToken(blueprint: string, server: string, request: RefreshTokenRequest): Promise<SvcResult<OAuthState>> {
    return this.json({ method: 'POST', path: `/v1/mcp/${seg(blueprint)}/${seg(server)}/refresh-token`, body: request });
  }

  deleteRefreshToken(blueprint: string, server: string): Promise<SvcResult<OAuthState>> {
    return this.json({ method: 'DELETE', path: `/v1/mcp/${seg(blueprint)}/${seg(server)}/refresh-token` });
  }

  exchangeOAuthCode(blueprint: string, server: string, request: OAuthExchangeRequest): Promise<SvcResult<OAuthState>> {
    return this.json({ method: 'POST', path: `/v1/mcp/${seg(blueprint)}/${seg(server)}/oauth/exchange`, body: request });
  }

  /** Approvals `ask-human` calls wait on, newest first (admin): the pending ones unless `state` says otherwise. */
  listApprovals(filter: { state?: Approval['state']; blueprint?: string; sessionId?: string; executionId?: string } = {}): Promise<SvcResult<{ approvals: Approval[] }>> {
    const query: Array<[string, string]> = [];
    if (filter.state) query.push(['state', filter.state]);
    if (filter.blueprint) query.push(['blueprint', filter.blueprint]);
    if (filter.sessionId) query.push(['session_id', filter.sessionId]);
    if (filter.executionId) query.push(['execution_id', filter.executionId]);
    return this.json({ method: 'GET', path: '/v1/approvals', query });
  }

  getApproval(approvalId: string): Promise<SvcResult<Approval>> {
    return this.json({ method: 'GET', path: `/v1/approvals/${seg(approvalId)}` });
  }

  /** Answers a pending approval; an approval already answered or expired is a 409 `approval_decided` error. */
  decideApproval(approvalId: string, request: ApprovalDecisionRequest): Promise<SvcResult<Approval>> {
    return this.json({ method: 'POST', path: `/v1/approvals/${seg(approvalId)}`, body: request });
  }

  // ---- transport ---------------------------------------------------------------------

  private async json<T>(call: Call): Promise<SvcResult<T>> {
    const reply = await this.send(call);
    if (!reply.ok) return reply;
    return interpret<T>(reply.value.response, reply.value.text);
  }

  private async send(call: Call): Promise<SvcResult<{ response: Response; text: string }>> {
    const url = new URL(this.baseUrl + call.path);
    for (const [k, v] of call.query ?? []) url.searchParams.append(k, v);
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, ...call.headers };
    let body: string | undefined;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    try {
      const response = await this.fetchFn(url, { method: call.method, headers, body });
      return { ok: true, value: { response, text: await response.text() } };
    } catch (error) {
      return { ok: false, error: { kind: 'network', message: describe(error) } };
    }
  }
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').split(';')[0].trim() === 'application/json';
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  return cause ? `${message}: ${cause}` : message;
}

/** A reply as a SvcResult: 2xx JSON (or no body) is the value; the rest a typed error. */
function interpret<T>(response: Response, text: string): SvcResult<T> {
  if (response.ok) {
    if (text === '') return { ok: true, value: null as T };
    try {
      return { ok: true, value: JSON.parse(text) as T };
    } catch {
      return { ok: false, error: { kind: 'network', message: `the server answered ${response.status} with a body that is not JSON` } };
    }
  }
  if (text === '' && response.status === 404) return { ok: false, error: { kind: 'not_found', status: 404 } };
  if (isJson(response)) {
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      const message = typeof body.message === 'string' ? body.message : typeof body.detail === 'string' ? body.detail : String(body.error ?? '');
      return { ok: false, error: { kind: 'api', status: response.status, code: String(body.error ?? 'unknown'), message, body } };
    } catch {
      // Fall through: treat as text.
    }
  }
  return { ok: false, error: { kind: 'refused', status: response.status, message: text } };
}
