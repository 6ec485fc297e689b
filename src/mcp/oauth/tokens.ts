// The process-wide token manager: access
// tokens cached per (Blueprint, server) behind a per-key lock so concurrent misses share
// one refresh; rotation written back; `invalid_grant` retried after 1 s and 2 s, then the
// login is expired (the credential is kept for the operator to replace).
import type { Dispatcher } from 'undici';
import { McpAuthExpiredError } from '../client/calls';
import { excerpt, form, oauthRequest } from './http';
import type { OAuthService } from './service';

const EARLY_MS = 60_000;
const DEFAULT_TTL_MS = 300_000;
const STATIC_TTL_MS = 3_600_000;
const INVALID_GRANT_DELAYS_MS = [1000, 2000];

interface Cached {
  token: string;
  expiresAt: number;
}

export interface TokenManagerOptions {
  service: OAuthService;
  dispatcher: Dispatcher;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class TokenManager {
  private readonly cache = new Map<string, Cached>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: TokenManagerOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.locks.set(key, next);
    void next.finally(() => {
      if (this.locks.get(key) === next) this.locks.delete(key);
    }).catch(() => undefined);
    return next;
  }

  /** Forgets the cached access token (a credential was stored or removed). */
  clear(blueprint: string, server: string): Promise<void> {
    const key = `${blueprint}\u0000${server}`;
    return this.withLock(key, async () => {
      this.cache.delete(key);
    });
  }

  /**
   * A bearer token for the server, or null when no credential is stored. `failed` is a
   * token the server just refused: it is not reused, and callers passing the same failed
   * token share one refresh.
   */
  token(blueprint: string, server: string, failed?: string): Promise<string | null> {
    const key = `${blueprint}\u0000${server}`;
    return this.withLock(key, async () => {
      const cached = this.cache.get(key);
      if (cached && cached.token !== failed && this.now() + EARLY_MS < cached.expiresAt) return cached.token;
      const credential = this.options.service.credential(blueprint, server);
      if (!credential) return null;
      if (credential.access_token) {
        this.cache.set(key, { token: credential.access_token, expiresAt: this.now() + STATIC_TTL_MS });
        return credential.access_token;
      }
      const fresh = await this.refresh(blueprint, server, credential.refresh_token!, credential.client_id, credential.token_endpoint, credential.scopes);
      this.cache.set(key, fresh);
      return fresh.token;
    });
  }

  private async refresh(blueprint: string, server: string, refreshToken: string, clientId: string | undefined, tokenEndpoint: string | undefined, scopes: string[]): Promise<Cached> {
    if (!tokenEndpoint) throw new Error(`the OAuth credential of ${server} has no token endpoint; store it again with token_endpoint`);
    const service = this.options.service;
    const provider = service.provider(new URL(tokenEndpoint).hostname.toLowerCase());
    for (let attempt = 0; ; attempt++) {
      const answer = await oauthRequest(this.options.dispatcher, tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, client_secret: service.clientSecret(provider), scope: scopes.length ? scopes.join(' ') : undefined }),
      });
      const body = answer.body ?? {};
      if (body.error === 'invalid_grant') {
        if (attempt < INVALID_GRANT_DELAYS_MS.length) {
          await this.sleep(INVALID_GRANT_DELAYS_MS[attempt]);
          continue;
        }
        throw new McpAuthExpiredError(`the OAuth login failed (invalid_grant): the operator must authenticate the server again (svc mcp authenticate ${blueprint} ${server})`);
      }
      if (answer.status < 200 || answer.status >= 300) throw new Error(`the token endpoint answered HTTP ${answer.status}: ${excerpt(answer.text)}`);
      if (typeof body.access_token !== 'string' || body.access_token === '') throw new Error('the token endpoint answered without an access_token (malformed response)');
      if (typeof body.refresh_token === 'string' && body.refresh_token !== '' && body.refresh_token !== refreshToken) service.rotate(blueprint, server, body.refresh_token);
      const seconds = typeof body.expires_in === 'number' ? body.expires_in : typeof body.expires_in === 'string' && /^\d+$/.test(body.expires_in) ? Number(body.expires_in) : null;
      return { token: body.access_token, expiresAt: this.now() + (seconds !== null ? seconds * 1000 : DEFAULT_TTL_MS) };
    }
  }
}
