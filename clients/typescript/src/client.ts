// SvcClient: one typed method per user and admin route. Nothing throws for an HTTP or
// network failure: every call resolves to a SvcResult, whose error is a typed value.
// Requests go through openapi-fetch over `paths`, generated from the server's OpenAPI
// document: a path, parameter or body the document does not have is a compile error.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi-types.js';
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
  RunRecord,
  RunStarted,
  RunState,
  RunSummary,
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

/** What openapi-fetch answers: the parsed body (`data` on 2xx, `error` otherwise) and the response. */
interface Reply {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export class SvcClient {
  private readonly api: Client<paths>;

  constructor(options: SvcClientOptions) {
    const fetchFn = options.fetch ?? ((request: Request) => fetch(request));
    this.api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers: { authorization: `Bearer ${options.token}` }, fetch: fetchFn });
  }

  // ---- user routes -------------------------------------------------------------------

  /** The server's OpenAPI 3.1 document. */
  openapi(): Promise<SvcResult<Record<string, unknown>>> {
    return settle(this.api.GET('/v1/openapi.json'));
  }

  createSession(request: SessionRequest): Promise<SvcResult<{ session_id: string }>> {
    return settle(this.api.POST('/v1/sessions', { body: request }));
  }

  /** Runs `code` in a session. With `idempotencyKey`, a retry with the same code replays the recorded outcome. */
  execute(sessionId: string, code: string, options: { idempotencyKey?: string } = {}): Promise<SvcResult<ExecuteResult>> {
    const headers: Record<string, string> = { 'mcp-session-id': sessionId };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    return settle(this.api.POST('/v1/sessions/{session_id}/execute', { params: { path: { session_id: sessionId } }, body: { code }, headers }));
  }

  /** A one-off run in a throw-away session; its last run stays readable by `session_id`. */
  executeOnce(request: OneOffRequest): Promise<SvcResult<ExecuteResult>> {
    return settle(this.api.POST('/v1/execute', { body: request }));
  }

  /**
   * Starts `code` in a session without waiting (`Prefer: respond-async`): 202 `RunStarted`
   * once admitted; follow it with `getRun`. A retry with the same `idempotencyKey` answers
   * the same `execution_id`.
   */
  executeAsync(sessionId: string, code: string, options: { idempotencyKey?: string } = {}): Promise<SvcResult<RunStarted>> {
    const headers: Record<string, string> = { 'mcp-session-id': sessionId, prefer: 'respond-async' };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    return settle(this.api.POST('/v1/sessions/{session_id}/execute', { params: { path: { session_id: sessionId } }, body: { code }, headers })) as Promise<SvcResult<RunStarted>>;
  }

  /**
   * Starts a one-off run without waiting: `RunStarted` once admitted. A refusal before the
   * run (unknown Blueprint, invalid variables or secrets) keeps its usual answer, an
   * `ExecuteResult` with `error` set (tell them apart by `state`).
   */
  executeOnceAsync(request: OneOffRequest): Promise<SvcResult<RunStarted | ExecuteResult>> {
    return settle(this.api.POST('/v1/execute', { body: request, headers: { prefer: 'respond-async' } })) as Promise<SvcResult<RunStarted | ExecuteResult>>;
  }

  /** A run's record; with `wait` (seconds, 0-60) the server holds the answer until the run finishes or the time is up. */
  getRun(executionId: string, options: { wait?: number } = {}): Promise<SvcResult<RunRecord>> {
    return settle(this.api.GET('/v1/runs/{execution_id}', { params: { path: { execution_id: executionId }, query: options.wait === undefined ? {} : { wait: String(options.wait) } } }));
  }

  /** Runs newest first (a user token: its own; an admin token: every one), without results. */
  listRuns(filter: { state?: RunState; sessionId?: string; blueprint?: string; limit?: number } = {}): Promise<SvcResult<{ runs: RunSummary[] }>> {
    const query = { state: filter.state, session_id: filter.sessionId, blueprint: filter.blueprint, limit: filter.limit === undefined ? undefined : String(filter.limit) };
    return settle(this.api.GET('/v1/runs', { params: { query } }));
  }

  /** Asks a run in flight to stop (it ends `cancelled`); a finished run is the `api` error `run_finished`. */
  cancelRun(executionId: string): Promise<SvcResult<RunRecord>> {
    return settle(this.api.POST('/v1/runs/{execution_id}/cancel', { params: { path: { execution_id: executionId } } }));
  }

  rebind(sessionId: string, secrets: Record<string, string>): Promise<SvcResult<null>> {
    return settle(this.api.POST('/v1/sessions/{session_id}/rebind', { params: { path: { session_id: sessionId } }, body: { secrets }, headers: { 'mcp-session-id': sessionId } }));
  }

  lastRun(sessionId: string): Promise<SvcResult<LastRunRecord>> {
    return settle(this.api.GET('/v1/sessions/{session_id}/last-run', { params: { path: { session_id: sessionId } }, headers: { 'mcp-session-id': sessionId } }));
  }

  deleteSession(sessionId: string): Promise<SvcResult<null>> {
    return settle(this.api.DELETE('/v1/sessions/{session_id}', { params: { path: { session_id: sessionId } }, headers: { 'mcp-session-id': sessionId } }));
  }

  prompt(blueprint: string): Promise<SvcResult<Prompt>> {
    return settle(this.api.GET('/v1/blueprints/{name}/prompt', { params: { path: { name: blueprint } } }));
  }

  searchPackages(blueprint: string, query = ''): Promise<SvcResult<PackageSearchResults>> {
    return settle(this.api.GET('/v1/blueprints/{name}/packages/search', { params: { path: { name: blueprint }, query: { q: query } } }));
  }

  async packageDocs(blueprint: string, name: string): Promise<SvcResult<PackageDocs>> {
    // Markdown or JSON by the answer's content type: read as text, parsed here.
    const reply = await settle<string>(this.api.GET('/v1/blueprints/{name}/packages/docs', { params: { path: { name: blueprint }, query: { name } }, parseAs: 'text' }), true);
    if (!reply.ok) return reply;
    const { value: text, response } = reply.value;
    if (!isJson(response)) return { ok: true, value: { format: 'markdown', text } };
    try {
      return { ok: true, value: { format: 'json', ...(JSON.parse(text) as Omit<Extract<PackageDocs, { format: 'json' }>, 'format'>) } };
    } catch {
      return notJson(response);
    }
  }

  builtins(blueprint: string): Promise<SvcResult<BuiltinsList>> {
    return settle(this.api.GET('/v1/blueprints/{name}/builtins', { params: { path: { name: blueprint } } }));
  }

  builtinsDocs(blueprint: string, names: string[]): Promise<SvcResult<BuiltinsDocs>> {
    return settle(this.api.GET('/v1/blueprints/{name}/builtins/docs', { params: { path: { name: blueprint }, query: { name: names } } }));
  }

  // ---- admin routes ------------------------------------------------------------------

  status(): Promise<SvcResult<Status>> {
    return settle(this.api.GET('/v1/status'));
  }

  shutdown(): Promise<SvcResult<{ status: 'shutting-down' }>> {
    return settle(this.api.POST('/v1/shutdown'));
  }

  registerBlueprint(yaml: string): Promise<SvcResult<{ name: string; hash: string }>> {
    return settle(this.api.POST('/v1/blueprints', { body: { yaml } }));
  }

  putBlueprint(name: string, yaml: string): Promise<SvcResult<{ name: string; created: boolean; hash: string }>> {
    return settle(this.api.PUT('/v1/blueprints/{name}', { params: { path: { name } }, body: { yaml } }));
  }

  getBlueprint(name: string): Promise<SvcResult<{ name: string; yaml: string; hash: string | null }>> {
    return settle(this.api.GET('/v1/blueprints/{name}', { params: { path: { name } } }));
  }

  listBlueprints(): Promise<SvcResult<{ blueprints: BlueprintSummary[] }>> {
    return settle(this.api.GET('/v1/blueprints'));
  }

  deleteBlueprint(name: string): Promise<SvcResult<{ name: string }>> {
    return settle(this.api.DELETE('/v1/blueprints/{name}', { params: { path: { name } } }));
  }

  capabilities(): Promise<SvcResult<{ groups: Array<{ source: string; kind: string; capabilities: Array<Record<string, unknown>> }> }>> {
    return settle(this.api.GET('/v1/capabilities'));
  }

  putSecret(key: string, value: string): Promise<SvcResult<{ key: string }>> {
    return settle(this.api.POST('/v1/secrets', { body: { key, value } }));
  }

  listSecrets(prefix?: string): Promise<SvcResult<{ keys: string[] }>> {
    return settle(this.api.GET('/v1/secrets', { params: { query: prefix === undefined ? {} : { prefix } } }));
  }

  /** `/` may appear in a key: the path carries it encoded (`%2F`), which the server accepts as it accepts a raw one. */
  deleteSecret(key: string): Promise<SvcResult<{ key: string }>> {
    return settle(this.api.DELETE('/v1/secrets/{key}', { params: { path: { key } } }));
  }

  listPackages(): Promise<SvcResult<{ roots: string[]; packages: Array<PackageRef & { description?: string; root: string; managed: boolean }> }>> {
    return settle(this.api.GET('/v1/packages'));
  }

  installPackages(request: PackageInstallRequest): Promise<SvcResult<PackageInstalled>> {
    return settle(this.api.POST('/v1/packages/install', { body: request }));
  }

  removePackage(name: string): Promise<SvcResult<PackageRef & { still_available_from?: string }>> {
    return settle(this.api.DELETE('/v1/packages/{name}', { params: { path: { name } } }));
  }

  volumes(): Promise<SvcResult<{ volumes: string[] }>> {
    return settle(this.api.GET('/v1/volumes'));
  }

  mcpAuthStatus(blueprint: string): Promise<SvcResult<{ blueprint: string; state: 'active' | 'pending'; servers: Array<{ name: string; kind: 'oauth' | 'static' | 'none'; authenticated?: boolean }> }>> {
    return settle(this.api.GET('/v1/mcp/{blueprint}/auth-status', { params: { path: { blueprint } } }));
  }

  mcpAuthConfig(blueprint: string, server: string, redirectUri?: string): Promise<SvcResult<{ url: string; client_id?: string; authorization_endpoint?: string; token_endpoint?: string; scopes?: string[] }>> {
    return settle(this.api.GET('/v1/mcp/{blueprint}/{server}/auth-config', { params: { path: { blueprint, server }, query: redirectUri === undefined ? {} : { redirect_uri: redirectUri } } }));
  }

  setRefreshToken(blueprint: string, server: string, request: RefreshTokenRequest): Promise<SvcResult<OAuthState>> {
    return settle(this.api.POST('/v1/mcp/{blueprint}/{server}/refresh-token', { params: { path: { blueprint, server } }, body: request }));
  }

  deleteRefreshToken(blueprint: string, server: string): Promise<SvcResult<OAuthState>> {
    return settle(this.api.DELETE('/v1/mcp/{blueprint}/{server}/refresh-token', { params: { path: { blueprint, server } } }));
  }

  exchangeOAuthCode(blueprint: string, server: string, request: OAuthExchangeRequest): Promise<SvcResult<OAuthState>> {
    return settle(this.api.POST('/v1/mcp/{blueprint}/{server}/oauth/exchange', { params: { path: { blueprint, server } }, body: request }));
  }

  /** Approvals `ask-human` calls wait on, newest first (admin): the pending ones unless `state` says otherwise. */
  listApprovals(filter: { state?: Approval['state']; blueprint?: string; sessionId?: string; executionId?: string } = {}): Promise<SvcResult<{ approvals: Approval[] }>> {
    const query = { state: filter.state, blueprint: filter.blueprint, session_id: filter.sessionId, execution_id: filter.executionId };
    return settle(this.api.GET('/v1/approvals', { params: { query } }));
  }

  getApproval(approvalId: string): Promise<SvcResult<Approval>> {
    return settle(this.api.GET('/v1/approvals/{approval_id}', { params: { path: { approval_id: approvalId } } }));
  }

  /** Answers a pending approval; an approval already answered or expired is a 409 `approval_decided` error. */
  decideApproval(approvalId: string, request: ApprovalDecisionRequest): Promise<SvcResult<Approval>> {
    return settle(this.api.POST('/v1/approvals/{approval_id}', { params: { path: { approval_id: approvalId } }, body: request }));
  }
}

/**
 * A reply as a SvcResult: 2xx JSON (or no body) is the value; the rest a typed error.
 * With `withResponse`, the value comes with the response (for content-type decisions).
 */
async function settle<T>(pending: Promise<Reply>): Promise<SvcResult<T>>;
async function settle<T>(pending: Promise<Reply>, withResponse: true): Promise<SvcResult<{ value: T; response: Response }>>;
async function settle<T>(pending: Promise<Reply>, withResponse = false): Promise<SvcResult<unknown>> {
  let reply: Reply;
  try {
    reply = await pending;
  } catch (error) {
    // A 2xx body that is not JSON fails to parse inside openapi-fetch; anything else is the network.
    if (error instanceof SyntaxError) return { ok: false, error: { kind: 'network', message: 'the server answered with a body that is not JSON' } };
    return { ok: false, error: { kind: 'network', message: describe(error) } };
  }
  const { response } = reply;
  if (response.ok) {
    const value = (reply.data ?? null) as T;
    return { ok: true, value: withResponse ? { value, response } : value };
  }
  const body = reply.error;
  if ((body === undefined || body === '') && response.status === 404) return { ok: false, error: { kind: 'not_found', status: 404 } };
  if (isJson(response) && body !== null && typeof body === 'object') {
    const fields = body as Record<string, unknown>;
    const message = typeof fields.message === 'string' ? fields.message : typeof fields.detail === 'string' ? fields.detail : String(fields.error ?? '');
    return { ok: false, error: { kind: 'api', status: response.status, code: String(fields.error ?? 'unknown'), message, body: fields } };
  }
  return { ok: false, error: { kind: 'refused', status: response.status, message: typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body) } };
}

function notJson(response: Response): SvcResult<never> {
  return { ok: false, error: { kind: 'network', message: `the server answered ${response.status} with a body that is not JSON` } };
}

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').split(';')[0].trim() === 'application/json';
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  return cause ? `${message}: ${cause}` : message;
}
