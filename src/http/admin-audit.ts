// The one middleware that writes the `admin` audit record of a mutating admin request when
// it completes, whatever its status (thrown HttpErrors included): principal, route, status,
// outcome plus the fields the handler noted with `noteAdminAudit`.
import type { Context, MiddlewareHandler } from 'hono';
import type { AuditWriter } from '../audit';
import type { AppEnv } from './types';

/** Placed after body validation: a request refused before the handler runs writes no record. */
export function adminAudit(audit: AuditWriter, event: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const note = c.get('adminAudit');
    const cancelled = c.get('cancelSignal')?.aborted === true;
    const status = c.res.status;
    audit.write({
      ...(note?.fields ?? {}),
      type: 'admin',
      event: note?.event ?? event,
      principal: c.get('principal')?.name ?? 'unauthenticated',
      route: new URL(c.req.url).pathname,
      status: cancelled ? 503 : status,
      outcome: cancelled ? 'cancelled' : status >= 200 && status < 300 ? 'ok' : 'error',
    });
  };
}

/** The event fields of this request's admin record; `event` when it depends on the request. */
export function noteAdminAudit(c: Context<AppEnv>, fields: Record<string, unknown>, event?: string): void {
  c.set('adminAudit', { fields, ...(event !== undefined ? { event } : {}) });
}
