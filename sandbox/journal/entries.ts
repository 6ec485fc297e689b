// A run's journal: every value that entered the program from outside, in the order it
// entered. The runner records it (sandbox/journal/keeper.ts), the pool checks it, the
// server keeps it and exports it as a tape (src/journal). The same program replayed
// against it takes each value from here instead of from the world.

/**
 * One host call's answer, recorded when the program received it. `call` is the call's
 * start index in the run (calls start in program order; answers may arrive in any order).
 * The answer travels as the reply text the guest read (`reply`) or, in a tape, as the
 * decoded `answer`/`error`; either rebuilds the same text (./reply.ts).
 */
export interface HostCallEntry {
  kind: 'host_call';
  call: number;
  capability: string;
  request_digest: string;
  /** The call blocked the isolate (answered during the program's turn, not by the event loop). */
  sync?: true;
  reply?: string;
  answer?: unknown;
  error?: { name: string; message: string; [key: string]: unknown };
  /** The reply's bytes (base64), referred to from the reply by index. */
  blobs?: string[];
  /** Host fuel the reply charged. */
  fuel: number;
  /** The answer held a secret: it was not recorded, and the run cannot be replayed past it. */
  withheld?: true;
}

/** A clock reading (Date.now, new Date(), performance.now, timers' due times). */
export interface ClockEntry {
  kind: 'clock';
  value: number;
}

/** Random bytes (crypto.getRandomValues, randomUUID, and the seed of Math.random), base64. */
export interface RandomEntry {
  kind: 'random';
  bytes: string;
}

/** An event-loop turn that fired a due timer at the recorded time (host-call answers order themselves by their entries). */
export interface OrderEntry {
  kind: 'order';
  event: 'timer';
  now: number;
}

export type JournalEntry = HostCallEntry | ClockEntry | RandomEntry | OrderEntry;

/**
 * A host call's entry as the runner streams it: without the answer, which the pool sent and
 * still holds under `callId` (sandbox/journal/intake.ts), so no answer crosses the channel twice.
 */
export type StreamedHostCall = Omit<HostCallEntry, 'reply' | 'blobs' | 'answer' | 'error'> & { callId: number };

export type StreamedEntry = ClockEntry | RandomEntry | OrderEntry | StreamedHostCall;

/**
 * What a runner sends of a run's journal with each host call and with its report: the
 * entries recorded since its previous message. `replayed`: how many more of the replay
 * plan's entries the run took (they come before `entries`); `truncated`: the journal passed
 * its bound, and whatever the server holds of it is void.
 */
export interface JournalChunk {
  entries: StreamedEntry[];
  replayed?: number;
  truncated?: true;
}

/** What a run recorded. `truncated`: it passed its byte bound; the entries stop there and the run cannot be replayed. */
export interface RecordedJournal {
  entries: JournalEntry[];
  truncated: boolean;
  bytes: number;
}

/**
 * A run to replay: answer everything from `entries`. `live`: once they are used up the run
 * goes on against the world (resume, fork) and records what follows; otherwise running past
 * them is a divergence.
 */
export interface ReplayPlan {
  entries: JournalEntry[];
  live: boolean;
}

/** The first point where a replayed program asked for something other than the journal holds. */
export interface Divergence {
  step: number;
  expected: string;
  got: string;
  message: string;
}
