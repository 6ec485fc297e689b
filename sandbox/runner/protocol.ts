// Messages between the server's RunnerPool and a runner child process (IPC).
import type { RunOutcomeKind } from '../contract';
import type { RunLimits } from '../pool/types';

export interface RunMessage {
  type: 'run';
  runId: number;
  code: string;
  filename: string;
  hostModules: Record<string, string[]>;
  guestModules: Record<string, string>;
  limits: RunLimits;
  usesTemporal: boolean;
  /** Packages the run loads, in dependency order (`key` names the compiled script a runner may keep). */
  packages?: RunPackage[];
}

export interface RunPackage {
  name: string;
  key: string;
  code: string;
  filename: string;
  /** Packages this one may import (its declared dependencies). */
  imports: string[];
  /** The Blueprint lists it: the program may import it (dependencies alone it may not). */
  listed: boolean;
}

export interface HostReplyMessage {
  type: 'host-reply';
  runId: number;
  callId: number;
  /** Reply JSON as the guest reads it. */
  reply: string;
  /** Host fuel the reply charges (also inside `reply`). */
  fuel: number;
}

export interface CancelMessage {
  type: 'cancel';
  runId: number;
}

export type ToRunner = RunMessage | HostReplyMessage | CancelMessage;

export interface GuestFailure {
  name: string;
  message: string;
  /** Replaces `name: message` as the first line (a thrown non-Error value: `Uncaught <value>`). */
  headline?: string;
  stack?: string;
  denied?: { caller: string; capability: string; source: string };
}

export interface RunnerOutcome {
  /** How the run ended, in the audit vocabulary, plus `error` for program failures. */
  kind: RunOutcomeKind | 'crashed';
  result: string | null;
  failure: GuestFailure | null;
  /** Stack at the limit end (fuel), for the location in the message. */
  limitStack?: string;
  console: string[];
  wasmFuel: number;
  hostFuel: number;
  memoryPeak: number;
  wallMs: number;
}

/**
 * Who made a host call, from the guest's stack (only in runs that load Packages):
 * `caller` owns the innermost program or Package frame; `consumer` is who a Package's
 * `check()` speaks for. `null`: not identifiable (refused as an invariant).
 */
export interface Attribution {
  caller: string | null;
  consumer: string | null;
}

export type FromRunner =
  | { type: 'ready' }
  | { type: 'heartbeat' }
  /**
   * The run's synchronous attempt starts on the runner's main thread (sent only while other
   * runs share the runner): if the thread never comes back, the pool knows whose run hung it.
   */
  | { type: 'slice'; runId: number }
  | { type: 'host-call'; runId: number; callId: number; module: string; op: string; args: string; fuelLeft: number; attribution?: Attribution }
  /** The program gave up on an asynchronous call (an abort): the host stops its work, and no reply is wanted. */
  | { type: 'host-cancel'; runId: number; callId: number }
  /** `retiring`: this runner holds an isolate that cannot stop; it must get no further run and be replaced once its other runs end. */
  | { type: 'done'; runId: number; outcome: RunnerOutcome; retiring?: boolean }
  /** `runId`: the run whose isolate failed (the process exits; its other runs end as crashes). */
  | { type: 'catastrophic'; message: string; runId?: number };
