// What the pool keeps of each run it was given and of each runner process it hosts them in.
import type { ChildProcess } from 'node:child_process';
import type { ArgsPieces } from './args-pieces';
import type { BoundedCache } from '../bounded-cache';
import type { HostHandler, HostReply, RunJob, RunOutcome } from './types';
import type { JournalIntake } from '../journal/intake';

export interface ActiveRun {
  runId: number;
  job: RunJob;
  host: HostHandler;
  resolve: (outcome: RunOutcome) => void;
  started: number;
  timers: NodeJS.Timeout[];
  settled: boolean;
  /** Who sent the run (admission shares slots fairly among them). */
  tenant: string;
  memoryMb: number;
  /** Admitted (counted in flight) and given to this runner. */
  admitted: boolean;
  runner: Runner | null;
  /** Host calls being answered, by call id: a cancellation from the guest aborts one. */
  calls: Map<number, AbortController>;
  /** Host calls the server has read from it: once one has, the run may have had effects and is never run again. */
  hostCalls: number;
  /** Runners it was given to (a run lost with its runner before calling the host gets one more). */
  attempts: number;
  /** Counts its placements on runners: an answer to a call of an earlier placement (another runner, or the same one before a park) is never delivered. */
  placement: number;
  /** Its time limit's clock: stopped while any of its host calls waits for a person (clock.ts). */
  clock: { holds: number; pausedSince: number | null; pausedMs: number };
  /**
   * Host calls of a journalled run whose answers its streamed journal does not hold yet, by
   * start index: a run resumed on another runner gets these answers again, never a second call.
   */
  outstanding: Map<number, OutstandingCall>;
  /** Its journal as streamed so far (journalled runs only). */
  journal: JournalIntake | null;
  /** max_runs_parked refused to park it once (the refusal is counted once per run). */
  parkRefused?: boolean;
  /** Removes the run's abort listener (a listener left behind keeps the whole job alive). */
  detach?: () => void;
  /**
   * Its runner was told to cancel it. A runtime error it ends with from then on is the
   * cancellation's: its host calls in flight fail as the server lets go of them (at shutdown,
   * the network thread's requests), and the program may not catch what they throw.
   */
  cancelling?: boolean;
}

/** A run as the pool first holds it: not admitted, on no runner, its clock running. */
export function newActiveRun(runId: number, job: RunJob, host: HostHandler, resolve: (outcome: RunOutcome) => void, journal: JournalIntake | null): ActiveRun {
  return { runId, job, host, resolve, started: Date.now(), timers: [], settled: false, tenant: job.tenant ?? '', memoryMb: job.limits.memoryMb, admitted: false, runner: null, calls: new Map(), hostCalls: 0, attempts: 0, placement: 0, clock: { holds: 0, pausedSince: null, pausedMs: 0 }, outstanding: new Map(), journal };
}

/** A host call being answered, or answered, for a run that may be resumed (ActiveRun.outstanding). */
export interface OutstandingCall {
  capability: string;
  /** The arguments as the guest encoded them: a resumed run's call is the same only with the same text. */
  args: string;
  reply: Promise<HostReply>;
  cancel: AbortController;
}

export interface Runner {
  child: ChildProcess;
  ready: boolean;
  /** Runs this runner hosts, by run id. */
  runs: Map<number, ActiveRun>;
  lastHeard: number;
  catastrophic: { message: string; runId: number | null } | null;
  /** The run whose synchronous attempt holds the runner's main thread, if it said so. */
  slicing: number | null;
  /** Holds an isolate that cannot stop, or passed its memory bound: gets no further run, replaced once its runs end. */
  draining: boolean;
  /** Resident bytes it last reported (with `ready` and each heartbeat); 0 before it has. */
  rss: number;
  /** Hosts only the runs of quarantined tenants (sandbox/pool/quarantine.ts); the others never share it. */
  quarantine?: boolean;
  /** Programs whose source map and source this runner holds (half its own budget). */
  maps: BoundedCache<number>;
  /** Pieces of host calls' arguments sent ahead of their calls, by `runId:callId` (./args-pieces.ts). */
  argsPieces?: ArgsPieces;
}
