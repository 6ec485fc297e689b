// Bearer-token authentication: hash the presented token and compare it in constant time
// with every configured digest (no early exit), then check the path's role. Every
// refusal writes an `auth` audit record; the token itself is never recorded.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AuditWriter, AuthRecord } from '../audit';
import { metrics } from '../metrics';
import { connectionAuthenticated } from './connections';
import type { TokenEntry } from '../config';
import { HttpError } from './errors';
import { roleForPath } from './route-table';
import type { AppEnv, Principal } from './types';
import { remoteAddress } from './remote-address';

export const UNAUTHENTICATED: Principal = { name: 'unauthenticated', role: 'admin' };

export type TokenCheck = { kind: 'missing' } | { kind: 'unknown' } | { kind: 'known'; principal: Principal };

/** Reads the single `Authorization: Bearer <token>` header; duplicates count as none. */
export function presentedToken(rawHeaders: string[]): string | null {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]);
  }
  if (values.length !== 1) return null;
  const match = /^bearer (.+)$/is.exec(values[0]);
  if (!match || match[1].length === 0) return null;
  return match[1];
}

export function identifyToken(tokens: readonly TokenEntry[], token: string | null): TokenCheck {
  if (token === null) return { kind: 'missing' };
  const digest = createHash('sha256').update(token, 'utf8').digest();
  let found: TokenEntry | null = null;
  for (const entry of tokens) {
    // Compare against every digest so timing does not reveal which entry matched.
    if (timingSafeEqual(digest, entry.digest) && found === null) found = entry;
  }
  return found ? { kind: 'known', principal: { name: found.name, role: found.role } } : { kind: 'unknown' };
}

const unauthorizedMessage =
  'send `Authorization: Bearer <token>` with a token this server was started with (SVC_SERVER_TOKEN or an api_tokens entry)';

export function authentication(options: {
  tokens: readonly TokenEntry[];
  allowUnauthenticated: boolean;
  audit: AuditWriter;
  /** Coalesces repeated refusals (src/audit/auth-refusals.ts); without it each is written. */
  authRefusals?: { refused(record: AuthRecord): void };
}): MiddlewareHandler<AppEnv> {
  const refusals = options.authRefusals ?? { refused: (record: AuthRecord) => options.audit.write(record) };
  return async (c, next) => {
    const pathname = new URL(c.req.url).pathname;
    const needed = roleForPath(pathname);
    if (needed === null) return c.text('not found', 404);
    if (needed === 'none') return next();
    if (options.allowUnauthenticated) {
      connectionAuthenticated(c.env?.incoming?.socket);
      c.set('principal', UNAUTHENTICATED);
      return next();
    }
    const incoming = c.env.incoming;
    const check = identifyToken(options.tokens, presentedToken(incoming.rawHeaders));
    const refuse = (reason: 'missing_token' | 'unknown_token' | 'admin_required') => {
      metrics.authRefusals.inc({ reason });
      refusals.refused({ type: 'auth', event: 'refused', reason, route: pathname, remote_address: remoteAddress(incoming.socket) });
    };
    if (check.kind !== 'known') {
      refuse(check.kind === 'missing' ? 'missing_token' : 'unknown_token');
      c.header('WWW-Authenticate', 'Bearer');
      throw HttpError.of(401, 'unauthorized', unauthorizedMessage);
    }
    if (needed === 'admin' && check.principal.role !== 'admin') {
      refuse('admin_required');
      throw HttpError.of(403, 'forbidden', `this endpoint needs the admin role; the token sent (${check.principal.name}) has the user role`);
    }
    connectionAuthenticated(incoming.socket);
    // Nothing downstream may log the credential.
    delete incoming.headers.authorization;
    c.set('principal', check.principal);
    return next();
  };
}
