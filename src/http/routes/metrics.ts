// GET /metrics (admin): the Prometheus text exposition of src/metrics.
import type { Hono } from 'hono';
import { registry } from '../../metrics';
import type { AppEnv } from '../types';

export function mountMetricsRoute(app: Hono<AppEnv>): void {
  app.get('/metrics', async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
}
