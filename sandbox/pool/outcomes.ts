// How a run's end reads to its caller: the messages of limit ends (they begin with stable
// markers agents and tests read), and the RunOutcome built from a runner's checked report
// or from an end the pool decides itself (a cancellation, a crash, a refusal).
import { HOST_ERRORS } from '../contract';
import type { CheckedOutcome } from './report';
import { cpuLimitMessage } from '../runner/cpu-limit';
import type { RunError, RunJob, RunOutcome } from './types';

/**
 * What a run hears when its runner was lost and it could not be run again on another
 * (a run that had not called the host is, once). Not a limit of its own: the kind is
 * `runtime_error` (interface.md's "the run failed otherwise"; it has no kind for this), and
 * the message begins with a stable marker: `lost to another run's crash` when another run
 * it shared the runner with broke it, `lost to a runner crash` when no run could be named.
 */
export function lostMessage(culpritKnown: boolean, calledHost: boolean): string {
  const headline = culpritKnown
    ? "lost to another run's crash: the runner process hosting this run was replaced because another run it hosted broke it (not a limit of this run)"
    : 'lost to a runner crash: the runner process hosting this run stopped and was replaced, and no run it hosted could be named as the cause';
  const why = calledHost ? 'it had already called the host, so running it again could repeat an effect' : 'it had already been run again once after losing its runner';
  return `${headline}; ${why}: run it again`;
}

/** A run the runner's loss ended: its error is the pool's, never the program's (an idempotency key does not keep it). */
export function lostOutcome(job: RunJob, wallMs: number, culpritKnown: boolean, calledHost: boolean): RunOutcome {
  return { ...endedOutcome(job, 'error', wallMs, lostMessage(culpritKnown, calledHost)), lost: true };
}

/** Limit messages begin with stable markers (agents and tests read them). */
export function limitMessage(kind: string, limits: RunJob['limits']): string {
  switch (kind) {
    case 'fuel_exhausted':
      return `fuel exhausted: the run used its whole budget of ${limits.fuel} fuel (max_execution_fuel); do less work per run or split it across runs`;
    case 'timeout':
      return `timeout exceeded: the run passed its time limit of ${limits.timeMs / 1000} s (max_execution_time)`;
    case 'memory_exhausted':
      return `memory exhausted: the run passed its limit of ${limits.memoryMb} MB (max_execution_memory): out of memory; process the data in smaller pieces`;
    case 'stack_exhausted':
      return `call stack exhausted: the call depth passed the limit of about ${Math.max(16, limits.stackKib * 4)} frames (max_execution_stack ${limits.stackKib} KiB); make deep recursion iterative or raise max_execution_stack`;
    case 'cancelled':
      return 'cancelled: the run was stopped before it finished (the server cancelled it, for example while shutting down)';
    default:
      return 'the run crashed the sandbox; the server replaced the runner';
  }
}

/** An end the pool decides without a report: nothing of the run's own output survives it. */
export function endedOutcome(job: RunJob, kind: RunOutcome['outcome'], wallMs: number, message?: string): RunOutcome {
  const error: RunError | null = kind === 'ok' ? null : { kind: kind === 'error' ? 'runtime_error' : kind, message: message ?? limitMessage(kind, job.limits) };
  return { outcome: kind, result: null, console: [], error, wasmFuel: kind === 'fuel_exhausted' ? job.limits.fuel : 0, hostFuel: 0, memoryPeak: kind === 'memory_exhausted' ? job.limits.memoryMb * 1048576 : 0, wallMs };
}

/** The headline with the runner's rendered trace (frames and excerpt) under it. */
function withTrace(headline: string, trace: string | undefined): string {
  return trace ? `${headline}\n${trace}` : headline;
}

/** The outcome of a runner's report (already checked field by field, traces already rendered by the runner). */
export function reportedOutcome(job: RunJob, raw: CheckedOutcome): RunOutcome {
  const base = { console: raw.console, wasmFuel: raw.wasmFuel, hostFuel: raw.hostFuel, memoryPeak: raw.memoryPeak, wallMs: raw.wallMs, ...(raw.divergence ? { divergence: raw.divergence } : {}) };
  if (raw.kind === 'ok') return { ...base, outcome: 'ok', result: raw.result, error: null };
  if (raw.kind === 'error' || raw.kind === 'crashed') {
    const failure = raw.failure ?? { name: 'Error', message: 'the run failed inside the sandbox' };
    const headline = failure.headline ?? (failure.message === '' ? failure.name : `${failure.name}: ${failure.message}`);
    const message = withTrace(headline, failure.trace);
    // Only the runtime's own refusal carries its facts (a PermissionDeniedError the program
    // constructed has none); it escapes as its HOST_ERRORS row says.
    if (failure.denied) {
      return { ...base, outcome: 'error', result: null, error: { kind: HOST_ERRORS.PermissionDeniedError.escapesAs, message, caller: failure.denied.caller, capability: failure.denied.capability, source: failure.denied.source } };
    }
    return { ...base, outcome: 'error', result: null, error: { kind: 'runtime_error', message } };
  }
  const headline = raw.cpuLimited && (raw.kind === 'fuel_exhausted' || raw.kind === 'timeout') ? cpuLimitMessage(job.limits) : limitMessage(raw.kind, job.limits);
  // A fuel end names where the run stopped, with the excerpt.
  const message = raw.kind === 'fuel_exhausted' ? withTrace(headline, raw.limitTrace) : headline;
  return { ...base, outcome: raw.kind, result: null, error: { kind: raw.kind, message } };
}
