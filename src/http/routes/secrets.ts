// Secret routes: store, list keys and delete. Values go in and
// never come back out; audit records carry the key only.
import type { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from '@hono/zod-openapi';
import type { AuditWriter, ServerLog } from '../../audit';
import { SecretStoreError, type SecretStore } from '../../secrets';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody, SecretKey, SecretKeys } from '../schemas';
import type { AppEnv } from '../types';

export interface SecretRouteDependencies {
  store: SecretStore;
  audit: AuditWriter;
  log: ServerLog;
}

export const putBody = z.object({ key: z.string(), value: z.string() }).openapi('PutSecretRequest');

const noStore = json(ErrorBody, '`no_secret_store`');
export const secretRoutes = {
  put: defineRoute({ method: 'post', path: '/v1/secrets', role: 'admin', tag: 'secrets', summary: 'Store a secret (never returned)', body: putBody,
    responses: { 200: json(SecretKey, 'Stored'), 400: json(ErrorBody, '`invalid_key` or `invalid_value`'), 500: json(ErrorBody, 'Store failure'), 503: noStore } }),
  list: defineRoute({ method: 'get', path: '/v1/secrets', role: 'admin', tag: 'secrets', summary: 'Secret keys',
    query: z.object({ prefix: z.string().optional().openapi({ param: { description: 'Only keys starting with this' } }) }),
    responses: { 200: json(SecretKeys, 'Byte-sorted keys'), 503: noStore } }),
  delete: defineRoute({ method: 'delete', path: '/v1/secrets/{key}', rest: true, role: 'admin', tag: 'secrets', summary: 'Remove a secret (`/` allowed in the key, raw or `%2F`)',
    responses: { 200: json(SecretKey, 'Removed'), 400: json(ErrorBody, '`invalid_key`'), 404: json(ErrorBody, '`not_found`'), 503: noStore } }),
};
const STATUS: Record<string, ContentfulStatusCode> = { no_secret_store: 503, invalid_key: 400, invalid_value: 400, not_found: 404, key_mismatch: 500, internal_error: 500 };

export function mountSecretRoutes(app: Hono<AppEnv>, deps: SecretRouteDependencies): void {
  const { store, audit, log } = deps;
  const failure = (error: unknown): HttpError => {
    if (error instanceof SecretStoreError) return HttpError.of(STATUS[error.code] ?? 500, error.code, error.message);
    log.error('svc_server::secrets', 'secret store failure', { error: (error as Error).message });
    return HttpError.of(500, 'internal_error', 'the secret store failed; see the server log');
  };

  serve(app, secretRoutes.put, adminAudit(audit, 'secret_put'), (c, { body: { key, value } }) => {
    noteAdminAudit(c, { key });
    try {
      store.put(key, value);
    } catch (error) {
      throw failure(error);
    }
    return c.json({ key });
  });

  serve(app, secretRoutes.list, (c) => {
    try {
      return c.json({ keys: store.list(c.req.query('prefix') ?? '') });
    } catch (error) {
      throw failure(error);
    }
  });

  serve(app, secretRoutes.delete, adminAudit(audit, 'secret_deleted'), (c, { params: { key } }) => {
    noteAdminAudit(c, { key });
    try {
      store.delete(key);
    } catch (error) {
      throw failure(error);
    }
    return c.json({ key });
  });
}
