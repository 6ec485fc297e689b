// The idempotency ledger: one SQLite row per (session, key) holding
// the recorded status and exact body bytes, plus in-process claims so a concurrent
// duplicate waits for the original instead of running twice. Rows are kept within a count
// and a byte budget per session, a byte budget per token (the sessions' owner) and one
// server-wide, oldest dropped first. Past the server-wide budget the rows that go are those
// of the writing token when it holds more than its fair share (the budget divided among
// the tokens holding rows), else those of the token holding the most: a token within its
// share never loses a record to another token's.
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
  /** Bytes of recorded answers one token's sessions keep together (`max_idempotency_token_size`; default totalBytes). */
  bytesPerToken?: number;
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
  /** The token (name) that owns a session; rows of sessions it does not know count as one owner's. */
  ownerOf?: (sessionId: string) => string | undefined;
}

export class IdempotencyLedger {
  private readonly claims = new Map<string, Claim>();
  private readonly now: () => number;
  private readonly waitMs: number;
  private readonly bounds: LedgerBounds;
  /** Bytes of recorded answers per session; null when unknown (counted again when next needed). */
  private bytesBySession: Map<string, number> | null = null;

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
    this.bytesBySession = null;
  }

  /** Deletes the rows of an ended session. Failures are logged: the session ends anyway. */
  deleteSession(sessionId: string): void {
    try {
      const { db } = this.options;
      db.prepare('DELETE FROM idempotent_requests WHERE session_id = ?').run(sessionId);
      this.bytesBySession?.delete(sessionId);
    } catch (error) {
      this.bytesBySession = null;
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
            if (updated.changes > 0 && this.bytesBySession !== null) this.bytesBySession.set(sessionId, (this.bytesBySession.get(sessionId) ?? 0) + body.length);
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
   * of its token past the token's byte budget, then, past the server-wide byte budget, the
   * oldest rows of the token over its fair share (the writer first). A row whose run is
   * still in flight stays; an abandoned reservation may go like any other (its key then
   * counts as new).
   */
  private keepWithinBounds(sessionId: string): void {
    const { db, log } = this.options;
    try {
      const doomed = new Map<number, Doomed>();
      let count = 0;
      let bytes = 0;
      const rows = this.rowsOf([sessionId]);
      for (const row of rows) {
        count += 1;
        bytes += row.bytes;
      }
      for (const row of rows) {
        if (count <= this.bounds.recordsPerSession && bytes <= this.bounds.bytesPerSession) break;
        if (this.inFlight(row.session_id, row)) continue;
        doomed.set(row.id, { bytes: row.bytes, sessionId: row.session_id });
        count -= 1;
        bytes -= row.bytes;
      }
      const byOwner = this.bytesByOwner(doomed);
      const writer = this.ownerOf(sessionId);
      const perToken = this.bounds.bytesPerToken ?? this.bounds.totalBytes;
      const mine = byOwner.get(writer)?.bytes ?? 0;
      if (mine > perToken) this.dropOldestOf(writer, byOwner, mine - perToken, doomed);
      let total = 0;
      for (const { bytes: held } of byOwner.values()) total += held;
      const exhausted = new Set<string>();
      while (total > this.bounds.totalBytes) {
        const holders = [...byOwner].filter(([owner, held]) => held.bytes > 0 && !exhausted.has(owner));
        if (holders.length === 0) break;
        const share = this.bounds.totalBytes / [...byOwner.values()].filter((held) => held.bytes > 0).length;
        const writerHeld = byOwner.get(writer)?.bytes ?? 0;
        const victim = writerHeld > share && !exhausted.has(writer) ? writer : holders.reduce((a, b) => (b[1].bytes > a[1].bytes ? b : a))[0];
        const freed = this.dropOldestOf(victim, byOwner, total - this.bounds.totalBytes, doomed);
        if (freed === 0) exhausted.add(victim);
        total -= freed;
      }
      if (doomed.size === 0) return;
      const remove = db.prepare('DELETE FROM idempotent_requests WHERE rowid = ?');
      db.transaction(() => {
        for (const id of doomed.keys()) remove.run(id);
      }).immediate();
      if (this.bytesBySession !== null) {
        for (const gone of doomed.values()) this.bytesBySession.set(gone.sessionId, (this.bytesBySession.get(gone.sessionId) ?? 0) - gone.bytes);
      }
    } catch (error) {
      this.bytesBySession = null;
      log.error('svc_server::sessions', 'could not drop old idempotency records', { error: (error as Error).message });
    }
  }

  private ownerOf(sessionId: string): string {
    return this.options.ownerOf?.(sessionId) ?? '';
  }

  /** Rows of these sessions, oldest first. */
  private rowsOf(sessionIds: readonly string[]): Array<StoredRow & { session_id: string }> {
    const select = this.options.db.prepare('SELECT rowid AS id, session_id, request_key, state, COALESCE(length(response_body), 0) AS bytes FROM idempotent_requests WHERE session_id = ?');
    return sessionIds.flatMap((id) => select.all(id) as Array<StoredRow & { session_id: string }>).sort((a, b) => a.id - b.id);
  }

  /** Bytes held per owner and the sessions holding them, less the rows already doomed. */
  private bytesByOwner(doomed: ReadonlyMap<number, Doomed>): Map<string, { bytes: number; sessions: string[] }> {
    this.bytesBySession ??= new Map(
      (this.options.db.prepare('SELECT session_id, COALESCE(SUM(length(response_body)), 0) AS bytes FROM idempotent_requests GROUP BY session_id').all() as Array<{ session_id: string; bytes: number }>).map((row) => [row.session_id, row.bytes]),
    );
    const out = new Map<string, { bytes: number; sessions: string[] }>();
    for (const [sessionId, held] of this.bytesBySession) {
      const owner = this.ownerOf(sessionId);
      const entry = out.get(owner) ?? { bytes: 0, sessions: [] };
      entry.bytes += held;
      entry.sessions.push(sessionId);
      out.set(owner, entry);
    }
    for (const gone of doomed.values()) out.get(this.ownerOf(gone.sessionId))!.bytes -= gone.bytes;
    return out;
  }

  /** Dooms the owner's oldest rows (not in flight) until `needed` bytes are freed; returns the bytes freed. */
  private dropOldestOf(owner: string, byOwner: Map<string, { bytes: number; sessions: string[] }>, needed: number, doomed: Map<number, Doomed>): number {
    const held = byOwner.get(owner);
    if (!held) return 0;
    let freed = 0;
    for (const row of this.rowsOf(held.sessions)) {
      if (freed >= needed) break;
      if (doomed.has(row.id) || row.state !== 'completed' || this.inFlight(row.session_id, row)) continue;
      doomed.set(row.id, { bytes: row.bytes, sessionId: row.session_id });
      freed += row.bytes;
    }
    held.bytes -= freed;
    return freed;
  }

  /** Recorded answers' bytes per token (for the per-token metrics). */
  bytesPerOwner(): Map<string, number> {
    try {
      return new Map([...this.bytesByOwner(new Map())].map(([owner, held]) => [owner, held.bytes]));
    } catch {
      return new Map();
    }
  }

  private inFlight(sessionId: string, row: StoredRow): boolean {
    return row.state === 'reserved' && this.claims.has(`${sessionId}\u0000${row.request_key}`);
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

/** A row chosen to go: its size and session. */
interface Doomed {
  bytes: number;
  sessionId: string;
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
