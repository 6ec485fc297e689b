// Public types of the runtime: a run job, host calls and replies, and the outcome.
import type { Attribution, HostErrorShape, HostReply, PackageScript, ProgramScript, RunErrorKind, RunOutcomeKind } from '../contract';
import type { RunLimits } from '../runner/protocol';
import type { Divergence, JournalEntry, RecordedJournal, ReplayPlan } from '../journal/entries';

export type { HostErrorShape, HostReply, RunOutcomeKind };

export interface RunJob {
  executionId: string;
  script: ProgramScript;
  /** Module → function names available to the guest. */
  hostModules: Record<string, string[]>;
  /**
   * Module → guest-side source (trusted, not metered): an expression evaluating to
   * `function (call) { return namespace; }`, where `call(op, ...args)` is the host call.
   */
  guestModules?: Record<string, string>;
  limits: RunLimits;
  signal?: AbortSignal;
  /** Who sent the run (the token's principal): admission shares run slots fairly among them. */
  tenant?: string;
  /** Packages the run loads, in dependency order, each with the Packages it may import. */
  packages?: Array<{ script: PackageScript; imports: string[]; listed: boolean }>;
  /** Answer the run from this journal (a replay; `live`: then go on against the world). */
  journal?: ReplayPlan;
  /** The run parked with no isolate while its calls wait for people (a server may keep this to resume it after a restart); null: it runs again. */
  onSuspended?: (suspended: SuspendedRun | null) => void;
}

/** What a parked run resumes from: its journal so far, and the time its limit has left (ms; 0: no limit). */
export interface SuspendedRun {
  entries: JournalEntry[];
  timeMs: number;
}

export interface HostCall {
  module: string;
  op: string;
  args: unknown[];
  /** Fuel the run has left when it made the call. */
  fuelLeft: number;
  /** Who made the call (runs with Packages only; without it the caller is `main`). */
  attribution?: Attribution;
  /** Aborted when the program gives up on this call (an AbortSignal) or the run ends: stop the work. */
  signal?: AbortSignal;
  /**
   * The call waits for something outside the run (a person's approval): while `work` is
   * pending the run's time limit stops counting. Resolves or rejects as `work` does.
   */
  waiting?: <T>(work: Promise<T>) => Promise<T>;
  /**
   * Sends bytes of the reply's first blob to the runner now, ahead of the reply, which then
   * holds a StreamedBytes (./wire.ts) in its place. Resolves once the chunk is written (the
   * next is read only then); false when the call or its run ended. Absent when the reply
   * must stay whole (the run's journal keeps answers).
   */
  sendBytes?: (chunk: Uint8Array) => Promise<boolean>;
  /**
   * Set when the run's journal keeps whole answers: `sendBytes` may then be used only once
   * the blob is known to be larger than this many bytes, which the journal could not hold
   * (sending the first chunk gives the journal up). Absent: stream from the first byte.
   */
  sendBytesPast?: number;
}

export type HostHandler = (call: HostCall) => Promise<HostReply>;


export interface RunError {
  kind: RunErrorKind;
  message: string;
  caller?: string;
  capability?: string;
  source?: string;
}

export interface RunOutcome {
  outcome: RunOutcomeKind;
  result: string | null;
  console: string[];
  error: RunError | null;
  wasmFuel: number;
  hostFuel: number;
  memoryPeak: number;
  wallMs: number;
  /**
   * The program did not produce this end: its runner was lost to another run's crash (or to
   * a crash no run could be blamed for). Such an answer is never kept for an idempotency key.
   */
  lost?: true;
  /** What entered the program (journalled runs). */
  journal?: RecordedJournal;
  /** A replay asked for something its journal does not hold, and stopped there. */
  divergence?: Divergence;
}
