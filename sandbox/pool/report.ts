// What a runner sends is data to check, not to trust: the run report and host-call
// messages are read field by field into known shapes. A report in any other shape is
// refused (the run ends as an error); figures are clamped to what the run could spend.
import { DENIAL_SOURCES, RUN_OUTCOME_KINDS } from '../contract';
import { ARGS_PIECE_BYTES, MAX_HOST_CALL_ARGS_BYTES, type FromRunner, type ReportedFailure, type RunLimits, type RunReport } from '../runner/protocol';
import { readDivergence } from '../journal/check';
import type { JournalChunk } from '../journal/entries';

/** What a runner may report: a run outcome, or `crashed` (the runner's own failure). */
const KINDS: ReadonlySet<string> = new Set<string>([...RUN_OUTCOME_KINDS, 'crashed']);
const DENIALS: ReadonlySet<string> = new Set(DENIAL_SOURCES);
/** Text fields are capped so a report cannot grow the server's memory without bound. */
const MAX_TEXT = 1024 * 1024;
/** A rendered trace: 20 frames and a bounded excerpt fit many times over. */
const MAX_TRACE = 16 * 1024;
const MAX_CONSOLE_LINES = 10_001;
/** The runner keeps 1 MiB of console text plus one note of what it dropped. */
const MAX_CONSOLE_CHARS = 1024 * 1024 + 4096;
/** The guest refuses results over 16 MiB of UTF-8; a longer text cannot be an honest result. */
const MAX_RESULT_CHARS = 16 * 1024 * 1024;

function consoleWithinBound(lines: unknown[]): boolean {
  let chars = 0;
  for (const line of lines) {
    if (typeof line !== 'string') return false;
    chars += line.length;
    if (chars > MAX_CONSOLE_CHARS) return false;
  }
  return true;
}

/** A report read field by field; its journal chunk is left for the pool's JournalIntake. */
export type CheckedOutcome = Omit<RunReport, 'journal'>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown, max = MAX_TEXT): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** A finite figure in [0, max]; anything else counts as 0. */
function figure(value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return 0;
  return Math.min(value, max);
}

function failureOf(value: unknown): ReportedFailure | null | undefined {
  if (value === null || value === undefined) return null;
  if (!isRecord(value)) return undefined;
  const name = text(value.name, 4096);
  const message = text(value.message);
  if (name === undefined || message === undefined) return undefined;
  const failure: ReportedFailure = { name, message };
  const headline = text(value.headline);
  if (headline !== undefined) failure.headline = headline;
  const trace = text(value.trace, MAX_TRACE);
  if (trace !== undefined) failure.trace = trace;
  const denied = value.denied;
  if (isRecord(denied)) {
    const caller = text(denied.caller, 4096);
    const capability = text(denied.capability, 4096);
    const source = text(denied.source, 64);
    if (caller !== undefined && capability !== undefined && source !== undefined && DENIALS.has(source)) failure.denied = { caller, capability, source };
  }
  return failure;
}

/** The run report in its known shape, or null when the runner sent something else. */
export function readOutcome(raw: unknown, limits: RunLimits): CheckedOutcome | null {
  if (!isRecord(raw) || typeof raw.kind !== 'string' || !KINDS.has(raw.kind)) return null;
  const kind = raw.kind as RunReport['kind'];
  if (kind === 'ok' && raw.result !== null && (typeof raw.result !== 'string' || raw.result.length > MAX_RESULT_CHARS)) return null;
  const failure = failureOf(raw.failure);
  if (failure === undefined) return null;
  if (!Array.isArray(raw.console) || raw.console.length > MAX_CONSOLE_LINES || !consoleWithinBound(raw.console)) return null;
  const budget = Number.isFinite(limits.fuel) && limits.fuel > 0 ? limits.fuel : Number.MAX_SAFE_INTEGER;
  const hostFuel = figure(raw.hostFuel, budget);
  return {
    kind,
    result: kind === 'ok' ? ((raw.result as string | null) ?? null) : null,
    failure,
    limitTrace: text(raw.limitTrace, MAX_TRACE),
    ...(raw.cpuLimited === true ? { cpuLimited: true } : {}),
    console: raw.console as string[],
    // The run cannot have spent more than its budget, whatever the report says.
    wasmFuel: figure(raw.wasmFuel, Math.max(0, budget - hostFuel)),
    hostFuel,
    memoryPeak: figure(raw.memoryPeak, Number.MAX_SAFE_INTEGER),
    wallMs: figure(raw.wallMs, Number.MAX_SAFE_INTEGER),
    ...divergenceOf(raw),
  };
}

/** A replay's divergence, when the report carries one in its known shape (the journal chunk is the pool's JournalIntake's to read). */
function divergenceOf(raw: Record<string, unknown>): Pick<RunReport, 'divergence'> {
  const divergence = raw.divergence === undefined ? undefined : readDivergence(raw.divergence);
  return divergence ? { divergence } : {};
}

/** A runner's host-call message; `pieces`: its arguments' UTF-8 as they arrived ahead of it (`argsBytes`). */
export type HostCallMessage = Extract<FromRunner, { type: 'host-call' }> & { pieces?: Uint8Array[] };

/** A piece of a host call's arguments (`host-call-args`) in its known shape, or null. */
export function readArgsPiece(raw: unknown): Extract<FromRunner, { type: 'host-call-args' }> | null {
  if (!isRecord(raw)) return null;
  const { runId, callId, piece } = raw;
  if (typeof runId !== 'number' || typeof callId !== 'number' || !(piece instanceof Uint8Array) || piece.byteLength > ARGS_PIECE_BYTES) return null;
  return { type: 'host-call-args', runId, callId, piece };
}

/** A host-call message in its known shape, or null. */
export function readHostCall(raw: unknown): HostCallMessage | null {
  if (!isRecord(raw)) return null;
  const { runId, callId, module, op, args, fuelLeft, attribution } = raw;
  if (typeof runId !== 'number' || typeof callId !== 'number' || typeof module !== 'string' || typeof op !== 'string' || typeof args !== 'string') return null;
  // A start index the runner did not give (or gave oddly) only means the call cannot be matched on a resume.
  const index = Number.isSafeInteger(raw.call) && (raw.call as number) >= 0 ? (raw.call as number) : -1;
  const call: HostCallMessage = { type: 'host-call', runId, callId, call: index, module, op, args, fuelLeft: typeof fuelLeft === 'number' && Number.isFinite(fuelLeft) ? fuelLeft : 0 };
  // Names only, checked against the run's principals by the host; anything else is "unknown".
  if (isRecord(attribution)) call.attribution = { caller: text(attribution.caller, 256) ?? null, consumer: text(attribution.consumer, 256) ?? null };
  if (raw.blocking === true) call.blocking = true;
  // Arguments sent ahead in pieces: their total, within the bound the runner keeps; '' text.
  if (raw.argsBytes !== undefined) {
    if (!Number.isSafeInteger(raw.argsBytes) || (raw.argsBytes as number) < 0 || (raw.argsBytes as number) > MAX_HOST_CALL_ARGS_BYTES || args !== '') return null;
    call.argsBytes = raw.argsBytes as number;
    const digest = text(raw.argsDigest, 256);
    if (digest !== undefined) call.argsDigest = digest;
  }
  // Read entry by entry by the run's JournalIntake, which voids the journal for any other shape.
  if (raw.journal !== undefined) call.journal = raw.journal as JournalChunk;
  return call;
}
