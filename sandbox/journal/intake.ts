// A run's journal on the server's side while the run goes: the chunks its runner streams
// with each host call and with its report (sandbox/journal/keeper.ts drain), checked like
// any runner message, with each host call's answer filled in from what the pool sent (the
// runner does not send it back). The pool thus holds the journal up to the run's latest
// host call: enough to resume the run elsewhere if its runner is lost.
import { readEntry } from './check';
import type { JournalEntry, RecordedJournal, ReplayPlan } from './entries';
import { payloadOf } from './keeper';

/** A host call's answer as the pool sent it, kept until the runner's journal names it. */
export interface SentAnswer {
  reply: string;
  blobs: Uint8Array[];
}

/** Bytes counted for an entry beside its payload (as the runner counts them). */
const ENTRY_OVERHEAD = 64;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class JournalIntake {
  private entries: JournalEntry[] = [];
  private bytes = 0;
  private truncated = false;
  /** It holds an answer withheld for its secret. */
  private withheld = false;
  /** Plan entries the run has taken so far. */
  private replayed = 0;
  /** Answers sent and not yet named by a streamed entry, by call id. */
  private readonly answers = new Map<number, SentAnswer>();

  /**
   * @param limitBytes the most the journal may hold here (the runner's bound, with room for
   *   what a replay takes); past it the journal is void
   * @param plan the replay the run started from: its entries come back only as a count
   */
  constructor(
    private readonly limitBytes: number,
    private readonly plan: ReplayPlan | undefined,
  ) {}

  /** Whether the pool should keep the answers it sends (the journal is still whole). */
  get keeping(): boolean {
    return !this.truncated;
  }

  /**
   * Bytes an answer may still take: a larger one voids the journal whatever else happens
   * (an entry counts a blob as its base64 text, longer than its bytes).
   */
  get room(): number {
    return this.truncated ? 0 : Math.max(0, this.limitBytes - this.bytes);
  }

  /** An answer larger than `room` is being streamed to the runner, never kept whole: the journal is void. */
  giveUpForLargeAnswer(): void {
    this.void();
  }

  /** An answer the pool sent for `callId` (its entry arrives with a later chunk). */
  sent(callId: number, answer: SentAnswer): void {
    if (!this.truncated) this.answers.set(callId, answer);
  }

  /** The call ended without an answer the journal can name (cancelled, withheld): nothing to keep. */
  forget(callId: number): void {
    this.answers.delete(callId);
  }

  /**
   * Takes one chunk a runner sent (anything but a chunk in its known shape voids the
   * journal); `recorded` hears the start index of each host call whose answer it now holds.
   */
  take(raw: unknown, recorded?: (call: number) => void): void {
    if (raw === undefined || this.truncated) return;
    if (!isRecord(raw) || !Array.isArray(raw.entries) || raw.truncated === true) return this.void();
    const replayed = raw.replayed ?? 0;
    const planned = this.plan?.entries ?? [];
    if (!Number.isInteger(replayed) || (replayed as number) < 0 || this.replayed + (replayed as number) > planned.length) return this.void();
    for (let i = 0; i < (replayed as number); i++) if (!this.add(planned[this.replayed + i])) return;
    this.replayed += replayed as number;
    for (const item of raw.entries) {
      const entry = this.read(item);
      if (entry === null || !this.add(entry)) return this.void();
      if (entry.kind === 'host_call') recorded?.(entry.call);
    }
  }

  /** The journal held so far. */
  result(): RecordedJournal {
    return { entries: this.truncated ? [] : this.entries, truncated: this.truncated, bytes: this.bytes };
  }

  /**
   * The journal so far, to resume the run from; null when it cannot be: the journal is void,
   * or it holds an answer withheld for its secret (a replay cannot pass it).
   */
  resumable(): JournalEntry[] | null {
    return this.truncated || this.withheld ? null : this.entries;
  }

  /** Bytes the journal holds so far (what a resume replays). */
  get size(): number {
    return this.bytes;
  }

  private read(item: unknown): JournalEntry | null {
    if (!isRecord(item)) return null;
    if (item.kind !== 'host_call' || item.callId === undefined) {
      const entry = readEntry(item);
      return typeof entry === 'string' ? null : entry;
    }
    if (typeof item.callId !== 'number') return null;
    const answer = this.answers.get(item.callId);
    this.answers.delete(item.callId);
    const { callId: _callId, reply: _reply, blobs: _blobs, answer: _answer, error: _error, ...facts } = item;
    if (item.withheld === true) {
      const entry = readEntry(facts);
      return typeof entry === 'string' ? null : entry;
    }
    // The runner names an answer this pool never sent: the journal cannot be trusted.
    if (!answer) return null;
    const entry = readEntry({ ...facts, reply: answer.reply, ...(answer.blobs.length > 0 ? { blobs: answer.blobs.map((blob) => Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('base64')) } : {}) });
    return typeof entry === 'string' ? null : entry;
  }

  private add(entry: JournalEntry): boolean {
    this.bytes += ENTRY_OVERHEAD + payloadOf(entry);
    if (this.bytes > this.limitBytes) {
      this.void();
      return false;
    }
    this.entries.push(entry);
    if (entry.kind === 'host_call' && entry.withheld) this.withheld = true;
    return true;
  }

  private void(): void {
    this.truncated = true;
    this.entries = [];
    this.answers.clear();
  }
}
