// Last-run records: one per open session, plus recent one-off runs, whose throw-away
// sessions can only be read back through last-run. Each kind is kept by total bytes per
// token (`max_last_run_memory` each), so large results cannot grow the server without bound
// however many runs or sessions there are, and one-off runs also by count per token (small
// records add up too); one token's runs never evict another's, and every record's result is
// capped on its own. Memory only; nothing survives a restart.

/** What GET last-run answers; the error object is the execute result's. */
export interface LastRun {
  result: string | null;
  console: string[];
  error: unknown;
  /** Type errors that did not block the run; present only when non-empty. */
  warnings?: unknown[];
}

/** Default of `max_last_run_memory`, in megabytes. */
export const DEFAULT_LAST_RUN_MEMORY_MB = 64;

/**
 * One-off runs whose records one token keeps, the newest (server-operations.md §5.5: the
 * 1,000 most recent; per token here, so one tenant's runs never push out another's). The byte
 * budget alone let a token's small records pile up to a quarter of a million each (64 MB at
 * 256 bytes a record): over 20,000 hello worlds the server's live heap rose 6.5 MiB
 * (bench/PROFILE.md, round 78). Open sessions' records are bounded by the sessions themselves.
 */
export const ONE_OFF_RUNS_KEPT = 1_000;

/**
 * A result longer than this (UTF-8 bytes) is not kept in a last-run record: the execute
 * response already carried it. Console and error are kept; the runner bounds them.
 */
export const LAST_RUN_RESULT_BYTES = 1024 * 1024;

/**
 * The record as it is retained: a result over LAST_RUN_RESULT_BYTES becomes null with a
 * console line saying so (a marker in `result` would read as the program's own value).
 */
export function retainedLastRun(record: LastRun): LastRun {
  const result = record.result;
  // Length is a lower bound of the UTF-8 size; only a long text needs counting.
  if (result === null || result.length <= LAST_RUN_RESULT_BYTES / 3 || Buffer.byteLength(result, 'utf8') <= LAST_RUN_RESULT_BYTES) return record;
  const bytes = Buffer.byteLength(result, 'utf8');
  return {
    ...record,
    result: null,
    console: [...record.console, `[svc: the result (${bytes} bytes) was not kept for last-run, which keeps results of at most ${LAST_RUN_RESULT_BYTES} bytes; the execute response carried it]`],
  };
}

/**
 * What a record costs besides its text (the entry, its ids, the owner's name): counted so
 * that records with no result, console or error cannot pile up without bound.
 */
const RECORD_OVERHEAD_BYTES = 256;

/** UTF-8 bytes a retained record holds (result, console lines, the error's and warnings' JSON), plus its overhead. */
export function lastRunBytes(record: LastRun): number {
  let bytes = RECORD_OVERHEAD_BYTES + (record.result === null ? 0 : Buffer.byteLength(record.result, 'utf8'));
  for (const line of record.console) bytes += Buffer.byteLength(line, 'utf8');
  for (const part of [record.error, record.warnings]) {
    if (part === null || part === undefined) continue;
    try {
      bytes += Buffer.byteLength(JSON.stringify(part) ?? '', 'utf8');
    } catch {
      // An error the response could not have carried either; count nothing more.
    }
  }
  return bytes;
}

interface Retained {
  record: LastRun;
  /** Name of the token whose request ran it: only it (and admin tokens) may read it back. */
  owner: string;
  bytes: number;
}

/** One token's records, oldest first, and the bytes they hold. */
interface Share {
  sessionIds: Set<string>;
  bytes: number;
}

/**
 * Records by session, under a byte budget (and optionally a count) per token: a token's new
 * records push out only its own oldest, so one tenant's large results cannot evict another's.
 */
export class LastRunStore {
  private readonly records = new Map<string, Retained>();
  // A Set iterates in insertion order, so a share's first id is always its oldest.
  private readonly shares = new Map<string, Share>();
  private total = 0;

  /**
   * `budgetBytes`: the most one token's retained records may hold together; `recordsPerOwner`:
   * the most it may keep, whatever their size. Past either, its oldest go first.
   */
  constructor(
    private readonly budgetBytes = DEFAULT_LAST_RUN_MEMORY_MB * 1024 * 1024,
    private readonly recordsPerOwner = Infinity,
  ) {}

  remember(sessionId: string, record: LastRun, owner: string): void {
    this.forget(sessionId);
    const retained = retainedLastRun(record);
    const bytes = lastRunBytes(retained);
    // A record the whole budget cannot hold is not kept (its last-run answers 404).
    if (bytes > this.budgetBytes) return;
    this.records.set(sessionId, { record: retained, owner, bytes });
    this.total += bytes;
    let share = this.shares.get(owner);
    if (!share) this.shares.set(owner, (share = { sessionIds: new Set(), bytes: 0 }));
    share.sessionIds.add(sessionId);
    share.bytes += bytes;
    while (share.bytes > this.budgetBytes || share.sessionIds.size > this.recordsPerOwner) this.forget(share.sessionIds.values().next().value as string);
  }

  /** The record and who owns it; null when none is kept. */
  get(sessionId: string): { record: LastRun; owner: string } | null {
    const retained = this.records.get(sessionId);
    return retained ? { record: retained.record, owner: retained.owner } : null;
  }

  get size(): number {
    return this.records.size;
  }

  /** Bytes the retained records of all tokens hold together. */
  get bytes(): number {
    return this.total;
  }

  /** Drops the record of a session (ended, or evicted by its owner's newer ones). */
  forget(sessionId: string): void {
    const retained = this.records.get(sessionId);
    if (!retained) return;
    this.records.delete(sessionId);
    this.total -= retained.bytes;
    const share = this.shares.get(retained.owner)!;
    share.sessionIds.delete(sessionId);
    share.bytes -= retained.bytes;
    if (share.sessionIds.size === 0) this.shares.delete(retained.owner);
  }
}
