// The idempotency ledger: one SQLite row per (session, key) holding
// the recorded status and exact body bytes, plus in-process claims so a concurrent
// duplicate waits for the original instead of running twice. Rows are kept within a count
// and a byte budget per session and a byte budget server-wide, oldest dropped first.
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { ServerLog } from '../audit';

/** The ledger table, applied as a store migration (see `IDEMPOTENCY_LEDGER_MIGRATION`). */
export const IDEMPOTENCY_LEDGER_SQL = `
CREATE TABLE IF NOT EXISTS idempotent_requests (
  session_id       TEXT    NOT NULL,
  request_key      TEXT    NOT NULL CHECK (length(CAST(request_key AS BLOB)) BETWEEN 1 AND 120),
  fingerprint      TEXT    NOT NULL,
  reservation_id   TEXT    NOT NULL UNIQUE,
  owner_generation TEXT    NOT NULL,
  created_at_ms    INTEGER NOT NULL,
  state            TEXT    NOT NULL CHECK (state IN ('reserved', 'completed', 'indeterminate')),
  response_status  INTEGER,
  response_body    BLOB,
  PRIMARY KEY (session_id, request_key),
  CHECK ((state = 'completed') = (response_status BETWEEN 100 AND 599 AND response_body IS NOT NULL))
);`;

export const IDEMPOTENCY_LEDGER_MIGRATION = { name: 'idempotency_ledger', sql: IDEMPOTENCY_LEDGER_SQL } as const;

export const IDEMPOTENCY_WAIT_MS = 300_000;
const MAX_KEY_BYTES = 120;

export type IdempotencyErrorCode = 'idempotency_conflict' | 'idempotency_incomplete' | 'idempotency_in_progress' | 'idempotency_unavailable' | 'idempotency_key_invalid';

/** A refusal of the ledger; the route answers `{execution_id, error, session_id, detail}`. */
export class IdempotencyError extends Error {
  readonly status: 400 | 409 | 503;

  constructor(
    readonly code: IdempotencyErrorCode,
    detail: string,
  ) {
    super(detail);
    this.name = 'IdempotencyError';
    this.status = code === 'idempotency_key_invalid' ? 400 : code === 'idempotency_conflict' || code === 'idempotency_incomplete' ? 409 : 503;
  }
}

/**
 * Checks the `Idempotency-Key` header from the raw header list (Node joins duplicates, so
 * the parsed value cannot tell). Returns null when absent.
 */
export function idempotencyKeyFrom(rawHeaders: readonly string[]): string | null {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'idempotency-key') values.push(rawHeaders[i + 1]);
  }
  if (values.length === 0) return null;
  if (values.length > 1) throw new IdempotencyError('idempotency_key_invalid', 'the Idempotency-Key header was sent more than once; send it exactly once');
  const key = values[0];
  if (key.length === 0) throw new IdempotencyError('idempotency_key_invalid', 'the Idempotency-Key header is empty; use 1 to 120 printable ASCII characters');
  if (!/^[\x20-\x7e]+$/.test(key)) throw new IdempotencyError('idempotency_key_invalid', 'the Idempotency-Key header contains a byte outside printable ASCII (0x20-0x7E)');
  if (Buffer.byteLength(key, 'latin1') > MAX_KEY_BYTES) {
    throw new IdempotencyError('idempotency_key_invalid', `the Idempotency-Key header is ${Buffer.byteLength(key, 'latin1')} bytes; at most ${MAX_KEY_BYTES} are allowed`);
  }
  return key;
}

/** Lower-case hex SHA-256 of the code's UTF-8 bytes. */
export function codeFingerprint(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

type ClaimOutcome = { kind: 'completed'; status: number; body: Buffer } | { kind: 'abandoned' } | { kind: 'released' };

interface Claim {
  fingerprint: string;
  settled: Promise<ClaimOutcome>;
  settle: (outcome: ClaimOutcome) => void;
  outcome?: ClaimOutcome;
}

interface LedgerRow {
  fingerprint: string;
  state: 'reserved' | 'completed' | 'indeterminate';
  owner_generation: string;
  response_status: number | null;
  response_body: Buffer | null;
}

export type LedgerDecision = { kind: 'run'; reservation: Reservation } | { kind: 'replay'; status: number; body: Buffer };

/** The right to run one guarded request; exactly one of its methods resolves it. */
export interface Reservation {
  /** The program was dispatched: hand the response to waiters, then record it. */
  complete(status: number, body: Buffer): void;
  /** The run ended before dispatch: nothing is recorded and the key may be used again. */
  release(): void;
  /** The handler failed without an outcome: waiters see `idempotency_incomplete`. */
  abandon(): void;
}

/** How much the ledger keeps; past a bound the oldest rows go (a retry with their key runs again). */
export interface LedgerBounds {
  /** Rows one session keeps (`max_idempotency_records`). */
  recordsPerSession: number;
  /** Bytes of recorded answers one session keeps (`max_idempotency_session_size`). */
  bytesPerSession: number;
  /** Bytes of recorded answers all sessions keep together (`max_idempotency_size`). */
  totalBytes: number;
}

export const DEFAULT_LEDGER_BOUNDS: LedgerBounds = { recordsPerSession: 1_000, bytesPerSession: 64 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024 };

interface StoredRow {
  id: number;
  request_key: string;
  state: LedgerRow['state'];
  bytes: number;
}

export interface IdempotencyLedgerOptions {
  db: Database;
  bounds?: LedgerBounds;
  /** UUID minted per server process. */
  generation: string;
  newId: () => string;
  log: ServerLog;
  now?: () => number;
  waitMs?: number;
}

export class IdempotencyLedger {
  private readonly claims = new Map<string, Claim>();
  private readonly now: () => number;
  private readonly waitMs: number;
  private readonly bounds: LedgerBounds;
  /** Bytes of recorded answers in the table; null when unknown (counted again when next needed). */
  private storedBytes: number | null = null;

  constructor(private readonly options: IdempotencyLedgerOptions) {
    this.now = options.now ?? Date.now;
    this.waitMs = options.waitMs ?? IDEMPOTENCY_WAIT_MS;
    this.bounds = options.bounds ?? DEFAULT_LEDGER_BOUNDS;
  }

  /** Boot: rows of sessions that did not come back go; old reservations become indeterminate. */
  recoverAtBoot(openSessionIds: ReadonlySet<string>): void {
    const { db, generation } = this.options;
    const recover = db.transaction(() => {
      const sessions = db.prepare('SELECT DISTINCT session_id FROM idempotent_requests').pluck().all() as string[];
      const remove = db.prepare('DELETE FROM idempotent_requests WHERE session_id = ?');
      for (const sessionId of sessions) if (!openSessionIds.has(sessionId)) remove.run(sessionId);
      db.prepare("UPDATE idempotent_requests SET state = 'indeterminate' WHERE state = 'reserved' AND owner_generation != ?").run(generation);
    });
    recover.immediate();
    this.storedBytes = null;
  }

  /** Deletes the rows of an ended session. Failures are logged: the session ends anyway. */
  deleteSession(sessionId: string): void {
    try {
      const { db } = this.options;
      const bytes = db.prepare('SELECT COALESCE(SUM(length(response_body)), 0) FROM idempotent_requests WHERE session_id = ?').pluck().get(sessionId) as number;
      db.prepare('DELETE FROM idempotent_requests WHERE session_id = ?').run(sessionId);
      if (this.storedBytes !== null) this.storedBytes -= bytes;
    } catch (error) {
      this.storedBytes = null;
      this.options.log.error('svc_server::sessions', 'could not delete idempotency records of an ended session', { session: sessionId, error: (error as Error).message });
    }
  }

  /** Waits on a live claim, reads the row, reserves. Throws IdempotencyError. */
  async begin(sessionId: string, key: string, fingerprint: string): Promise<LedgerDecision> {
    const claimKey = `${sessionId}\u0000${key}`;
    for (;;) {
      const live = this.claims.get(claimKey);
      if (!live) break;
      if (live.fingerprint !== fingerprint) throw conflict(key);
      const outcome = await this.waitFor(live);
      if (outcome === null) throw new IdempotencyError('idempotency_in_progress', `the first request with key '${key}' is still running after ${Math.round(this.waitMs / 1000)} seconds; retry later`);
      if (outcome.kind === 'completed') return { kind: 'replay', status: outcome.status, body: outcome.body };
      if (outcome.kind === 'abandoned') throw incomplete(key);
    }
    const claim = newClaim(fingerprint);
    this.claims.set(claimKey, claim);
    try {
      const decision = this.readAndReserve(sessionId, key, fingerprint, claim, claimKey);
      if (decision.kind === 'replay') this.drop(claimKey, claim, { kind: 'completed', status: decision.status, body: decision.body });
      return decision;
    } catch (error) {
      this.drop(claimKey, claim, { kind: 'released' });
      throw error;
    }
  }

  private readAndReserve(sessionId: string, key: string, fingerprint: string, claim: Claim, claimKey: string): LedgerDecision {
    const { db } = this.options;
    let row: LedgerRow | undefined;
    try {
      row = db
        .prepare('SELECT fingerprint, state, owner_generation, response_status, response_body FROM idempotent_requests WHERE session_id = ? AND request_key = ?')
        .get(sessionId, key) as LedgerRow | undefined;
    } catch (error) {
      throw this.unavailable('read', error);
    }
    if (row) {
      if (row.fingerprint !== fingerprint) throw conflict(key);
      if (row.state === 'completed') return { kind: 'replay', status: row.response_status!, body: Buffer.from(row.response_body!) };
      throw incomplete(key);
    }
    const reservationId = this.options.newId();
    try {
      db.prepare(
        "INSERT INTO idempotent_requests (session_id, request_key, fingerprint, reservation_id, owner_generation, created_at_ms, state) VALUES (?, ?, ?, ?, ?, ?, 'reserved')",
      ).run(sessionId, key, fingerprint, reservationId, this.options.generation, this.now());
    } catch (error) {
      throw this.unavailable('write', error);
    }
    return { kind: 'run', reservation: this.reservation(sessionId, reservationId, claimKey, claim) };
  }

  private reservation(sessionId: string, reservationId: string, claimKey: string, claim: Claim): Reservation {
    const { db, log } = this.options;
    let resolved = false;
    const once = (action: () => void) => {
      if (resolved) return;
      resolved = true;
      action();
    };
    return {
      complete: (status, body) =>
        once(() => {
          // Waiters get the response first; a failed write must not hold them back.
          claim.settle({ kind: 'completed', status, body });
          try {
            const updated = db
              .prepare("UPDATE idempotent_requests SET state = 'completed', response_status = ?, response_body = ? WHERE reservation_id = ? AND state = 'reserved'")
              .run(status, body, reservationId);
            if (updated.changes > 0 && this.storedBytes !== null) this.storedBytes += body.length;
          } catch (error) {
            log.error('svc_server::sessions', 'could not record an idempotent response; retries will see idempotency_incomplete', { error: (error as Error).message });
          }
          this.claims.delete(claimKey);
          this.keepWithinBounds(sessionId);
        }),
      release: () =>
        once(() => {
          try {
            db.prepare("DELETE FROM idempotent_requests WHERE reservation_id = ? AND state = 'reserved'").run(reservationId);
          } catch (error) {
            log.error('svc_server::sessions', 'could not release an idempotency reservation', { error: (error as Error).message });
          }
          this.drop(claimKey, claim, { kind: 'released' });
        }),
      abandon: () => once(() => this.drop(claimKey, claim, { kind: 'abandoned' })),
    };
  }

  /**
   * Drops the oldest rows of the session past its count or byte budget, then the oldest rows
   * of any session past the server-wide byte budget. A row whose run is still in flight
   * stays; an abandoned reservation may go like any other (its key then counts as new).
   */
  private keepWithinBounds(sessionId: string): void {
    const { db, log } = this.options;
    try {
      const rows = db
        .prepare('SELECT rowid AS id, request_key, state, COALESCE(length(response_body), 0) AS bytes FROM idempotent_requests WHERE session_id = ? ORDER BY rowid')
        .all(sessionId) as StoredRow[];
      const doomed = new Map<number, number>();
      let count = rows.length;
      let bytes = rows.reduce((sum, row) => sum + row.bytes, 0);
      for (const row of rows) {
        if (count <= this.bounds.recordsPerSession && bytes <= this.bounds.bytesPerSession) break;
        if (this.inFlight(sessionId, row)) continue;
        doomed.set(row.id, row.bytes);
        count -= 1;
        bytes -= row.bytes;
      }
      let total = this.totalStoredBytes() - sumOf(doomed);
      const oldest = db.prepare(
        "SELECT rowid AS id, session_id, request_key, state, COALESCE(length(response_body), 0) AS bytes FROM idempotent_requests WHERE rowid > ? ORDER BY rowid LIMIT 256",
      );
      let after = 0;
      while (total > this.bounds.totalBytes) {
        const page = oldest.all(after) as Array<StoredRow & { session_id: string }>;
        if (page.length === 0) break;
        for (const row of page) {
          after = row.id;
          if (total <= this.bounds.totalBytes) break;
          if (doomed.has(row.id) || this.inFlight(row.session_id, row)) continue;
          doomed.set(row.id, row.bytes);
          total -= row.bytes;
        }
      }
      if (doomed.size === 0) return;
      const remove = db.prepare('DELETE FROM idempotent_requests WHERE rowid = ?');
      db.transaction(() => {
        for (const id of doomed.keys()) remove.run(id);
      }).immediate();
      if (this.storedBytes !== null) this.storedBytes -= sumOf(doomed);
    } catch (error) {
      this.storedBytes = null;
      log.error('svc_server::sessions', 'could not drop old idempotency records', { error: (error as Error).message });
    }
  }

  private inFlight(sessionId: string, row: StoredRow): boolean {
    return row.state === 'reserved' && this.claims.has(`${sessionId}\u0000${row.request_key}`);
  }

  private totalStoredBytes(): number {
    this.storedBytes ??= this.options.db.prepare('SELECT COALESCE(SUM(length(response_body)), 0) FROM idempotent_requests').pluck().get() as number;
    return this.storedBytes;
  }

  private drop(claimKey: string, claim: Claim, outcome: ClaimOutcome): void {
    claim.settle(outcome);
    if (this.claims.get(claimKey) === claim) this.claims.delete(claimKey);
  }

  /** The claim's outcome, or null when the wait ran out (an outcome settled in that instant still wins). */
  private async waitFor(claim: Claim): Promise<ClaimOutcome | null> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.waitMs);
    });
    try {
      return (await Promise.race([claim.settled, deadline])) ?? claim.outcome ?? null;
    } finally {
      clearTimeout(timer);
    }
  }

  private unavailable(operation: 'read' | 'write', error: unknown): IdempotencyError {
    this.options.log.error('svc_server::sessions', `idempotency ledger ${operation} failed`, { error: (error as Error).message });
    return new IdempotencyError('idempotency_unavailable', `the idempotency ledger could not be ${operation === 'read' ? 'read' : 'written'}; nothing was run; retry later`);
  }
}

function sumOf(bytesById: ReadonlyMap<number, number>): number {
  let sum = 0;
  for (const bytes of bytesById.values()) sum += bytes;
  return sum;
}

function newClaim(fingerprint: string): Claim {
  let resolve!: (outcome: ClaimOutcome) => void;
  const settled = new Promise<ClaimOutcome>((done) => (resolve = done));
  const claim: Claim = {
    fingerprint,
    settled,
    settle: (outcome) => {
      claim.outcome ??= outcome;
      resolve(outcome);
    },
  };
  return claim;
}

function conflict(key: string): IdempotencyError {
  return new IdempotencyError('idempotency_conflict', `key '${key}' was already used in this session with different code; use a new key for new code`);
}

function incomplete(key: string): IdempotencyError {
  return new IdempotencyError('idempotency_incomplete', `an earlier request with key '${key}' started but never recorded an outcome (the server stopped or failed mid-run); its effects are unknown, so it is not run again`);
}
