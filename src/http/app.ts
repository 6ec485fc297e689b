// Assembles the HTTP API: drain guard, per-request cancel signal, authentication by path,
// then each resource's routes (route-table.ts lists them; the composition root,
// src/serve/boot.ts, hands over what each group needs), then 405/404 for what no route handled.
import { Hono } from 'hono';
import type { AuditWriter, AuthRecord, ServerLog } from '../audit';
import type { TokenEntry } from '../config';
import { authentication } from './auth';
import { errorResponder } from './errors';
import { mountRoutes, roleForPath, type RouteDependencies } from './route-table';
import { jsonBodyLimit } from './validation';
import { requestMetrics } from './request-metrics';
import type { AppEnv } from './types';

export interface AppOptions {
  tokens: readonly TokenEntry[];
  allowUnauthenticated: boolean;
  audit: AuditWriter;
  /** Coalesces repeated authentication refusals in the audit (default: each written). */
  authRefusals?: { refused(record: AuthRecord): void };
  log: ServerLog;
  /** True once the shutdown drain has started: new requests get 503. */
  draining: () => boolean;
  /** Signal aborted when in-flight handlers are cancelled at the end of the grace. */
  cancelSignal: AbortSignal;
  /** What each route group needs, by group name. */
  routes: RouteDependencies;
}

export function createApp(options: AppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', requestMetrics);
  app.use('*', async (c, next) => {
    if (options.draining()) {
      c.header('Connection', 'close');
      return c.text('the server is shutting down', 503);
    }
    c.set('cancelSignal', options.cancelSignal);
    return next();
  });
  app.use('*', authentication(options));
  app.use('/v1/*', jsonBodyLimit);

  mountRoutes(app, options.routes);

  app.notFound((c) => {
    const known = roleForPath(new URL(c.req.url).pathname) !== null;
    return known ? c.text('method not allowed', 405) : c.text('not found', 404);
  });
  app.onError(errorResponder(options.log));
  return app;
}
