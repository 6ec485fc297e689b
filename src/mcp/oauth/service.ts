// OAuth for upstream MCP servers, server side: the credential record in the secret store,
// the Blueprint's auth state, the auth config a login needs (endpoint discovery, client id
// precedence, dynamic registration), the code exchange, and storing or removing a credential.
import type { Dispatcher } from 'undici';
import type { Blueprint, McpServerDeclaration } from '../../blueprints';
import type { OAuthProvider } from '../../config';
import { SecretStoreError, type SecretStore } from '../../secrets';
import { excerpt, form, oauthRequest } from './http';
import { discoverMetadata, DiscoveryFailed, type ServerMetadata } from './metadata';

export type OAuthErrorCode =
  | 'no_secret_store'
  | 'unknown_blueprint'
  | 'unknown_mcp_server'
  | 'not_found'
  | 'not_oauth'
  | 'secret_resolve'
  | 'missing_client_id'
  | 'missing_token_endpoint'
  | 'invalid_credential'
  | 'discovery_failed'
  | 'registration_failed'
  | 'exchange_failed'
  | 'store_error';

const STATUS: Record<OAuthErrorCode, 400 | 404 | 500 | 502 | 503> = {
  no_secret_store: 503,
  unknown_blueprint: 404,
  unknown_mcp_server: 404,
  not_found: 404,
  not_oauth: 400,
  secret_resolve: 400,
  missing_client_id: 400,
  missing_token_endpoint: 400,
  invalid_credential: 400,
  discovery_failed: 502,
  registration_failed: 502,
  exchange_failed: 502,
  store_error: 500,
};

export class OAuthError extends Error {
  readonly status: 400 | 404 | 500 | 502 | 503;
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthError';
    this.status = STATUS[code];
  }
}

/** The stored record: exactly one of the two tokens. */
export interface Credential {
  refresh_token?: string;
  access_token?: string;
  client_id?: string;
  token_endpoint?: string;
  scopes: string[];
}

export interface AuthState {
  state: 'active' | 'pending';
  unauthenticated?: string[];
}

export interface OAuthServiceOptions {
  store: SecretStore;
  providers: readonly OAuthProvider[];
  dispatcher: Dispatcher;
  resolveBlueprint: (name: string) => Blueprint | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  /** Called after a credential is stored or removed (drop cached catalogues and tokens). */
  onCredentialChange?: (blueprint: string, server: string) => void;
}

export const credentialKey = (blueprint: string, server: string) => `mcp_oauth/${blueprint}/${server}/credential`;
const RESERVED = { allowReserved: true };
const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
};

export class OAuthService {
  constructor(private readonly options: OAuthServiceOptions) {}

  private requireStore(): void {
    if (!this.options.store.enabled) throw new OAuthError('no_secret_store', 'no secret store is configured on this server, so OAuth tokens have nowhere to be kept (set secret_store.key_file or SVC_SECRET_KEY)');
  }

  /** The Blueprint and its `auth: oauth2` server, or the typed refusal. */
  server(blueprintName: string, server: string, needOAuth = true): { blueprint: Blueprint; declaration: McpServerDeclaration } {
    const blueprint = this.options.resolveBlueprint(blueprintName);
    if (!blueprint) throw new OAuthError('unknown_blueprint', `blueprint '${blueprintName}' is not registered`);
    const declaration = blueprint.mcp[server];
    if (!declaration) throw new OAuthError('unknown_mcp_server', `blueprint '${blueprintName}' declares no mcp server '${server}'`);
    if (needOAuth && declaration.auth?.type !== 'oauth2') throw new OAuthError('not_oauth', `mcp server '${server}' of blueprint '${blueprintName}' has no \`auth: {type: oauth2}\` block`);
    return { blueprint, declaration };
  }

  /** A Blueprint `auth` field with `${secrets.NAME}` resolved from the secret store. */
  resolve(blueprint: Blueprint, value: string | undefined, field: string): string | undefined {
    if (value === undefined) return undefined;
    return value.replace(/\$\{secrets\.([A-Za-z0-9_]+)\}/g, (_, name: string) => {
      const declared = blueprint.declarations.secrets.get(name);
      const found = declared?.source === 'store' ? this.options.store.get(declared.key) : undefined;
      if (found === undefined) throw new OAuthError('secret_resolve', `auth.${field} references \${secrets.${name}}, which has no value in the secret store`);
      return found;
    });
  }

  /** The provider registration matching a host, if any. */
  provider(host: string): OAuthProvider | undefined {
    return this.options.providers.find((p) => p.match === host);
  }

  /** A provider's client secret: literal, `${env.VAR}` or `${secrets.KEY}`, resolved on each use. */
  clientSecret(provider: OAuthProvider | undefined): string | undefined {
    const raw = provider?.clientSecret;
    if (raw === undefined) return undefined;
    const env = /^\$\{env\.([^}]+)\}$/.exec(raw);
    if (env) return (this.options.env ?? process.env)[env[1]];
    const secret = /^\$\{secrets\.([^}]+)\}$/.exec(raw);
    if (secret) return this.options.store.get(secret[1]);
    return raw;
  }

  credential(blueprint: string, server: string): Credential | null {
    if (!this.options.store.enabled) return null;
    let text: string | undefined;
    try {
      text = this.options.store.get(credentialKey(blueprint, server), RESERVED);
    } catch (error) {
      throw new OAuthError('store_error', `the OAuth credential could not be read: ${(error as Error).message}`);
    }
    if (text === undefined) return null;
    try {
      return JSON.parse(text) as Credential;
    } catch {
      throw new OAuthError('store_error', 'the stored OAuth credential is not valid JSON; store it again');
    }
  }

  /** A refresh token rotated by the token endpoint, written back over the old one. */
  rotate(blueprint: string, server: string, refreshToken: string): void {
    const current = this.credential(blueprint, server);
    if (!current?.refresh_token) return;
    this.options.store.put(credentialKey(blueprint, server), JSON.stringify({ ...current, refresh_token: refreshToken }), RESERVED);
  }

  state(blueprint: Blueprint): AuthState {
    const missing = Object.entries(blueprint.mcp)
      .filter(([, d]) => d.auth?.type === 'oauth2')
      .map(([name]) => name)
      .filter((name) => !this.options.store.enabled || !this.options.store.has(credentialKey(blueprint.name, name), RESERVED));
    return missing.length === 0 ? { state: 'active' } : { state: 'pending', unauthenticated: missing };
  }

  authStatus(blueprintName: string) {
    this.requireStore();
    const blueprint = this.options.resolveBlueprint(blueprintName);
    if (!blueprint) throw new OAuthError('unknown_blueprint', `blueprint '${blueprintName}' is not registered`);
    const servers = Object.entries(blueprint.mcp)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, d]) =>
        d.auth?.type === 'oauth2'
          ? { name, kind: 'oauth' as const, authenticated: this.options.store.has(credentialKey(blueprint.name, name), RESERVED) }
          : { name, kind: d.headers && Object.keys(d.headers).length > 0 ? ('static' as const) : ('none' as const) },
      );
    return { blueprint: blueprint.name, state: this.state(blueprint).state, servers };
  }

  /** Both endpoints: pinned in the Blueprint, or discovered from the server's metadata. */
  async endpoints(blueprint: Blueprint, declaration: McpServerDeclaration): Promise<ServerMetadata> {
    const auth = declaration.auth!;
    const authorization = this.resolve(blueprint, auth.authorization_endpoint, 'authorization_endpoint');
    const token = this.resolve(blueprint, auth.token_endpoint, 'token_endpoint');
    if (authorization && token) return { authorization_endpoint: authorization, token_endpoint: token };
    let found: ServerMetadata;
    try {
      found = await discoverMetadata(this.options.dispatcher, declaration.url);
    } catch (error) {
      const reason = error instanceof DiscoveryFailed ? error.message : `metadata could not be fetched: ${(error as Error).message}`;
      throw new OAuthError('discovery_failed', `OAuth discovery for ${declaration.url} failed: ${reason}`);
    }
    return { ...found, ...(authorization ? { authorization_endpoint: authorization } : {}), ...(token ? { token_endpoint: token } : {}) };
  }

  async authConfig(blueprintName: string, server: string, redirectUri: string | undefined) {
    this.requireStore();
    const { blueprint, declaration } = this.server(blueprintName, server);
    const auth = declaration.auth!;
    const metadata = await this.endpoints(blueprint, declaration);
    const provider = this.provider(hostOf(metadata.authorization_endpoint));
    let clientId = this.resolve(blueprint, auth.client_id, 'client_id') ?? provider?.clientId;
    if (!clientId && metadata.registration_endpoint && redirectUri) clientId = await this.register(metadata.registration_endpoint, redirectUri);
    if (!clientId && redirectUri) {
      throw new OAuthError('missing_client_id', `no client id for ${metadata.authorization_endpoint}: register a provider for ${hostOf(metadata.authorization_endpoint)} in mcp_oauth.providers, or set auth.client_id in the Blueprint`);
    }
    const scopes = auth.scopes?.length ? auth.scopes : provider?.scopes.length ? provider.scopes : metadata.scopes_supported;
    return {
      url: declaration.url,
      ...(clientId ? { client_id: clientId } : {}),
      authorization_endpoint: metadata.authorization_endpoint,
      token_endpoint: metadata.token_endpoint,
      ...(scopes?.length ? { scopes } : {}),
    };
  }

  /** RFC 7591 dynamic client registration of a public native client. */
  private async register(endpoint: string, redirectUri: string): Promise<string> {
    let answer;
    try {
      answer = await oauthRequest(this.options.dispatcher, endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'svc',
          token_endpoint_auth_method: 'none',
          application_type: 'native',
          response_types: ['code'],
          grant_types: ['authorization_code', 'refresh_token'],
          redirect_uris: [redirectUri],
        }),
      });
    } catch (error) {
      throw new OAuthError('registration_failed', `dynamic client registration at ${endpoint} failed: ${(error as Error).message}`);
    }
    const id = answer.body?.client_id;
    if ((answer.status !== 200 && answer.status !== 201) || typeof id !== 'string' || id === '') {
      throw new OAuthError('registration_failed', `dynamic client registration at ${endpoint} answered HTTP ${answer.status}: ${excerpt(answer.text)}`);
    }
    return id;
  }

  async exchange(blueprintName: string, server: string, request: { code: string; redirect_uri: string; code_verifier: string; client_id?: string }): Promise<AuthState> {
    this.requireStore();
    const { blueprint, declaration } = this.server(blueprintName, server);
    const metadata = await this.endpoints(blueprint, declaration);
    const provider = this.provider(hostOf(metadata.token_endpoint));
    const clientId = provider?.clientId ?? request.client_id;
    if (!clientId) throw new OAuthError('missing_client_id', `no client id for the token endpoint ${metadata.token_endpoint}: pass client_id, or register a provider for ${hostOf(metadata.token_endpoint)} in mcp_oauth.providers`);
    const secret = provider ? this.clientSecret(provider) : undefined;
    let answer;
    try {
      answer = await oauthRequest(this.options.dispatcher, metadata.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'authorization_code', code: request.code, redirect_uri: request.redirect_uri, client_id: clientId, code_verifier: request.code_verifier, client_secret: secret }),
      });
    } catch (error) {
      throw new OAuthError('exchange_failed', `the code exchange at ${metadata.token_endpoint} failed: ${(error as Error).message}`);
    }
    const body = answer.body ?? {};
    if (answer.status < 200 || answer.status >= 300 || 'error' in body) {
      throw new OAuthError('exchange_failed', `the token endpoint ${metadata.token_endpoint} refused the code: HTTP ${answer.status}${typeof body.error === 'string' ? ` ${body.error}` : ''}${typeof body.error_description === 'string' ? `: ${excerpt(body.error_description)}` : ''}`);
    }
    const scopes = declaration.auth?.scopes?.length ? declaration.auth.scopes : typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : (provider?.scopes ?? []);
    const credential: Credential =
      typeof body.refresh_token === 'string' && body.refresh_token !== ''
        ? { refresh_token: body.refresh_token, client_id: clientId, token_endpoint: metadata.token_endpoint, scopes }
        : typeof body.access_token === 'string' && body.access_token !== ''
          ? { access_token: body.access_token, client_id: clientId, token_endpoint: metadata.token_endpoint, scopes }
          : (() => {
              throw new OAuthError('exchange_failed', `the token endpoint ${metadata.token_endpoint} answered without access_token or refresh_token`);
            })();
    return this.store(blueprint, server, credential);
  }

  setCredential(blueprintName: string, server: string, body: { refresh_token?: string; access_token?: string; client_id?: string; token_endpoint?: string; scopes?: string[] }): AuthState {
    this.requireStore();
    const { blueprint, declaration } = this.server(blueprintName, server);
    const hasRefresh = typeof body.refresh_token === 'string' && body.refresh_token !== '';
    const hasAccess = typeof body.access_token === 'string' && body.access_token !== '';
    if (hasRefresh === hasAccess) throw new OAuthError('invalid_credential', 'provide exactly one of refresh_token or access_token');
    const tokenEndpoint = body.token_endpoint ?? this.resolve(blueprint, declaration.auth?.token_endpoint, 'token_endpoint');
    if (hasRefresh && !tokenEndpoint) throw new OAuthError('missing_token_endpoint', 'a refresh token needs token_endpoint (in the request or pinned in the Blueprint\'s auth block)');
    const clientId = body.client_id ?? this.resolve(blueprint, declaration.auth?.client_id, 'client_id');
    const credential: Credential = {
      ...(hasRefresh ? { refresh_token: body.refresh_token } : { access_token: body.access_token }),
      ...(clientId ? { client_id: clientId } : {}),
      ...(tokenEndpoint ? { token_endpoint: tokenEndpoint } : {}),
      scopes: body.scopes ?? declaration.auth?.scopes ?? [],
    };
    return this.store(blueprint, server, credential);
  }

  deleteCredential(blueprintName: string, server: string): AuthState {
    this.requireStore();
    const { blueprint } = this.server(blueprintName, server);
    const key = credentialKey(blueprint.name, server);
    if (!this.options.store.has(key, RESERVED)) throw new OAuthError('not_found', `no OAuth credential is stored for mcp server '${server}' of blueprint '${blueprint.name}'`);
    try {
      this.options.store.delete(key, RESERVED);
    } catch (error) {
      throw new OAuthError('store_error', `the OAuth credential could not be removed: ${(error as Error).message}`);
    }
    this.options.onCredentialChange?.(blueprint.name, server);
    return this.state(blueprint);
  }

  private store(blueprint: Blueprint, server: string, credential: Credential): AuthState {
    try {
      this.options.store.put(credentialKey(blueprint.name, server), JSON.stringify(credential), RESERVED);
    } catch (error) {
      if (error instanceof SecretStoreError && error.code === 'no_secret_store') throw new OAuthError('no_secret_store', 'no secret store is configured on this server, so OAuth tokens have nowhere to be kept');
      throw new OAuthError('store_error', `the OAuth credential could not be stored: ${(error as Error).message}`);
    }
    this.options.onCredentialChange?.(blueprint.name, server);
    return this.state(blueprint);
  }
}
