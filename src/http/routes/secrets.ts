// Secret routes: store, list keys and delete. Values go in and
// never come back out; audit records carry the key only.
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { AuditWriter, ServerLog } from '../../audit';
import { SecretStoreError, type SecretStore } from '../../secrets';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import type { AppEnv } from '../types';
import { bodyOf, jsonBody } from '../validation';

export interface SecretRouteDependencies {
  store: SecretStore;
  audit: AuditWriter;
  log: ServerLog;
}

export const putBody = z.object({ key: z.string(), value: z.string() });
const STATUS: Record<string, ContentfulStatusCode> = { no_secret_store: 503, invalid_key: 400, invalid_value: 400, not_found: 404, key_mismatch: 500, internal_error: 500 };

export function mountSecretRoutes(app: Hono<AppEnv>, deps: SecretRouteDependencies): void {
  const { store, audit, log } = deps;
  const failure = (error: unknown): HttpError => {
    if (error instanceof SecretStoreError) return HttpError.of(STATUS[error.code] ?? 500, error.code, error.message);
    log.error('svc_server::secrets', 'secret store failure', { error: (error as Error).message });
    return HttpError.of(500, 'internal_error', 'the secret store failed; see the server log');
  };

  app.post('/v1/secrets', jsonBody(putBody), adminAudit(audit, 'secret_put'), (c) => {
    const { key, value } = bodyOf<z.infer<typeof putBody>>(c);
    noteAdminAudit(c, { key });
    try {
      store.put(key, value);
    } catch (error) {
      throw failure(error);
    }
    return c.json({ key });
  });

  app.get('/v1/secrets', (c) => {
    try {
      return c.json({ keys: store.list(c.req.query('prefix') ?? '') });
    } catch (error) {
      throw failure(error);
    }
  });

  app.delete('/v1/secrets/*', adminAudit(audit, 'secret_deleted'), (c) => {
    const raw = new URL(c.req.url).pathname.slice('/v1/secrets/'.length);
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      key = raw;
    }
    noteAdminAudit(c, { key });
    try {
      store.delete(key);
    } catch (error) {
      throw failure(error);
    }
    return c.json({ key });
  });
}
