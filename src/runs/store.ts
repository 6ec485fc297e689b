// The run store: one SQLite row per run (REST one-off, session execute, MCP execute) from the
// moment the executor accepts it, kept after it finishes for `run_retention` and within
// `max_run_store_size`, so `GET /v1/runs/{id}` answers after a disconnect or a restart.
//
// The API other capabilities use (keep it this small):
// - `begin(...)` (the executor): inserts the `queued` record and returns the run's handle:
//   its cancellation `signal`, `setState`, and `finish(result)`.
// - `setState(executionId, state)` (approvals): `running` <-> `waiting_for_approval` of a run
//   in flight; a finished or unknown run is left alone (returns false).
// - `onFinished(listener)`: called once per run with its finished record (the journal seals
//   its tape here); `whenFinished(id, signal)` waits for one run.
// - `onDropped(listener)`: the execution ids whose records retention removed (a journal
//   kept in its own table keyed by execution_id deletes its rows here).
// - `recoverAtBoot(resume)`: runs unfinished at the last stop end as finished with a
//   "server restarted" error, except those `resume` takes (it returns true and later calls
//   `adopt(id)` to get the handle of the run it resumes).
//
// Writes are committed together once per event-loop turn (one transaction, so one fsync, for
// every run that started, changed state or finished in that turn; the database runs with
// synchronous=FULL), and any read commits what is waiting first, so reads see every write.
// A run started with `writeBehind` (nobody outside holds its id until its answer) lets its
// admission and state changes wait for its own finish, for at most ADMISSION_WRITE_BEHIND_MS
// (other runs' commits leave them waiting): a short run is one INSERT of its finished row, not
// an INSERT and two UPDATEs, also with many runs in flight. Its handle's `persist()` and any
// read commit them at once.
//
// Bounds, with bounded work per write: expired records go a batch at a time on each write
// and from a periodic sweep; past the byte budget the oldest finished records of the
// writer go when it holds more than its fair share (the budget divided among the tokens
// holding records), else those of the token holding the most, so a token within its share
// never loses a record to another token's runs. Reads never show an expired record.
import type { Database, Statement } from 'better-sqlite3';
import { commitWithoutFsync } from '../store';
import type { ServerLog } from '../audit';
import type { RunEntryPoint, RunRecord, RunState, RunSummary } from './record';

export const RUNS_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS runs (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id   TEXT    NOT NULL UNIQUE,
  owner          TEXT    NOT NULL,
  session_id     TEXT    NOT NULL,
  blueprint      TEXT    NOT NULL,
  entry_point    TEXT    NOT NULL CHECK (entry_point IN ('rest', 'session', 'mcp')),
  state          TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'waiting_for_approval', 'finished')),
  started_at_ms  INTEGER NOT NULL,
  finished_at_ms INTEGER,
  result         TEXT,
  bytes          INTEGER NOT NULL,
  CHECK ((state = 'finished') = (finished_at_ms IS NOT NULL AND result IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS runs_by_owner ON runs (owner, seq);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs (session_id, seq);
CREATE INDEX IF NOT EXISTS runs_by_finish ON runs (finished_at_ms) WHERE finished_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS runs_unfinished ON runs (state) WHERE state != 'finished';`;

/** What a record costs besides its result: the row, its ids and its index entries. */
export const RECORD_OVERHEAD_BYTES = 512;
/**
 * Rows removed per batch; a write removes at most MAX_BATCHES_PER_WRITE batches (the sweep the rest).
 * Written into the SQL as a literal: SQLite re-prepares a statement whose `LIMIT ?` is bound on
 * every execution (the bound limit may change its plan), and the expiry query runs after every
 * group commit (bench/PROFILE.md, round 16: 12-16 us against 1 us per query).
 */
const DROP_BATCH = 32;
const MAX_BATCHES_PER_WRITE = 8;
export const DEFAULT_RUN_RETENTION_MS = 24 * 3600 * 1000;
export const DEFAULT_RUN_STORE_BYTES = 256 * 1024 * 1024;
const SWEEP_INTERVAL_MS = 60_000;
/**
 * How long a write-behind run's admission may wait for its finish (the journal's own
 * write-behind is 200 ms). Two WAL commits per sequential run were ~15 % of the server's
 * wall samples (bench/PROFILE.md, round 16).
 */
export const ADMISSION_WRITE_BEHIND_MS = 200;
/**
 * Ticks per ADMISSION_WRITE_BEHIND_MS while writes wait behind; the one that is a run's
 * BEHIND_TICKS-th commits its writes, which waited between (BEHIND_TICKS - 1) / BEHIND_TICKS of
 * the bound and the bound (a run in flight for most of it still ends as one row).
 */
const BEHIND_TICKS = 4;

/** Who asks: a `user` token sees its own runs, an `admin` token every run. */
export interface RunViewer {
  name: string;
  role: string;
}

export interface RunStart {
  executionId: string;
  /** The token (name) the run is for. */
  owner: string;
  sessionId: string;
  blueprint: string;
  entryPoint: RunEntryPoint;
  /**
   * Nobody outside the server holds the run's id until it answers (a one-off request
   * waiting for its result): its record may wait, as above. Crash safety holds as long as
   * the executor calls `persist()` before the run reaches outside the server.
   */
  writeBehind?: boolean;
}

/** A run in flight, as its executor holds it. */
export interface RunHandle {
  readonly executionId: string;
  /** Aborted by `cancel` (POST /v1/runs/{id}/cancel); its reason is the message for the run's error. */
  readonly signal: AbortSignal;
  setState(state: Exclude<RunState, 'finished'>): void;
  /** Stores the execute result body and wakes whoever waits; later calls do nothing. */
  finish(result: object): void;
  /**
   * The server stops while the run is parked for approval with its resume state kept: the
   * record stays unfinished (`waiting_for_approval`) for the next server to resume, and the
   * run no longer counts as in flight here. Later calls of either method do nothing.
   */
  leaveForRestart(): void;
  /** Commits the run's waiting writes now (a write-behind run, before it reaches outside the server). */
  persist(): void;
}

export interface RunListFilter {
  state?: RunState;
  sessionId?: string;
  blueprint?: string;
  limit: number;
}

export type CancelOutcome = { kind: 'cancelled'; record: RunRecord } | { kind: 'finished' } | { kind: 'unknown' };

export interface RunStoreOptions {
  db: Database;
  log: ServerLog;
  /** `run_retention`: how long a finished record is kept. */
  retentionMs?: number;
  /** `max_run_store_size`: bytes of all records together. */
  maxBytes?: number;
  now?: () => number;
  /** Periodic sweep of expired records (0: none, tests). */
  sweepIntervalMs?: number;
}

interface Row {
  seq: number;
  execution_id: string;
  owner: string;
  session_id: string;
  blueprint: string;
  entry_point: RunEntryPoint;
  state: RunState;
  started_at_ms: number;
  finished_at_ms: number | null;
  result: string | null;
  bytes: number;
}

interface LiveRun {
  owner: string;
  controller: AbortController;
  waiters: Set<() => void>;
  /** Its admission and state changes may wait for the next commit (RunStart.writeBehind). */
  writeBehind: boolean;
  /** Its `queued` row while it waits to be written; state changes and the finish fold into it. */
  admission?: Admission;
}

/**
 * A run's first row before its commit. A short write-behind run starts, runs and finishes
 * before its admission is written: one INSERT of the finished row instead of an INSERT and
 * two UPDATEs (the run store's commit was the largest part of the server main thread's time
 * per same-program run, bench/PROFILE.md, lean39s).
 */
interface Admission {
  state: RunState;
  finished: { result: object; finishedAt: number } | null;
  written: boolean;
}

/** A write inside a commit; it may return what to do once committed. */
type Write = () => (() => void) | void;

interface WritesBehind {
  writer: string;
  writes: Write[];
  /** Ticks of the write-behind interval since they began waiting (BEHIND_TICKS commits them). */
  ticks: number;
}

const SUMMARY_COLUMNS = 'seq, execution_id, owner, session_id, blueprint, entry_point, state, started_at_ms, finished_at_ms';

export class RunStore {
  private readonly db: Database;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly maxBytes: number;
  private readonly live = new Map<string, LiveRun>();
  private readonly finishedListeners: Array<(record: RunRecord) => void> = [];
  private readonly droppedListeners: Array<(executionIds: readonly string[]) => void> = [];
  /** Bytes of records per owner (counted once at start, then kept up to date). */
  private readonly bytesByOwner = new Map<string, number>();
  private totalBytes = 0;
  private readonly sweep: NodeJS.Timeout | null;
  /** Writes waiting for the next group commit; each may return what to do once committed. */
  private pending: Write[] = [];
  /** Tokens that wrote since the last commit, with the run each must not lose (the one just written). */
  private writers = new Map<string, string>();
  private commitScheduled = false;
  /** Write-behind runs' writes, by run, waiting for its finish or ADMISSION_WRITE_BEHIND_MS. */
  private behind = new Map<string, WritesBehind>();
  /** Ticks BEHIND_TICKS times per ADMISSION_WRITE_BEHIND_MS while writes wait behind. */
  private behindTick: NodeJS.Timeout | null = null;
  private readonly statements = new Map<string, Statement>();
  private idleWaiters: Array<() => void> = [];
  /**
   * The next run's `seq`, taken at its admission: a write-behind run's row is inserted at its
   * finish, and `list` (newest first) must order runs by when they began, not by when their
   * rows were written.
   */
  private nextSeq: number;

  constructor(private readonly options: RunStoreOptions) {
    this.db = options.db;
    this.now = options.now ?? Date.now;
    this.retentionMs = options.retentionMs ?? DEFAULT_RUN_RETENTION_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_RUN_STORE_BYTES;
    this.db.exec(RUNS_TABLE_SQL);
    for (const { owner, bytes } of this.statement('SELECT owner, SUM(bytes) AS bytes FROM runs GROUP BY owner').all() as Array<{ owner: string; bytes: number }>) {
      this.bytesByOwner.set(owner, bytes);
      this.totalBytes += bytes;
    }
    // AUTOINCREMENT's counter (the largest seq ever inserted, ours included), not MAX(seq): a
    // deleted newest run's seq is never given again.
    const counted = this.statement(`SELECT seq FROM sqlite_sequence WHERE name = 'runs'`).get() as { seq: number } | undefined;
    this.nextSeq = (counted?.seq ?? 0) + 1;
    const interval = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
    this.sweep = interval > 0 ? setInterval(() => this.dropExpired(Infinity), interval) : null;
    this.sweep?.unref();
  }

  /** Commits what is waiting and stops the sweep (before the database closes). */
  close(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.commit();
  }

  /** Commits every waiting write, write-behind runs' included (a read, persist(), close). */
  commit(): void {
    for (const executionId of [...this.behind.keys()]) this.due(executionId);
    this.stopBehindTick();
    this.commitDue();
  }

  /** Commits the due writes in one transaction, then keeps the store within its bounds and tells listeners. */
  private commitDue(): void {
    this.commitScheduled = false;
    if (this.pending.length === 0) return;
    const writes = this.pending;
    const writers = this.writers;
    this.pending = [];
    this.writers = new Map();
    const after: Array<() => void> = [];
    // Without an fsync (src/store commitWithoutFsync): durable across a crash or restart of
    // the process; a power loss may lose the newest records, never corrupt the file.
    try {
      commitWithoutFsync(this.db, () => {
        for (const write of writes) {
          const then = write();
          if (then) after.push(then);
        }
      });
    } catch (error) {
      this.options.log.error('svc_server::runs', 'could not record runs; their records are missing or stay unfinished until the next start', { runs: writes.length, error: (error as Error).message });
      return;
    }
    this.keepWithinBounds(writers);
    for (const then of after) this.safely(then);
  }

  /** Prepared once per SQL text (preparing costs more than running these small statements). */
  private statement(sql: string): Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /**
   * `behind`: the write may wait for the run's next write that is due (its finish), at most
   * ADMISSION_WRITE_BEHIND_MS; a due write commits at the turn's end with the run's waiting ones.
   */
  private enqueue(writer: string, executionId: string, write: Write, behind = false): void {
    if (behind) {
      const waiting = this.behind.get(executionId) ?? { writer, writes: [], ticks: 0 };
      waiting.writes.push(write);
      this.behind.set(executionId, waiting);
      this.behindTick ??= setInterval(() => this.tickBehind(), ADMISSION_WRITE_BEHIND_MS / BEHIND_TICKS);
      return;
    }
    this.due(executionId);
    this.pending.push(write);
    this.writers.set(writer, executionId);
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    setImmediate(() => this.commitDue());
  }

  /** The run's waiting writes join the next commit, ahead of what it writes next. */
  private due(executionId: string): void {
    const waiting = this.behind.get(executionId);
    if (!waiting) return;
    this.behind.delete(executionId);
    this.pending.push(...waiting.writes);
    this.writers.set(waiting.writer, executionId);
  }

  /** Writes that have waited behind for BEHIND_TICKS ticks commit now. */
  private tickBehind(): void {
    for (const [executionId, waiting] of this.behind) if (++waiting.ticks >= BEHIND_TICKS) this.due(executionId);
    if (this.behind.size === 0) this.stopBehindTick();
    this.commitDue();
  }

  private stopBehindTick(): void {
    if (this.behindTick) clearInterval(this.behindTick);
    this.behindTick = null;
  }

  /**
   * Boot: every run left unfinished by the last process ends as finished with an error
   * saying the server restarted, unless `resume` takes it (the journal's resume).
   */
  recoverAtBoot(resume?: (record: RunRecord) => boolean): number {
    this.commit();
    const rows = this.statement(`SELECT * FROM runs WHERE state != 'finished'`).all() as Row[];
    let ended = 0;
    for (const row of rows) {
      if (resume?.(toRecord(row))) continue;
      const result = {
        execution_id: row.execution_id,
        session_id: row.session_id,
        result: null,
        console: [],
        error: { kind: 'cancelled', message: 'cancelled: the server restarted before the run finished; what it did before then is unknown, so it is not run again' },
      };
      this.enqueue(row.owner, row.execution_id, () => void this.writeFinish(row.execution_id, row.owner, result));
      ended++;
    }
    this.commit();
    if (ended > 0) this.options.log.info('svc_server::runs', 'runs left unfinished by the last stop ended as cancelled', { runs: ended });
    return ended;
  }

  /** Records the run as `queued` (committed with this turn's other writes) and returns its handle. */
  begin(start: RunStart): RunHandle {
    const bytes = RECORD_OVERHEAD_BYTES + Buffer.byteLength(start.executionId) + Buffer.byteLength(start.sessionId) + Buffer.byteLength(start.blueprint) + Buffer.byteLength(start.owner);
    const startedAt = this.now();
    const seq = this.nextSeq++;
    const admission: Admission = { state: 'queued', finished: null, written: false };
    this.enqueue(start.owner, start.executionId, () => {
      admission.written = true;
      if (admission.finished) return this.insertFinished(seq, start, startedAt, bytes, admission.finished.result, admission.finished.finishedAt);
      this.statement('INSERT INTO runs (seq, execution_id, owner, session_id, blueprint, entry_point, state, started_at_ms, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(seq, start.executionId, start.owner, start.sessionId, start.blueprint, start.entryPoint, admission.state, startedAt, bytes);
      this.count(start.owner, bytes);
    }, start.writeBehind === true);
    const live: LiveRun = { owner: start.owner, controller: new AbortController(), waiters: new Set(), writeBehind: start.writeBehind === true, admission };
    this.live.set(start.executionId, live);
    return this.handleOf(start.executionId, live);
  }

  /** The handle of a run `recoverAtBoot` let `resume` take (null when it is not unfinished). */
  adopt(executionId: string): RunHandle | null {
    this.commit();
    const row = this.statement(`SELECT owner FROM runs WHERE execution_id = ? AND state != 'finished'`).get(executionId) as { owner: string } | undefined;
    if (!row) return null;
    const live: LiveRun = this.live.get(executionId) ?? { owner: row.owner, controller: new AbortController(), waiters: new Set(), writeBehind: false };
    this.live.set(executionId, live);
    return this.handleOf(executionId, live);
  }

  /** Moves a run in flight between `queued`, `running` and `waiting_for_approval`; false when it is finished or unknown. */
  setState(executionId: string, state: Exclude<RunState, 'finished'>): boolean {
    const live = this.live.get(executionId);
    if (!live) return false;
    // Its admission still waits (a commit is due for it already): the row is written in this state.
    if (live.admission && !live.admission.written) {
      live.admission.state = state;
      return true;
    }
    this.enqueue(live.owner, executionId, () => void this.statement(`UPDATE runs SET state = ? WHERE execution_id = ? AND state != 'finished'`).run(state, executionId), live.writeBehind);
    return true;
  }

  /** The record, or null when unknown, expired, or another user token's. */
  get(executionId: string, viewer: RunViewer): RunRecord | null {
    this.commit();
    const row = this.statement('SELECT * FROM runs WHERE execution_id = ?').get(executionId) as Row | undefined;
    if (!row || !this.visible(row, viewer)) return null;
    return toRecord(row);
  }

  /** Records the viewer may see, newest first, without results. */
  list(filter: RunListFilter, viewer: RunViewer): RunSummary[] {
    this.commit();
    const where = ['(finished_at_ms IS NULL OR finished_at_ms >= ?)'];
    const params: Array<string | number> = [this.cutoff()];
    if (viewer.role !== 'admin') {
      where.push('owner = ?');
      params.push(viewer.name);
    }
    if (filter.state) {
      where.push('state = ?');
      params.push(filter.state);
    }
    if (filter.sessionId !== undefined) {
      where.push('session_id = ?');
      params.push(filter.sessionId);
    }
    if (filter.blueprint !== undefined) {
      where.push('blueprint = ?');
      params.push(filter.blueprint);
    }
    const rows = this.statement(`SELECT ${SUMMARY_COLUMNS} FROM runs WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`).all(...params, filter.limit) as Row[];
    return rows.map(toSummary);
  }

  /** Asks a run in flight to stop (it then ends `cancelled` through the executor). */
  cancel(executionId: string, viewer: RunViewer): CancelOutcome {
    const record = this.get(executionId, viewer);
    if (!record) return { kind: 'unknown' };
    const live = this.live.get(executionId);
    if (record.state === 'finished' || !live) return { kind: 'finished' };
    live.controller.abort(`cancelled: the run was cancelled by a request to POST /v1/runs/${executionId}/cancel (token '${viewer.name}')`);
    return { kind: 'cancelled', record };
  }

  /**
   * Resolves with the record once the run has finished, or with the record as it is when
   * `signal` aborts (a `wait` that ran out, a client that left). Null when not visible.
   */
  async whenFinished(executionId: string, viewer: RunViewer, signal: AbortSignal): Promise<RunRecord | null> {
    const live = this.live.get(executionId);
    if (live && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          live.waiters.delete(done);
          resolve();
        };
        live.waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return this.get(executionId, viewer);
  }

  /** Runs in flight (the shutdown drain waits for them, asynchronous starts included). */
  get inFlight(): number {
    return this.live.size;
  }

  /** Resolves once no run is in flight. */
  idle(): Promise<void> {
    if (this.live.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  onFinished(listener: (record: RunRecord) => void): void {
    this.finishedListeners.push(listener);
  }

  onDropped(listener: (executionIds: readonly string[]) => void): void {
    this.droppedListeners.push(listener);
  }

  /** Bytes of records per token (the per-token quota metric). */
  bytesPerOwner(): ReadonlyMap<string, number> {
    return this.bytesByOwner;
  }

  private handleOf(executionId: string, live: LiveRun): RunHandle {
    let finished = false;
    return {
      executionId,
      signal: live.controller.signal,
      setState: (state) => {
        if (!finished) this.setState(executionId, state);
      },
      finish: (result) => {
        if (finished) return;
        finished = true;
        this.live.delete(executionId);
        const finishedAt = this.now();
        if (live.admission && !live.admission.written) {
          // Written with its admission, in the commit due now (the admission may have waited for a later one).
          live.admission.finished = { result, finishedAt };
          this.enqueue(live.owner, executionId, () => {});
        } else {
          this.enqueue(live.owner, executionId, () => {
            const record = this.writeFinish(executionId, live.owner, result, finishedAt);
            return record ? this.tellFinished(record) : undefined;
          });
        }
        // A waiter's read commits this write first.
        for (const wake of [...live.waiters]) wake();
        if (this.live.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      },
      persist: () => {
        live.writeBehind = false;
        this.commit();
      },
      leaveForRestart: () => {
        if (finished) return;
        finished = true;
        this.live.delete(executionId);
        if (this.live.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      },
    };
  }

  /**
   * Inside a commit: the finished state and result. The finished record is built only when
   * listeners wait for it, around the result object itself (parsing the text just written
   * back cost every run a JSON.parse of its result).
   */
  private writeFinish(executionId: string, owner: string, result: object, finishedAt = this.now()): RunRecord | null {
    const text = JSON.stringify(result);
    const added = Buffer.byteLength(text);
    const sql = `UPDATE runs SET state = 'finished', finished_at_ms = ?, result = ?, bytes = bytes + ? WHERE execution_id = ? AND state != 'finished'`;
    return this.writeFinishedRow(sql, [finishedAt, text, added, executionId], owner, added, result);
  }

  /** Inside a commit: a run finished before its admission was written, in one row. */
  private insertFinished(seq: number, start: RunStart, startedAt: number, bytes: number, result: object, finishedAt: number): (() => void) | undefined {
    const text = JSON.stringify(result);
    const total = bytes + Buffer.byteLength(text);
    const sql = `INSERT INTO runs (seq, execution_id, owner, session_id, blueprint, entry_point, state, started_at_ms, finished_at_ms, result, bytes) VALUES (?, ?, ?, ?, ?, ?, 'finished', ?, ?, ?, ?)`;
    const record = this.writeFinishedRow(sql, [seq, start.executionId, start.owner, start.sessionId, start.blueprint, start.entryPoint, startedAt, finishedAt, text, total], start.owner, total, result);
    return record ? this.tellFinished(record) : undefined;
  }

  /**
   * Runs `sql`, which writes a finished row (an UPDATE that may match none), and counts `added`
   * bytes to `owner` when it wrote one. The record is read back (RETURNING) only when someone
   * listens for finished runs; otherwise null.
   */
  private writeFinishedRow(sql: string, values: readonly unknown[], owner: string, added: number, result: object): RunRecord | null {
    if (this.finishedListeners.length === 0) {
      if (this.statement(sql).run(...values).changes > 0) this.count(owner, added);
      return null;
    }
    const written = this.statement(`${sql} RETURNING ${SUMMARY_COLUMNS}`).get(...values) as Row | undefined;
    if (!written) return null;
    this.count(owner, added);
    return { ...toSummary(written), result: result as Record<string, unknown> };
  }

  /** What a commit does once it has written a finished record: the listeners hear of it. */
  private tellFinished(record: RunRecord): () => void {
    return () => this.finishedListeners.forEach((listener) => this.safely(() => listener(record)));
  }

  private visible(row: Row, viewer: RunViewer): boolean {
    if (row.finished_at_ms !== null && row.finished_at_ms < this.cutoff()) return false;
    return viewer.role === 'admin' || row.owner === viewer.name;
  }

  private cutoff(): number {
    return this.now() - this.retentionMs;
  }

  private count(owner: string, bytes: number): void {
    this.bytesByOwner.set(owner, (this.bytesByOwner.get(owner) ?? 0) + bytes);
    this.totalBytes += bytes;
    if ((this.bytesByOwner.get(owner) ?? 0) <= 0) this.bytesByOwner.delete(owner);
  }

  /**
   * After a commit: expired records first, then the byte budget by fair share, the tokens that
   * wrote in turn; at most MAX_BATCHES_PER_WRITE batches per writer (the sweep and later writes
   * do the rest).
   */
  private keepWithinBounds(writers: ReadonlyMap<string, string>): void {
    this.dropExpired(MAX_BATCHES_PER_WRITE);
    for (const [writer, keep] of writers) {
      if (this.totalBytes <= this.maxBytes) return;
      this.dropPastBudget(writer, keep);
    }
  }

  private dropPastBudget(writer: string, keep: string): void {
    try {
      let batches = 0;
      const exhausted = new Set<string>();
      while (this.totalBytes > this.maxBytes && batches < MAX_BATCHES_PER_WRITE) {
        const holders = [...this.bytesByOwner].filter(([owner, bytes]) => bytes > 0 && !exhausted.has(owner));
        if (holders.length === 0) break;
        const share = this.maxBytes / this.bytesByOwner.size;
        const mine = this.bytesByOwner.get(writer) ?? 0;
        const victim = mine > share && !exhausted.has(writer) ? writer : holders.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
        const rows = this.statement(`SELECT seq, execution_id, owner, bytes FROM runs WHERE owner = ? AND state = 'finished' AND execution_id != ? ORDER BY seq LIMIT ${DROP_BATCH}`)
          .all(victim, keep) as Array<Pick<Row, 'seq' | 'execution_id' | 'owner' | 'bytes'>>;
        batches++;
        if (rows.length === 0) {
          exhausted.add(victim);
          continue;
        }
        // Only as many as the excess needs.
        let excess = this.totalBytes - this.maxBytes;
        const doomed = rows.filter((row) => {
          if (excess <= 0) return false;
          excess -= row.bytes;
          return true;
        });
        this.remove(doomed);
      }
    } catch (error) {
      this.options.log.error('svc_server::runs', 'could not drop old run records', { error: (error as Error).message });
    }
  }

  /** Removes up to `maxBatches` batches of expired records; returns the batches used. */
  private dropExpired(maxBatches: number): number {
    let batches = 0;
    try {
      while (batches < maxBatches) {
        const rows = this.statement(`SELECT seq, execution_id, owner, bytes FROM runs WHERE finished_at_ms < ? ORDER BY finished_at_ms LIMIT ${DROP_BATCH}`).all(this.cutoff()) as Array<
          Pick<Row, 'seq' | 'execution_id' | 'owner' | 'bytes'>
        >;
        if (rows.length === 0) break;
        batches++;
        this.remove(rows);
        if (rows.length < DROP_BATCH) break;
      }
    } catch (error) {
      this.options.log.error('svc_server::runs', 'could not drop expired run records', { error: (error as Error).message });
    }
    return batches;
  }

  private remove(rows: ReadonlyArray<Pick<Row, 'seq' | 'execution_id' | 'owner' | 'bytes'>>): void {
    if (rows.length === 0) return;
    const remove = this.statement('DELETE FROM runs WHERE seq = ?');
    this.db.transaction(() => {
      for (const row of rows) remove.run(row.seq);
    }).immediate();
    for (const row of rows) this.count(row.owner, -row.bytes);
    const ids = rows.map((row) => row.execution_id);
    for (const listener of this.droppedListeners) this.safely(() => listener(ids));
  }

  private safely(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.options.log.error('svc_server::runs', 'a run store listener failed', { error: (error as Error).message });
    }
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function toSummary(row: Row): RunSummary {
  return {
    execution_id: row.execution_id,
    session_id: row.session_id,
    blueprint: row.blueprint,
    entry_point: row.entry_point,
    state: row.state,
    started_at: iso(row.started_at_ms)!,
    finished_at: iso(row.finished_at_ms),
  };
}

function toRecord(row: Row): RunRecord {
  return { ...toSummary(row), result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>) };
}
