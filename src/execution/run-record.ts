// The audit pair every run writes (`started`, then `finished` with its outcome and usage),
// including requests refused before the program ran, and the server-log line of each run.
import { createHash } from 'node:crypto';
import type { AuditWriter, ExecutionRecord, ServerLog } from '../audit';
import type { RunOutcomeKind } from '../../sandbox';
import type { ExecuteError } from './result';

/** The fields a run's `started` and `finished` records share. */
export type ExecutionRecordBase = Pick<ExecutionRecord, 'type' | 'execution_id' | 'entry_point' | 'session_id' | 'principal' | 'blueprint' | 'blueprint_hash' | 'vars' | 'source_hash' | 'source_size'>;

/** How a run ended and what it used, for its `finished` record and log line. */
export interface RunUsage {
  outcome: RunOutcomeKind;
  /**
   * The `error_class` of the record: the execute error kind, or a refusal's own class
   * (`blueprint_not_found`, `invalid_request`, ...). A string until the error kinds are one list.
   */
  errorClass?: ExecuteError['kind'];
  wasmFuel: number;
  hostFuel: number;
  memoryPeak: number;
  wallMs: number;
  tokens?: { model_tokens: number; embedding_tokens: number };
}

/** Usage of a run that never ran. */
export const NO_USAGE = { wasmFuel: 0, hostFuel: 0, memoryPeak: 0, wallMs: 0 } as const;

/** The program's hash and size (the audit never holds the source itself). */
export function sourceFacts(code: string): Pick<ExecutionRecord, 'source_hash' | 'source_size'> {
  return { source_hash: createHash('sha256').update(code, 'utf8').digest('hex'), source_size: Buffer.byteLength(code, 'utf8') };
}

/** The server-log outcome vocabulary folds every other failure into `error`. */
function logOutcome(outcome: RunOutcomeKind): 'ok' | 'fuel_exhausted' | 'timeout' | 'memory_exhausted' | 'error' {
  return outcome === 'ok' || outcome === 'fuel_exhausted' || outcome === 'timeout' || outcome === 'memory_exhausted' ? outcome : 'error';
}

/** Writes the run's `finished` record and its server-log line. */
export function recordFinished(audit: AuditWriter, log: ServerLog, base: ExecutionRecordBase, usage: RunUsage): void {
  const fuel = usage.wasmFuel + usage.hostFuel;
  audit.write({
    ...base,
    event: 'finished',
    outcome: usage.outcome,
    ...(usage.outcome !== 'ok' && usage.errorClass ? { error_class: usage.errorClass } : {}),
    fuel,
    wasm_fuel: usage.wasmFuel,
    host_fuel: usage.hostFuel,
    memory_peak: usage.memoryPeak,
    model_tokens: usage.tokens?.model_tokens ?? 0,
    embedding_tokens: usage.tokens?.embedding_tokens ?? 0,
    wall_ms: usage.wallMs,
  });
  log.info('svc_server::execute', 'execution finished', {
    execution_id: base.execution_id,
    blueprint: base.blueprint,
    session: base.session_id,
    fuel,
    wasm_fuel: usage.wasmFuel,
    host_fuel: usage.hostFuel,
    memory_peak: usage.memoryPeak,
    wall_ms: usage.wallMs,
    outcome: logOutcome(usage.outcome),
  });
}

/** The audit pair of a request refused before anything ran (no log line: nothing ran). */
export function recordRefused(audit: AuditWriter, base: ExecutionRecordBase, errorClass: string): void {
  audit.write({ ...base, event: 'started' });
  audit.write({ ...base, event: 'finished', outcome: 'error', error_class: errorClass, fuel: 0, wasm_fuel: 0, host_fuel: 0, memory_peak: 0, model_tokens: 0, embedding_tokens: 0, wall_ms: 0 });
}
