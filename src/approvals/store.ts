// Approvals in SQLite, so they survive a restart: one row each, the answer written once (a
// pending row is decided by a conditional update, so two answers cannot both win). Rows
// that are answered are kept APPROVAL_RETENTION_MS, then swept.
import type { Database } from '../store';
import type { Approval, ApprovalFilter, ApprovalScope, ApprovalState } from './approval';

/** Answered or expired approvals are kept this long for GET /v1/approvals, then deleted. */
export const APPROVAL_RETENTION_MS = 7 * 86_400_000;
/** A listing shows at most this many (newest first). */
export const MAX_LISTED = 500;

// The table is created here (not as a numbered migration) so other state added to the
// database in parallel cannot collide with it; IF NOT EXISTS keeps it idempotent.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS approvals (
  approval_id   TEXT    PRIMARY KEY,
  execution_id  TEXT    NOT NULL,
  session_id    TEXT    NOT NULL,
  blueprint     TEXT    NOT NULL,
  token_name    TEXT    NOT NULL,
  caller        TEXT    NOT NULL,
  capability    TEXT    NOT NULL,
  context_json  TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired')),
  scope         TEXT    NOT NULL CHECK (scope IN ('call', 'run')),
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  decided_at_ms INTEGER,
  decided_by    TEXT,
  reason        TEXT
);
CREATE INDEX IF NOT EXISTS approvals_by_state ON approvals (state, created_at_ms);
CREATE INDEX IF NOT EXISTS approvals_by_execution ON approvals (execution_id);`;

/** A stored approval: the API's fields as they are, times in epoch milliseconds, the context as JSON. */
type Row = Pick<Approval, 'approval_id' | 'execution_id' | 'session_id' | 'blueprint' | 'token_name' | 'caller' | 'capability' | 'state' | 'scope' | 'decided_by' | 'reason'> & {
  context_json: string;
  created_at_ms: number;
  expires_at_ms: number;
  decided_at_ms: number | null;
};

function toApproval(row: Row): Approval {
  let context: Record<string, unknown>;
  try {
    context = JSON.parse(row.context_json) as Record<string, unknown>;
  } catch {
    context = {};
  }
  return {
    approval_id: row.approval_id,
    execution_id: row.execution_id,
    session_id: row.session_id,
    blueprint: row.blueprint,
    token_name: row.token_name,
    caller: row.caller,
    capability: row.capability,
    context,
    line: null,
    state: row.state,
    created_at: new Date(row.created_at_ms).toISOString(),
    expires_at: new Date(row.expires_at_ms).toISOString(),
    decided_at: row.decided_at_ms === null ? null : new Date(row.decided_at_ms).toISOString(),
    decided_by: row.decided_by,
    reason: row.reason,
    scope: row.scope,
  };
}

export class ApprovalStore {
  constructor(private readonly db: Database) {
    db.exec(SCHEMA);
  }

  insert(approval: Omit<Row, 'state' | 'scope' | 'decided_at_ms' | 'decided_by' | 'reason'>): Approval {
    const row: Row = { ...approval, state: 'pending', scope: 'call', decided_at_ms: null, decided_by: null, reason: null };
    this.db
      .prepare(
        `INSERT INTO approvals (approval_id, execution_id, session_id, blueprint, token_name, caller, capability, context_json, state, scope, created_at_ms, expires_at_ms)
         VALUES (@approval_id, @execution_id, @session_id, @blueprint, @token_name, @caller, @capability, @context_json, @state, @scope, @created_at_ms, @expires_at_ms)`,
      )
      .run(row);
    return toApproval(row);
  }

  get(id: string): Approval | null {
    const row = this.db.prepare('SELECT * FROM approvals WHERE approval_id = ?').get(id) as Row | undefined;
    return row ? toApproval(row) : null;
  }

  /** Settles a pending approval; null when it was no longer pending (someone answered first, or it expired). */
  settle(id: string, state: Exclude<ApprovalState, 'pending'>, at: number, by: string | null, reason: string | null, scope: ApprovalScope): Approval | null {
    const changed = this.db
      .prepare("UPDATE approvals SET state = ?, decided_at_ms = ?, decided_by = ?, reason = ?, scope = ? WHERE approval_id = ? AND state = 'pending'")
      .run(state, at, by, reason, scope, id).changes;
    return changed === 1 ? this.get(id) : null;
  }

  list(filter: ApprovalFilter): Approval[] {
    const where: string[] = ['state = @state'];
    const params: Record<string, unknown> = { state: filter.state ?? 'pending', limit: Math.min(filter.limit ?? MAX_LISTED, MAX_LISTED) };
    for (const key of ['blueprint', 'session_id', 'execution_id'] as const) {
      if (filter[key] === undefined) continue;
      where.push(`${key} = @${key}`);
      params[key] = filter[key];
    }
    const rows = this.db.prepare(`SELECT * FROM approvals WHERE ${where.join(' AND ')} ORDER BY created_at_ms DESC, rowid DESC LIMIT @limit`).all(params) as Row[];
    return rows.map(toApproval);
  }

  /** Every pending approval (their expiry timers are armed again after a restart). */
  pending(): Array<{ approval_id: string; expires_at_ms: number }> {
    return this.db.prepare("SELECT approval_id, expires_at_ms FROM approvals WHERE state = 'pending'").all() as Array<{ approval_id: string; expires_at_ms: number }>;
  }

  /** Deletes answered approvals decided before `before` (ms). */
  sweep(before: number): number {
    return this.db.prepare("DELETE FROM approvals WHERE state != 'pending' AND decided_at_ms < ?").run(before).changes;
  }
}
