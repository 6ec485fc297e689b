// Public API of the runtime side of the sandbox.
export { RunnerPool, type RunnerPoolOptions } from './pool';
export type { AdmissionLimits } from './admission';
export type { RunLimits } from '../runner/protocol';
export type { RunJob, HostCall, HostReply, HostHandler, HostErrorShape, RunOutcome, RunOutcomeKind, RunError, SuspendedRun } from './types';
