// A run's journal on the runner's side: records each value as it enters the program, or,
// for a replay, hands back the recorded one and stops at the first request the journal
// does not hold. A replay that may go on live (resume, fork) records what follows after
// the replayed entries, so its journal is whole again. The runner keeps no copy: what it
// records goes to the server with the run's next host call (drain), so the server always
// holds the journal up to the run's latest call.
import { createHash } from 'node:crypto';
import type { Divergence, HostCallEntry, JournalChunk, JournalEntry, ReplayPlan, StreamedEntry } from './entries';
import { maskSecrets, secretForms, type SecretForms } from './secret-forms';

/** Bytes counted for an entry beside its payload (kind, numbers, names). */
const ENTRY_OVERHEAD = 64;

/** The digest a host call's request is known by: its capability and its arguments as the guest encoded them. */
export function requestDigest(capability: string, args: string): string {
  return `sha256:${createHash('sha256').update(capability).update('\n').update(args).digest('hex')}`;
}

/** How an entry reads in a divergence message. */
export function describeEntry(entry: JournalEntry | undefined): string {
  if (entry === undefined) return 'the end of the journal';
  switch (entry.kind) {
    case 'host_call':
      return `host_call #${entry.call} ${entry.capability} ${entry.request_digest}`;
    case 'clock':
      return 'a clock reading';
    case 'random':
      return `${Buffer.from(entry.bytes, 'base64').byteLength} random bytes`;
    case 'order':
      return 'a timer firing';
  }
}

/** What a replayed asynchronous call start finds in the journal. */
export type StartedInReplay = 'answered' | 'unsent' | 'unanswered' | 'diverged';

export class JournalKeeper {
  /** Entries recorded since the last drain. */
  private pending: StreamedEntry[] = [];
  /** Plan entries taken since the last drain. */
  private replayedPending = 0;
  /** Entries in the run's journal so far (replayed and recorded). */
  private length = 0;
  private bytes = 0;
  private truncated = false;
  /** The truncation has been sent. */
  private toldTruncated = false;
  private cursor = 0;
  private calls = 0;
  private plan: ReplayPlan | null;
  /** Plan index of each recorded call's answer, by the call's start index. */
  private readonly answerOf = new Map<number, number>();
  divergence: Divergence | null = null;
  /**
   * The secret values the run was given (withheld answers), in each form a request may carry
   * them (secret-forms.ts): masked out of later requests before they are digested, so a
   * tape's digests are no oracle for guessing a secret that a request carried.
   */
  private readonly secrets: SecretForms[] = [];
  /** Those values, each once. */
  private readonly secretValues = new Set<string>();

  /**
   * @param limitBytes the journal's bound (0: record nothing; the run is not journalled)
   * @param onLive called once when a live-after replay has used up its entries
   */
  constructor(
    private readonly limitBytes: number,
    plan: ReplayPlan | null,
    private readonly onLive: () => void,
  ) {
    this.plan = plan;
    if (plan) plan.entries.forEach((entry, index) => entry.kind === 'host_call' && !entry.sync && this.answerOf.set(entry.call, index));
  }

  /** Values come from the journal (false: from the world, recorded). */
  get replaying(): boolean {
    if (!this.plan) return false;
    if (this.cursor < this.plan.entries.length || !this.plan.live) return true;
    this.plan = null;
    this.onLive();
    return false;
  }

  /** The next call's start index. */
  nextCall(): number {
    return this.calls++;
  }

  /** Entries in the run's journal so far (replayed ones included). */
  get position(): number {
    return this.length;
  }

  /**
   * What was recorded since the last drain, for the server (undefined: nothing new). After
   * the bound was passed, `truncated` once, then nothing.
   */
  drain(): JournalChunk | undefined {
    if (this.truncated) {
      if (this.toldTruncated) return undefined;
      this.toldTruncated = true;
      return { entries: [], truncated: true };
    }
    if (this.pending.length === 0 && this.replayedPending === 0) return undefined;
    const chunk: JournalChunk = { entries: this.pending, ...(this.replayedPending > 0 ? { replayed: this.replayedPending } : {}) };
    this.pending = [];
    this.replayedPending = 0;
    return chunk;
  }

  /** Keeps an entry within the bound; past it the journal is marked truncated and dropped. */
  record(entry: StreamedEntry, payloadBytes = 0): void {
    if (!this.counted(payloadBytes)) return;
    this.pending.push(entry);
  }

  /** Counts an entry against the bound: false when nothing is being kept (no bound, or passed now or before). */
  private counted(payloadBytes: number): boolean {
    if (this.limitBytes <= 0 || this.truncated) return false;
    this.bytes += ENTRY_OVERHEAD + payloadBytes;
    if (this.bytes > this.limitBytes) {
      this.truncated = true;
      this.pending = [];
      this.replayedPending = 0;
      return false;
    }
    this.length++;
    return true;
  }

  /** A plan entry the run took: the server has it already, only the count travels. */
  private replayed(entry: JournalEntry): void {
    if (this.counted(payloadOf(entry))) this.replayedPending++;
  }

  /** Whether entries are being kept (a bound, not yet passed): callers skip encoding work otherwise. */
  get recording(): boolean {
    return this.limitBytes > 0 && !this.truncated;
  }

  /** The next recorded entry when it is of the wanted kind; otherwise the divergence is noted and null returned. */
  private take<K extends JournalEntry['kind']>(kind: K, wanted: string, matches: (entry: Extract<JournalEntry, { kind: K }>) => boolean = () => true): Extract<JournalEntry, { kind: K }> | null {
    const plan = this.plan!;
    const step = this.cursor;
    const entry = plan.entries[step];
    if (entry === undefined || entry.kind !== kind || !matches(entry as Extract<JournalEntry, { kind: K }>)) {
      this.diverge(step, describeEntry(entry), wanted);
      return null;
    }
    this.cursor++;
    this.replayed(entry);
    return entry as Extract<JournalEntry, { kind: K }>;
  }

  diverge(step: number, expected: string, got: string): void {
    this.divergence ??= { step, expected, got, message: `replay diverged at step ${step}: the journal holds ${expected}, the program asked for ${got}` };
  }

  /** A clock reading: recorded now, or the journal's. Null: diverged. */
  clock(read: () => number): number | null {
    if (!this.replaying) {
      const value = read();
      this.record({ kind: 'clock', value });
      return value;
    }
    return this.take('clock', 'a clock reading')?.value ?? null;
  }

  /** Random bytes (base64): drawn now and recorded, or the journal's. Null: diverged. */
  random(count: number, draw: (count: number) => string): string | null {
    if (!this.replaying) {
      const bytes = draw(count);
      this.record({ kind: 'random', bytes }, bytes.length);
      return bytes;
    }
    return this.take('random', `${count} random bytes`, (entry) => Buffer.from(entry.bytes, 'base64').byteLength === count)?.bytes ?? null;
  }

  /** A withheld answer arrived (its value is a secret): later requests' digests leave that value out. */
  noteWithheld(replyText: string): void {
    let value: unknown;
    try {
      value = (JSON.parse(replyText) as { value?: unknown } | null)?.value;
    } catch {
      return;
    }
    if (typeof value !== 'string' || value === '') return;
    if (this.secretValues.has(value)) return;
    this.secretValues.add(value);
    this.secrets.push(secretForms(value));
  }

  /** The digest a request is known by in this run's journal: its secret values masked. */
  digestOf(capability: string, args: string): string {
    return requestDigest(capability, this.secrets.length === 0 ? args : maskSecrets(args, this.secrets));
  }

  /**
   * A blocking call's recorded entry (the journal's next entry must be it). Null: diverged.
   * A withheld entry (its answer held a secret) is returned too: the replaying host answers
   * that call again, as only it may know the secret.
   */
  syncAnswer(call: number, capability: string, digest: string): HostCallEntry | null {
    return this.take('host_call', `host_call #${call} ${capability} ${digest}`, (e) => e.call === call && e.capability === capability && e.request_digest === digest);
  }

  /** An asynchronous call started during a replay: checked against the answer the journal holds for it. */
  startInReplay(call: number, capability: string, digest: string): StartedInReplay {
    const index = this.answerOf.get(call);
    if (index === undefined) return this.plan?.live ? 'unsent' : 'unanswered';
    const entry = this.plan!.entries[index] as HostCallEntry;
    if (entry.capability !== capability || entry.request_digest !== digest) {
      this.diverge(index, describeEntry(entry), `host_call #${call} ${capability} ${digest}`);
      return 'diverged';
    }
    return 'answered';
  }

  /** What the event loop does next in a replay: deliver an answer, fire timers, or nothing (diverged, or the journal ended). */
  nextTurn(): HostCallEntry | { kind: 'order'; now: number } | null {
    const entry = this.plan!.entries[this.cursor];
    if (entry?.kind === 'order' || (entry?.kind === 'host_call' && !entry.sync)) {
      if (entry.kind === 'host_call' && entry.withheld) {
        this.diverge(this.cursor, `host_call #${entry.call} ${entry.capability} whose answer held a secret (not recorded)`, 'its answer');
        return null;
      }
      this.cursor++;
      this.replayed(entry);
      return entry;
    }
    this.diverge(this.cursor, describeEntry(entry), 'the next event-loop turn (a host-call answer or a timer)');
    return null;
  }
}

/** An entry's payload size, for the bound. */
export function payloadOf(entry: JournalEntry | StreamedEntry): number {
  if (entry.kind === 'random') return entry.bytes.length;
  if (entry.kind !== 'host_call') return 0;
  let bytes = entry.capability.length + entry.request_digest.length;
  if ('callId' in entry) return bytes;
  bytes += entry.reply?.length ?? 0;
  if (entry.reply === undefined && (entry.answer !== undefined || entry.error !== undefined)) bytes += JSON.stringify(entry.answer ?? entry.error ?? null).length;
  for (const blob of entry.blobs ?? []) bytes += blob.length;
  return bytes;
}
