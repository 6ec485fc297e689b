// Secret routes (server-operations §4.4): store, list keys and delete. Values go in and
// never come back out; audit records carry the key only.
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { AuditWriter, ServerLog } from '../../audit';
import { SecretStoreError, type SecretStore } from '../../secrets';
import { writeAdminAudit } from '../admin-audit';
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
  const failure = (error: unknown) => {
    if (error instanceof SecretStoreError) return { status: STATUS[error.code] ?? 500, body: { error: error.code, message: error.message } };
    log.error('svc_server::secrets', 'secret store failure', { error: (error as Error).message });
    return { status: 500 as ContentfulStatusCode, body: { error: 'internal_error', message: 'the secret store failed; see the server log' } };
  };

  app.post('/v1/secrets', jsonBody(putBody), (c) => {
    const { key, value } = bodyOf<z.infer<typeof putBody>>(c);
    try {
      store.put(key, value);
    } catch (error) {
      const { status, body } = failure(error);
      writeAdminAudit(audit, c, 'secret_put', status, { key });
      return c.json(body, status);
    }
    writeAdminAudit(audit, c, 'secret_put', 200, { key });
    return c.json({ key });
  });

  app.get('/v1/secrets', (c) => {
    try {
      return c.json({ keys: store.list(c.req.query('prefix') ?? '') });
    } catch (error) {
      const { status, body } = failure(error);
      return c.json(body, status);
    }
  });

  app.delete('/v1/secrets/*', (c) => {
    const raw = new URL(c.req.url).pathname.slice('/v1/secrets/'.length);
    let key: string;
    try {
      key = decodeURIComponent(raw);
    } catch {
      key = raw;
    }
    try {
      store.delete(key);
    } catch (error) {
      const { status, body } = failure(error);
      writeAdminAudit(audit, c, 'secret_deleted', status, { key });
      return c.json(body, status);
    }
    writeAdminAudit(audit, c, 'secret_deleted', 200, { key });
    return c.json({ key });
  });
}
