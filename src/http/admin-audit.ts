// Writes the one `admin` audit record a mutating admin request produces when it
// completes (whatever its status): principal, route, status, outcome plus event fields.
import type { Context } from 'hono';
import type { AuditWriter } from '../audit';
import type { AppEnv } from './types';

export function writeAdminAudit(
  audit: AuditWriter,
  c: Context<AppEnv>,
  event: string,
  status: number,
  fields: Record<string, unknown> = {},
): void {
  const cancelled = c.get('cancelSignal')?.aborted === true;
  audit.write({
    ...fields,
    type: 'admin',
    event,
    principal: c.get('principal')?.name ?? 'unauthenticated',
    route: new URL(c.req.url).pathname,
    status: cancelled ? 503 : status,
    outcome: cancelled ? 'cancelled' : status >= 200 && status < 300 ? 'ok' : 'error',
  });
}
