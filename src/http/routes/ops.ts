// Operations endpoints: liveness (`/healthz`, no token), status and shutdown (admin).
import type { Hono } from 'hono';
import type { AuditWriter } from '../../audit';
import { adminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import type { AppEnv } from '../types';

export interface OpsDependencies {
  audit: AuditWriter;
  boundAddress: () => string;
  activeSessions: () => number;
  blueprintNames: () => string[];
  /** Usage counters (svc extension of the status body), e.g. discovery lookups. */
  counters?: () => Record<string, number>;
  /** Model and embedding tokens spent and reserved against the server budgets. */
  tokenBudgets?: () => Record<string, unknown>;
  /** Starts the drain after the response has been sent. */
  requestShutdown: (trigger: 'api') => void;
}

export function mountOpsRoutes(app: Hono<AppEnv>, deps: OpsDependencies): void {
  app.get('/healthz', (c) => c.body(null, 200));

  app.get('/v1/status', (c) => {
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
    });
  });

  app.post('/v1/shutdown', adminAudit(deps.audit, 'shutdown_requested'), (c) => {
    // Deliver the response first; the drain starts right after.
    setImmediate(() => deps.requestShutdown('api'));
    return c.json({ status: 'shutting-down' }, 200);
  });
}
