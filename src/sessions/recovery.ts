// Boot recovery of sessions: every stored record is reloaded, evicted (its Blueprint is
// gone), expired (idle past the current timeout) or lost (its per-session files are gone);
// orphan per-session directories are swept and the idempotency ledger is fixed up.
import type { ServerLog, SessionAuditRecord } from '../audit';
import type { SessionFileAreas } from './file-areas';
import type { FilledVfs } from '../blueprints';
import type { IdempotencyLedger } from './ledger';
import type { SessionRecord, SessionRecordStore } from './record-store';

export interface RecoverySummary {
  found: number;
  lost: number;
  evicted: number;
  expired: number;
  malformed: number;
  swept: number;
}

/** What recovery needs from the session manager and its stores. */
export interface RecoveryContext {
  records: SessionRecordStore;
  fileAreas: SessionFileAreas;
  ledger: IdempotencyLedger | null;
  log: ServerLog;
  now: () => number;
  /** `idle_timeout` of the Blueprint version in force, in seconds; null when it is gone. */
  idleTimeoutOf: (blueprint: string) => number | null;
  /** Takes a record back as an open session. */
  reopen: (record: SessionRecord) => void;
  /** Ids of the sessions open after reloading. */
  openIds: () => Iterable<string>;
  /** Drops a record with its files, ledger rows and other capabilities' state. */
  discard: (record: SessionRecord) => void;
  removeFiles: (sessionId: string) => void;
  audit: (record: SessionAuditRecord) => void;
}

export function recoverSessions(context: RecoveryContext): RecoverySummary {
  const summary: RecoverySummary = { found: 0, lost: 0, evicted: 0, expired: 0, malformed: 0, swept: 0 };
  const keepDirectories = new Set<string>();
  context.records.prepare();
  for (const loaded of context.records.loadAll()) {
    if (!loaded.ok) {
      summary.malformed += 1;
      keepDirectories.add(loaded.file.replace(/\.json$/, ''));
      context.log.warn('svc_server::sessions', 'skipping a malformed session record', { file: loaded.file, error: loaded.reason });
      continue;
    }
    summary[recoverOne(context, loaded.record)] += 1;
  }
  const open = new Set(context.openIds());
  for (const id of open) keepDirectories.add(id);
  for (const directory of context.fileAreas.list()) {
    if (keepDirectories.has(directory)) continue;
    context.removeFiles(directory);
    summary.swept += 1;
  }
  recoverLedger(context, open);
  context.log.info('svc_server::sessions', 'sessions recovered', { ...summary });
  return summary;
}

function recoverOne(context: RecoveryContext, record: SessionRecord): 'found' | 'lost' | 'evicted' | 'expired' {
  const base = { type: 'session' as const, session_id: record.session_id, principal: record.principal };
  const idleTimeoutSecs = context.idleTimeoutOf(record.blueprint);
  if (idleTimeoutSecs === null) {
    context.discard(record);
    context.audit({ ...base, event: 'evicted', reason: 'blueprint_deleted', blueprint: record.blueprint });
    return 'evicted';
  }
  if (context.now() - record.last_activity_ms > idleTimeoutSecs * 1000) {
    context.discard(record);
    context.audit({ ...base, event: 'expired', reason: 'idle_timeout' });
    return 'expired';
  }
  if (fileAreaOf(record).mode === 'per_session' && !context.fileAreas.exists(record.session_id)) {
    context.discard(record);
    context.audit({ ...base, event: 'lost', reason: 'workspace_missing' });
    return 'lost';
  }
  context.reopen(record);
  context.audit({ ...base, event: 'found', blueprint: record.blueprint });
  return 'found';
}

function recoverLedger(context: RecoveryContext, open: ReadonlySet<string>): void {
  if (!context.ledger) return;
  try {
    context.ledger.recoverAtBoot(new Set(open));
  } catch (error) {
    // Guarded requests will answer idempotency_unavailable if the ledger stays broken.
    context.log.error('svc_server::sessions', 'could not recover the idempotency ledger', { error: (error as Error).message });
  }
}

/** The record's file area; an unreadable one counts as ephemeral (nothing to keep on disk). */
export function fileAreaOf(record: SessionRecord): FilledVfs {
  const area = record.file_area as FilledVfs | null | undefined;
  return area && typeof area === 'object' && typeof area.mode === 'string' ? area : { mode: 'ephemeral', cwd: '/', mounts: {} };
}
