// GET /metrics (admin): the Prometheus text exposition of src/metrics.
import type { Hono } from 'hono';
import { registry } from '../../metrics';
import { defineRoute, serve } from '../route';
import type { AppEnv } from '../types';

export const metricsRoute = defineRoute({ method: 'get', path: '/metrics', role: 'admin', hidden: true });

export function mountMetricsRoute(app: Hono<AppEnv>): void {
  serve(app, metricsRoute, async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
}
