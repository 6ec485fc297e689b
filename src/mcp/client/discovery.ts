// Discovery of a Blueprint's upstream MCP servers: credentials,
// connect, initialize, tools/list with paging, within 10 seconds; the catalogue cached per
// (Blueprint, server), or per session when the headers need harness secrets.
import type { Dispatcher } from 'undici';
import type { ServerLog } from '../../audit';
import type { EgressBlockedError } from '../../network';
import type { Blueprint, McpServerDeclaration } from '../../blueprints';
import { catalogueTools, packageDescription, renderDeclarations, type CatalogueTool, type UpstreamTool } from './declarations';
import { Upstream, UpstreamError } from './upstream';

export const DISCOVERY_BUDGET_MS = 10_000;
const MAX_TOOLS = 1000;
const MAX_LISTING_BYTES = 4 * 1024 * 1024;
const CACHE_TTL_MS = 10 * 60_000;
const FAILURE_RETRY_MS = 30_000;
/**
 * Catalogues kept at once. Servers whose headers need harness secrets are cached per session,
 * one-off runs' throw-away sessions included, so without a bound a token looping one-off runs
 * would grow the cache for ever; the least recently stored go first.
 */
const MAX_CACHED = 1024;

export type ServerCatalogue =
  | { ok: true; server: string; url: string; tools: CatalogueTool[]; warnings: string[]; description: string; declarations: string }
  | { ok: false; server: string; reason: string };

/** Where a run or lookup comes from: harness secrets exist only with a session. */
export interface DiscoveryScope {
  sessionId?: string;
  harness?: Readonly<Record<string, string>>;
}

/** Bearer tokens for `auth: oauth2` servers (the token manager); null when not authenticated. */
export type TokenSource = (blueprint: string, server: string, failed?: string) => Promise<string | null>;

export interface McpDiscoveryOptions {
  dispatcher: Dispatcher;
  /** A store secret's value (the secret store), or undefined. */
  storeSecret: (key: string) => string | undefined;
  tokens?: TokenSource;
  log: ServerLog;
  version: string;
  now?: () => number;
  /** Discovery's connection was refused by the outbound block (the caller audits it). */
  onBlocked?: (blueprint: Blueprint, server: string, blocked: EgressBlockedError) => void;
}

const SECRET_REF = /\$\{secrets\.([A-Za-z0-9_]+)\}/g;

const strip = (value: ServerCatalogue & { refusedToken?: string }): ServerCatalogue => {
  const { refusedToken: _, ...rest } = value as ServerCatalogue & { refusedToken?: string };
  return rest as ServerCatalogue;
};

/** Thrown while resolving credentials: the server is unavailable for this reason. */
class Unavailable extends Error {}

export class McpDiscovery {
  private readonly cache = new Map<string, { at: number; value: ServerCatalogue }>();
  private readonly inflight = new Map<string, Promise<ServerCatalogue>>();
  private readonly now: () => number;

  constructor(private readonly options: McpDiscoveryOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether the server's headers name a harness secret (discovered per session). */
  static usesHarness(blueprint: Blueprint, declaration: McpServerDeclaration): boolean {
    return Object.values(declaration.headers ?? {}).some((value) => [...value.matchAll(SECRET_REF)].some((m) => blueprint.declarations.secrets.get(m[1])?.source === 'harness'));
  }

  /** Header values with `${secrets.NAME}` resolved, or Unavailable naming what is missing. */
  resolveHeaders(blueprint: Blueprint, declaration: McpServerDeclaration, scope: DiscoveryScope): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(declaration.headers ?? {})) {
      out[name] = value.replace(SECRET_REF, (_, secret: string) => {
        const declared = blueprint.declarations.secrets.get(secret);
        if (!declared) throw new Unavailable(`header ${name} names the undeclared secret ${secret}`);
        if (declared.source === 'store') {
          const found = this.options.storeSecret(declared.key);
          if (found === undefined) throw new Unavailable(`header ${name} needs the store secret ${declared.key}, which has no value`);
          return found;
        }
        if (!scope.harness) throw new Unavailable(`header ${name} needs the harness secret ${secret}, which only a session provides`);
        const given = scope.harness[secret];
        if (given === undefined) throw new Unavailable(`header ${name} needs the harness secret ${secret}, which this session did not provide`);
        return given;
      });
    }
    return out;
  }

  /** Headers for a connection: static headers, or a bearer token for OAuth servers. */
  async credentials(blueprint: Blueprint, server: string, scope: DiscoveryScope, failedToken?: string): Promise<Record<string, string>> {
    const declaration = blueprint.mcp[server];
    if (declaration.auth?.type === 'oauth2') {
      const token = this.options.tokens ? await this.options.tokens(blueprint.name, server, failedToken) : null;
      if (!token) throw new Unavailable(`not authenticated: run \`svc mcp authenticate ${blueprint.name} ${server}\``);
      return { Authorization: `Bearer ${token}` };
    }
    return this.resolveHeaders(blueprint, declaration, scope);
  }

  private keyOf(blueprint: Blueprint, server: string, scope: DiscoveryScope): string {
    const perSession = McpDiscovery.usesHarness(blueprint, blueprint.mcp[server]);
    return `${blueprint.name}\u0000${blueprint.hash}\u0000${server}\u0000${perSession ? `session:${scope.sessionId ?? ''}` : ''}`;
  }

  /** The server's catalogue, from the cache or discovered now (concurrent lookups share one discovery). */
  async catalogue(blueprint: Blueprint, server: string, scope: DiscoveryScope): Promise<ServerCatalogue> {
    const key = this.keyOf(blueprint, server, scope);
    const cached = this.cache.get(key);
    const now = this.now();
    if (cached && now - cached.at < (cached.value.ok ? CACHE_TTL_MS : FAILURE_RETRY_MS)) return cached.value;
    const running = this.inflight.get(key);
    if (running) return running;
    const work = this.discoverWithRefresh(blueprint, server, scope).then((value) => {
      this.remember(key, value);
      if (!value.ok) this.options.log.warn('svc_server::mcp', 'MCP server unavailable', { blueprint: blueprint.name, server, reason: value.reason });
      else for (const warning of value.warnings) this.options.log.warn('svc_server::mcp', 'MCP tool catalogue warning', { blueprint: blueprint.name, server, warning });
      return value;
    });
    this.inflight.set(key, work);
    try {
      return await work;
    } finally {
      this.inflight.delete(key);
    }
  }

  /** Catalogues held now (bounded by MAX_CACHED). */
  get cachedCatalogues(): number {
    return this.cache.size;
  }

  /** Drops the catalogues discovered for one session (it ended). */
  forgetSession(sessionId: string): void {
    const suffix = `\u0000session:${sessionId}`;
    for (const key of [...this.cache.keys()]) if (key.endsWith(suffix)) this.cache.delete(key);
  }

  private remember(key: string, value: ServerCatalogue): void {
    this.cache.delete(key);
    this.cache.set(key, { at: this.now(), value });
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= MAX_CACHED) break;
      this.cache.delete(oldest);
    }
  }

  /** Drops every cached catalogue of a Blueprint (replaced, removed, login stored or removed). */
  evict(blueprintName: string): void {
    for (const key of [...this.cache.keys()]) if (key.startsWith(`${blueprintName}\u0000`)) this.cache.delete(key);
  }

  /** An OAuth server that refuses the token gets one forced refresh and one more try. */
  private async discoverWithRefresh(blueprint: Blueprint, server: string, scope: DiscoveryScope): Promise<ServerCatalogue> {
    const first = await this.discover(blueprint, server, scope);
    if (first.ok || !first.refusedToken) return strip(first);
    return strip(await this.discover(blueprint, server, scope, first.refusedToken));
  }

  private async discover(blueprint: Blueprint, server: string, scope: DiscoveryScope, failedToken?: string): Promise<ServerCatalogue & { refusedToken?: string }> {
    const declaration = blueprint.mcp[server];
    const unavailable = (reason: string): ServerCatalogue => ({ ok: false, server, reason });
    let headers: Record<string, string>;
    try {
      headers = await this.credentials(blueprint, server, scope, failedToken);
    } catch (error) {
      if (error instanceof Unavailable) return unavailable(error.message);
      return unavailable(`credentials could not be obtained: ${(error as Error).message}`);
    }
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), DISCOVERY_BUDGET_MS);
    const upstream = new Upstream({ url: declaration.url, headers, dispatcher: this.options.dispatcher, version: this.options.version, maxBytes: MAX_LISTING_BYTES, signal: budget.signal });
    const timedOut = () => unavailable(`discovery timed out after ${DISCOVERY_BUDGET_MS / 1000} seconds`);
    try {
      const listing = (async () => {
        await upstream.connect();
        const tools: UpstreamTool[] = [];
        let cursor: string | undefined;
        do {
          const page = await upstream.client.listTools(cursor ? { cursor } : {}, { signal: budget.signal, timeout: DISCOVERY_BUDGET_MS });
          tools.push(...(page.tools as UpstreamTool[]));
          if (tools.length > MAX_TOOLS) throw new UpstreamError('tool listing too large', 'too_large');
          cursor = page.nextCursor;
        } while (cursor);
        return tools;
      })();
      const aborted = new Promise<'timeout'>((resolve) => budget.signal.addEventListener('abort', () => resolve('timeout'), { once: true }));
      const listed = await Promise.race([listing, aborted]);
      listing.catch(() => undefined);
      if (listed === 'timeout') return timedOut();
      const { tools, warnings } = catalogueTools(server, listed);
      return { ok: true, server, url: declaration.url, tools, warnings, description: packageDescription(server, tools.length), declarations: renderDeclarations(server, tools) };
    } catch (error) {
      if (budget.signal.aborted) return timedOut();
      const explained = upstream.explain(error);
      if (upstream.blocked) this.options.onBlocked?.(blueprint, server, upstream.blocked);
      if (explained instanceof UpstreamError && explained.kind === 'too_large') return unavailable('tool listing too large');
      if (explained instanceof UpstreamError && explained.kind === 'http' && /^HTTP 401/.test(explained.message) && declaration.auth?.type === 'oauth2') {
        const token = headers.Authorization?.slice('Bearer '.length);
        return { ...unavailable(`not authenticated: the server refused the token (${explained.message}); run \`svc mcp authenticate ${blueprint.name} ${server}\``), ...(failedToken === undefined && token ? { refusedToken: token } : {}) };
      }
      return unavailable(explained instanceof UpstreamError ? explained.message : `invalid response: ${explained.message}`);
    } finally {
      clearTimeout(timer);
      void upstream.close();
    }
  }
}
