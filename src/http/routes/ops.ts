// Operations endpoints: liveness (`/healthz`, no token), status, declared volumes and shutdown (admin).
import type { Hono } from 'hono';
import type { AuditWriter } from '../../audit';
import { adminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody, ShutdownAccepted, Status, VolumeList } from '../schemas';
import type { AppEnv } from '../types';

export interface OpsDependencies {
  audit: AuditWriter;
  boundAddress: () => string;
  activeSessions: () => number;
  blueprintNames: () => string[];
  /** Names of the volumes the server's configuration declares. */
  volumeNames: () => string[];
  /** Usage counters (svc extension of the status body), e.g. discovery lookups. */
  counters?: () => Record<string, number>;
  /** Model and embedding tokens spent and reserved against the server budgets. */
  tokenBudgets?: () => Record<string, unknown>;
  /** How runner processes are confined (svc extension): README "How a run is contained". */
  runnerSandbox?: () => { level: string; features: string[]; missing: string[] };
  /** Starts the drain after the response has been sent. */
  requestShutdown: (trigger: 'api') => void;
}

export const opsRoutes = {
  healthz: defineRoute({ method: 'get', path: '/healthz', role: 'none', hidden: true }),
  status: defineRoute({ method: 'get', path: '/v1/status', role: 'admin', tag: 'ops', summary: 'Server status', responses: { 200: json(Status, 'Running'), 500: json(ErrorBody, 'Storage unavailable') } }),
  shutdown: defineRoute({ method: 'post', path: '/v1/shutdown', role: 'admin', tag: 'ops', summary: 'Drain and exit', responses: { 200: json(ShutdownAccepted, 'The drain starts after this response') } }),
  volumes: defineRoute({ method: 'get', path: '/v1/volumes', role: 'admin', tag: 'ops', summary: 'Declared volume names', responses: { 200: json(VolumeList, 'Sorted names') } }),
};

export function mountOpsRoutes(app: Hono<AppEnv>, deps: OpsDependencies): void {
  serve(app, opsRoutes.healthz, (c) => c.body(null, 200));

  serve(app, opsRoutes.status, (c) => {
    let blueprints: string[];
    try {
      blueprints = [...deps.blueprintNames()].sort();
    } catch {
      throw HttpError.of(500, 'internal_error', 'blueprint store unavailable');
    }
    return c.json({
      status: 'running',
      bind_addr: deps.boundAddress(),
      pid: process.pid,
      active_sessions: deps.activeSessions(),
      blueprints,
      ...(deps.counters ? { lookups: deps.counters() } : {}),
      ...(deps.tokenBudgets ? { token_budgets: deps.tokenBudgets() } : {}),
      ...(deps.runnerSandbox ? { runner_sandbox: deps.runnerSandbox() } : {}),
    });
  });

  serve(app, opsRoutes.volumes, (c) => c.json({ volumes: [...deps.volumeNames()].sort() }));

  serve(app, opsRoutes.shutdown, adminAudit(deps.audit, 'shutdown_requested'), (c) => {
    // Deliver the response first; the drain starts right after.
    setImmediate(() => deps.requestShutdown('api'));
    return c.json({ status: 'shutting-down' }, 200);
  });
}
