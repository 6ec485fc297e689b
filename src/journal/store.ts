// Journals of finished runs in the state store (SQLite), one row per run, kept `run_retention`
// and within `max_run_store_size` (past it, the oldest journals of the token holding the most go
// first; a journal also goes when the run store drops its run's record). The table is this module's own
// (created if absent, like the idempotency ledger's), so the run store can adopt it later.
// Rows are written behind the runs, many per transaction (one fsync per run would cost the
// same-program path most of its throughput); until written, a journal is read from memory.
// The tape is built from the row when it is asked for (decoding answers costs nothing per run).
import type { Database, Statement } from 'better-sqlite3';
import type { JournalledRun } from './tape';
import { commitWithoutFsync } from '../store';

/** How long tapes are kept and how many bytes they may take together (the run store's settings). */
export interface JournalRetention {
  retentionMs: number;
  maxBytes: number;
}

export const DEFAULT_JOURNAL_RETENTION: JournalRetention = { retentionMs: 24 * 3600 * 1000, maxBytes: 256 * 1024 * 1024 };

/** How long journals wait in memory before they are written together. */
const WRITE_BEHIND_MS = 200;

export class JournalStore {
  private pending = new Map<string, JournalledRun>();
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly expire: Statement;
  private readonly oldestOf: Statement;
  private readonly remove: Statement;
  /** Bytes of kept journals by owner token, counted once at start and then kept up to date (no scan per write). */
  private readonly bytesByOwner = new Map<string, number>();
  private bytes = 0;

  constructor(
    private readonly db: Database,
    private readonly retention: JournalRetention = DEFAULT_JOURNAL_RETENTION,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS run_journals (
      execution_id TEXT PRIMARY KEY,
      owner        TEXT NOT NULL,
      session_id   TEXT NOT NULL,
      finished_at_ms INTEGER NOT NULL,
      bytes        INTEGER NOT NULL,
      tape         TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS run_journals_by_age ON run_journals (finished_at_ms);
    CREATE INDEX IF NOT EXISTS run_journals_by_owner ON run_journals (owner, finished_at_ms);`);
    // A run's id is new but for a run journalled again (a resume): the insert finds no row first.
    this.insert = db.prepare('INSERT INTO run_journals (execution_id, owner, session_id, finished_at_ms, bytes, tape) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (execution_id) DO NOTHING');
    this.select = db.prepare('SELECT tape FROM run_journals WHERE execution_id = ?');
    this.expire = db.prepare('DELETE FROM run_journals WHERE finished_at_ms < ? RETURNING owner, bytes');
    this.oldestOf = db.prepare('SELECT execution_id, bytes FROM run_journals WHERE owner = ? ORDER BY finished_at_ms ASC LIMIT 64');
    this.remove = db.prepare('DELETE FROM run_journals WHERE execution_id = ? RETURNING owner, bytes');
    for (const row of db.prepare('SELECT owner, SUM(bytes) AS bytes FROM run_journals GROUP BY owner').all() as Array<{ owner: string; bytes: number }>) this.count(row.owner, row.bytes);
  }

  keep(run: JournalledRun): void {
    this.pending.set(run.executionId, run);
    this.flushTimer ??= setTimeout(() => this.flush(), WRITE_BEHIND_MS);
    this.flushTimer.unref?.();
  }

  /** Forgets the journals of runs whose records retention removed (the run store's onDropped). */
  drop(executionIds: readonly string[]): void {
    this.db.transaction(() => {
      for (const id of executionIds) {
        this.pending.delete(id);
        this.removeRow(id);
      }
    }).immediate();
  }

  /** Writes the journals waiting in memory, in one transaction. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.pending.size === 0) return;
    const runs = [...this.pending.values()];
    this.pending = new Map();
    // Already up to WRITE_BEHIND_MS behind the runs: an fsync per flush would only stall the event loop.
    commitWithoutFsync(this.db, () => {
      for (const row of this.expire.all(this.now() - this.retention.retentionMs) as Array<{ owner: string; bytes: number }>) this.count(row.owner, -row.bytes);
      for (const run of runs) {
        const text = JSON.stringify(run);
        // A journal larger than the whole store is not kept (it would push out every other).
        if (text.length > this.retention.maxBytes) continue;
        const values = [run.executionId, run.principal, run.sessionId, this.now(), text.length, text];
        if (this.insert.run(...values).changes === 0) {
          this.removeRow(run.executionId);
          this.insert.run(...values);
        }
        this.count(run.principal, text.length);
      }
      this.trim();
    });
  }

  /**
   * Past the byte budget the oldest journals of the token holding the most go first, so a
   * token within its fair share never loses a journal to another token's runs.
   */
  private trim(): void {
    while (this.bytes > this.retention.maxBytes) {
      let largest: string | null = null;
      for (const [owner, bytes] of this.bytesByOwner) if (largest === null || bytes > this.bytesByOwner.get(largest)!) largest = owner;
      if (largest === null) return;
      const rows = this.oldestOf.all(largest) as Array<{ execution_id: string; bytes: number }>;
      if (rows.length === 0) return;
      for (const row of rows) {
        if (this.bytes <= this.retention.maxBytes) return;
        this.removeRow(row.execution_id);
      }
    }
  }

  private removeRow(executionId: string): void {
    const gone = this.remove.get(executionId) as { owner: string; bytes: number } | undefined;
    if (gone) this.count(gone.owner, -gone.bytes);
  }

  private count(owner: string, bytes: number): void {
    this.bytes += bytes;
    const held = (this.bytesByOwner.get(owner) ?? 0) + bytes;
    if (held > 0) this.bytesByOwner.set(owner, held);
    else this.bytesByOwner.delete(owner);
  }

  get(executionId: string): JournalledRun | null {
    const waiting = this.pending.get(executionId);
    if (waiting) return waiting;
    const row = this.select.get(executionId) as { tape: string } | undefined;
    return row ? (JSON.parse(row.tape) as JournalledRun) : null;
  }
}
