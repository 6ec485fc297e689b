// Messages between the server's RunnerPool and a runner child process (IPC).
import { textBytes } from '../bounded-cache';
import type { Attribution, DenialFacts, RunOutcomeKind } from '../contract';
import type { Divergence, JournalChunk, ReplayPlan } from '../journal/entries';

/**
 * The most a host call's encoded arguments may hold (UTF-16 units of the JSON text): the
 * runner refuses a larger call before sending it and the pool before parsing it, so one
 * call cannot make the server hold or parse an unbounded message.
 */
export const MAX_HOST_CALL_ARGS_CHARS = 64 * 1024 * 1024;

/** The refusal a program sees for a call over MAX_HOST_CALL_ARGS_CHARS. */
export function hostCallTooLarge(module: string, op: string, chars: number): string {
  return `${module}.${op}: the call's arguments encode to ${chars} characters; a host call takes at most ${MAX_HOST_CALL_ARGS_CHARS} (write large data in pieces)`;
}

/**
 * Arguments whose JSON text is longer than this travel ahead of their call in pieces of
 * ARGS_PIECE_BYTES of UTF-8 (`host-call-args`), so the server's event loop never receives,
 * concatenates or holds a 16 MiB string in one turn: it moves each piece and hands them all
 * to a host worker thread, which decodes them.
 */
export const ARGS_IN_PIECES_CHARS = 256 * 1024;
export const ARGS_PIECE_BYTES = 256 * 1024;

/** The most UTF-8 bytes arguments of MAX_HOST_CALL_ARGS_CHARS encode to (3 per UTF-16 unit). */
export const MAX_HOST_CALL_ARGS_BYTES = 3 * MAX_HOST_CALL_ARGS_CHARS;

/** What one run may use; the runner enforces each (the pool only backs the time limit up). */
export interface RunLimits {
  memoryMb: number;
  /** 0 = no limit. */
  timeMs: number;
  fuel: number;
  /** CPU time one run may use (max_execution_cpu; 0 or absent: only what its fuel buys, ./cpu-limit.ts). */
  cpuMs?: number;
  stackKib: number;
  /** Asynchronous host calls the run may have in flight at once (default 64). */
  hostCallsInFlight?: number;
  /** Bytes the run's journal may hold (0 or absent: the run is not journalled). */
  journalBytes?: number;
  /** Bytes of the journal a replay was given (its recorded journal holds them again). */
  replayBytes?: number;
}

export interface RunMessage {
  type: 'run';
  runId: number;
  code: string;
  filename: string;
  hostModules: Record<string, string[]>;
  guestModules: Record<string, string>;
  limits: RunLimits;
  usesTemporal: boolean;
  /** Content hash of the program (`ProgramScript.key`). */
  programKey: string;
  /**
   * Source map of `code` (v3 JSON) and the program's source: the runner maps a failure's
   * stack with them. Left out when this runner was sent them for `programKey` lately (see
   * PROGRAM_MAPS_KEPT).
   */
  sourceMap?: string;
  source?: string;
  /** Packages the run loads, in dependency order (`key` names the compiled script a runner may keep). */
  packages?: RunPackage[];
  /** No CPU slot yet: the run runs no code until a `cpu-grant` (absent: the message is the grant). */
  waitForCpu?: true;
  /** Replay this journal instead of asking the world (sandbox/journal). */
  journal?: ReplayPlan;
}

/**
 * How many programs' maps a runner keeps (by recency, within PROGRAM_MAP_BYTES); the pool
 * assumes half of each, so a map it leaves out is always still in the runner.
 */
export const PROGRAM_MAPS_KEPT = 64;
export const PROGRAM_MAP_BYTES = 64 * 1024 * 1024;

/** The size the runner's bookkeeping and the pool's both count for a map and its source. */
export function mapBytes(entry: { sourceMap: string; source: string }): number {
  return textBytes(entry.sourceMap) + textBytes(entry.source);
}

export interface RunPackage {
  name: string;
  key: string;
  code: string;
  filename: string;
  /** Source map of `code` back to the Package's sources (for its stack frames); left out like RunMessage.sourceMap. */
  sourceMap?: string;
  /** Packages this one may import (its declared dependencies). */
  imports: string[];
  /** The Blueprint lists it: the program may import it (dependencies alone it may not). */
  listed: boolean;
}

export interface HostReplyMessage {
  type: 'host-reply';
  runId: number;
  callId: number;
  /** Reply JSON as the guest reads it; its bytes are `{ [BYTES_TAG]: n }`, n an index into `blobs`. */
  reply: string;
  /**
   * The reply's bytes, as binary. A blob over REPLY_CHUNK_BYTES is `null` here: it came
   * before this message in `host-reply-bytes` chunks, in order.
   */
  blobs?: Array<Uint8Array | null>;
  /** Host fuel the reply charges (also inside `reply`). */
  fuel: number;
  /** The answer holds a secret: the journal keeps no copy of it. */
  withheld?: true;
  /** The run, parked, holds a CPU slot again with this reply (sandbox/pool/cpu-slots.ts). */
  grant?: true;
}

/** A run that parked or waited to start may compute again: it holds a CPU slot. */
export interface CpuGrantMessage {
  type: 'cpu-grant';
  runId: number;
}

/** A host call of the run waits for a person (`paused`) or no longer does: its time limit stops or resumes counting. */
export interface ClockMessage {
  type: 'clock';
  runId: number;
  paused: boolean;
}

/**
 * The pool finds every call the run has in flight at the server waiting for a person
 * (`waiting` of them): if the run has nothing else to do (no timer, no other call, no reply
 * to deliver), its isolate ends and the run is `suspended`, to be resumed from its journal.
 */
export interface SuspendMessage {
  type: 'suspend';
  runId: number;
  waiting: number;
}

export interface CancelMessage {
  type: 'cancel';
  runId: number;
}

/** Bytes of a reply's blob over REPLY_CHUNK_BYTES sent ahead of the reply, one chunk at a time. */
export interface HostReplyBytesMessage {
  type: 'host-reply-bytes';
  runId: number;
  callId: number;
  /** The blob's index in the reply's `blobs`. */
  blob: number;
  chunk: Uint8Array;
}

/**
 * A reply's blob larger than this travels in chunks of this size, each sent after the one
 * before has been written: the server's event loop copies at most this much per turn.
 */
export const REPLY_CHUNK_BYTES = 1024 * 1024;

export type ToRunner = RunMessage | HostReplyMessage | HostReplyBytesMessage | CancelMessage | CpuGrantMessage | ClockMessage | SuspendMessage;

export interface GuestFailure {
  name: string;
  message: string;
  /** Replaces `name: message` as the first line (a thrown non-Error value: `Uncaught <value>`). */
  headline?: string;
  /** The program's own stack text, cut to size in the isolate; it never leaves the runner. */
  stack?: string;
  denied?: DenialFacts;
}

export interface RunnerOutcome {
  /** How the run ended, in the audit vocabulary, plus `error` for program failures. */
  kind: RunOutcomeKind | 'crashed';
  result: string | null;
  failure: GuestFailure | null;
  /** Stack at the limit end (fuel), for the location in the message. */
  limitStack?: string;
  /** The limit struck was the run's CPU time (./cpu-limit.ts), not its counted fuel or wall time. */
  cpuLimited?: boolean;
  console: string[];
  wasmFuel: number;
  hostFuel: number;
  memoryPeak: number;
  wallMs: number;
  /** What entered the program since the run's last host call, when the run is journalled. */
  journal?: JournalChunk;
  /** A replay asked for something its journal does not hold (the run stopped there). */
  divergence?: Divergence;
}

/** A failure as reported: the stack already mapped to the sources and rendered (render-stack.ts). */
export interface ReportedFailure extends Omit<GuestFailure, 'stack'> {
  /** Frames and source excerpt shown under the headline; bounded in size. */
  trace?: string;
}

/** The outcome a runner reports to the server: no guest stack text, only rendered traces. */
export interface RunReport extends Omit<RunnerOutcome, 'failure' | 'limitStack'> {
  failure: ReportedFailure | null;
  /** Where a fuel end stopped, rendered like `trace`. */
  limitTrace?: string;
}

export type FromRunner =
  /** `rss`: the runner's resident bytes at the time (the pool's runner_memory_recycle bound). */
  | { type: 'ready'; rss?: number }
  | { type: 'heartbeat'; rss?: number }
  /**
   * The run's synchronous attempt starts on the runner's main thread (sent only while other
   * runs share the runner): if the thread never comes back, the pool knows whose run hung it.
   */
  | { type: 'slice'; runId: number }
  /**
   * `blocking`: the isolate waits for the reply (a synchronous call), so the run gives back its CPU slot.
   * `call`: its start index in the run (its name in the journal); `journal`: what the run recorded since its previous message.
   */
  | { type: 'host-call'; runId: number; callId: number; call: number; module: string; op: string; args: string; fuelLeft: number; attribution?: Attribution; blocking?: true; journal?: JournalChunk; argsBytes?: number; argsDigest?: string }
  /**
   * A piece of the UTF-8 text of the arguments of host call `callId`, which follows its
   * pieces (in order) with `args` '' and `argsBytes` their total; `argsDigest`, the journal's
   * digest of the call when the run keeps one, names the arguments for a resumed run.
   */
  | { type: 'host-call-args'; runId: number; callId: number; piece: Uint8Array }
  /** The run parked (awaiting the host or a timer): it gives back its CPU slot. */
  | { type: 'cpu-free'; runId: number }
  /** The parked run has work (a reply arrived, a timer is due): it waits for a `cpu-grant`. */
  | { type: 'cpu-want'; runId: number }
  /** The program gave up on an asynchronous call (an abort): the host stops its work, and no reply is wanted. */
  | { type: 'host-cancel'; runId: number; callId: number }
  /** `retiring`: this runner holds an isolate that cannot stop; it must get no further run and be replaced once its other runs end. */
  | { type: 'done'; runId: number; outcome: RunReport; retiring?: boolean }
  /** The run's isolate ended at the pool's `suspend` (it only waited for people); `journal`: what it recorded since its last host call. */
  | { type: 'suspended'; runId: number; journal?: JournalChunk }
  /** `runId`: the run whose isolate failed (the process exits; its other runs end as crashes). */
  | { type: 'catastrophic'; message: string; runId?: number };
