// Builds the sessions capability for the composition root: the record store, the
// per-session directories, the idempotency ledger on the shared SQLite connection and
// the manager, then runs boot recovery and starts the reaper.
import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { ServerLog } from '../audit';
import { SessionDirectories } from './file-areas';
import { IDEMPOTENCY_LEDGER_SQL, IdempotencyLedger, type LedgerBounds } from './ledger';
import { SessionManager, type SessionBlueprint, type SessionManagerOptions } from './manager';
import { SessionRecordStore } from './record-store';

/** The manager's settings, passed on as they are, and what the services build its stores from. */
export interface SessionServicesOptions<B extends SessionBlueprint>
  extends Pick<SessionManagerOptions<B>, 'audit' | 'log' | 'resolveBlueprint' | 'onSessionEnded' | 'lastRunBytes' | 'sessionsPerToken' | 'reapIntervalMs'> {
  sessionStoreDir: string;
  vfsSessionDir: string;
  /** The server's SQLite connection; null runs without a ledger (guarded requests answer 503). */
  db: Database | null;
  /** Default: random UUIDs. */
  newId?: () => string;
  /** `max_idempotency_records`, `max_idempotency_session_size`, `max_idempotency_token_size` and `max_idempotency_size`. */
  ledgerBounds?: LedgerBounds;
}

export interface SessionServices<B extends SessionBlueprint> {
  sessions: SessionManager<B>;
  ledger: IdempotencyLedger | null;
}

/**
 * Call once Blueprints are loaded (recovery evicts sessions of missing Blueprints) and
 * before the listener accepts requests. Call `sessions.close()` at teardown.
 */
export function startSessionServices<B extends SessionBlueprint>(options: SessionServicesOptions<B>): SessionServices<B> {
  const newId = options.newId ?? randomUUID;
  // The ledger counts recorded answers per token: it asks the manager whose a session is.
  let sessions: SessionManager<B> | null = null;
  const ownerOf = (sessionId: string) => sessions?.ownerOf(sessionId);
  const ledger = options.db ? openLedger(options.db, newId, options.log, options.ledgerBounds, ownerOf) : null;
  sessions = new SessionManager<B>({
    records: new SessionRecordStore(options.sessionStoreDir),
    fileAreas: new SessionDirectories(options.vfsSessionDir),
    ledger,
    audit: options.audit,
    log: options.log,
    resolveBlueprint: options.resolveBlueprint,
    newId,
    onSessionEnded: options.onSessionEnded,
    lastRunBytes: options.lastRunBytes,
    sessionsPerToken: options.sessionsPerToken,
    reapIntervalMs: options.reapIntervalMs,
  });
  sessions.recover();
  sessions.start();
  return { sessions, ledger };
}

function openLedger(db: Database, newId: () => string, log: ServerLog, bounds: LedgerBounds | undefined, ownerOf: (sessionId: string) => string | undefined): IdempotencyLedger {
  // Also a store migration; `IF NOT EXISTS` makes applying it here harmless either way.
  db.exec(IDEMPOTENCY_LEDGER_SQL);
  return new IdempotencyLedger({ db, generation: randomUUID(), newId, log, bounds, ownerOf });
}
