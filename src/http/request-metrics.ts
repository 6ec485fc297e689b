// Counts every request by method, matched route pattern (never the raw path, which would
// carry ids and names) and status, and times its handling.
import type { MiddlewareHandler } from 'hono';
import { metrics } from '../metrics';
import type { AppEnv } from './types';

export const requestMetrics: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    // After next() the route pattern is that of the last handler that ran.
    const route = c.req.routePath || 'unmatched';
    metrics.httpRequests.inc({ method: c.req.method, route, status: String(c.res.status) });
    metrics.httpDuration.observe({ route }, (performance.now() - started) / 1000);
  }
};
