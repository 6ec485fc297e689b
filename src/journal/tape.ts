// The tape (`svc.tape/1`, server-operations.md §4.9): a finished run's program, Blueprint,
// variables, journal and result, enough to replay it anywhere. Secrets never enter it: a
// host-call answer that held one is withheld (sandbox/journal), and harness values are not
// part of a run's inputs here. Beside the documented fields a tape carries what an offline
// replay needs to run the same compiled program under the same budget: the modules it
// imported (their operation names), its fuel budget, and the fuel it spent; and each
// Package's built code (src/packages/tape-code.ts), checked against its digest on replay.
import type { ExecuteResult, JournalledRun } from '../execution';
import type { HostCallEntry, JournalEntry, RecordedJournal, ReplayPlan } from '../../sandbox/journal/entries';
import { decodedEntry } from '../../sandbox/journal/reply';
import { readEntry } from '../../sandbox/journal/check';
import type { TapePackage } from '../packages';

export type { JournalledRun };

export const TAPE_FORMAT = 'svc.tape/1';

export type TapeEntry = JournalEntry & { step: number };

export interface Tape {
  format: typeof TAPE_FORMAT;
  execution_id: string;
  program: string;
  blueprint: string;
  blueprint_hash: string;
  /** The Packages the run loaded, dependencies first, each with its built code unless `code_omitted` says why not. */
  packages: TapePackage[];
  variables: Record<string, string>;
  journal: TapeEntry[];
  /** The run's journal passed its bound: it holds nothing and the run cannot be replayed. */
  journal_truncated?: true;
  result: ExecuteResult;
  /** The run's console lines (the execute result carries them only on failure). */
  console: string[];
  fuel: { wasm: number; host: number; budget: number };
  /** Module → operation names the run imported (`svc:` and `@mcp/` modules). */
  modules: Record<string, string[]>;
  /**
   * Guest-side code of the imported modules this server generated for the run (`@mcp/`
   * servers' tool tables); `svc:` modules' code is the replaying svc's own.
   */
  guest_modules: Record<string, string>;
}


/** @param packages the run's Packages with their code (the server's store has it; see src/packages/tape-code.ts). */
export function tapeOf(run: JournalledRun, packages: TapePackage[] = run.packages): Tape {
  return {
    format: TAPE_FORMAT,
    execution_id: run.executionId,
    program: run.code,
    blueprint: run.blueprint.name,
    blueprint_hash: run.blueprint.hash,
    packages,
    variables: run.variables,
    journal: run.journal.entries.map((entry, step) => ({ step, ...(entry.kind === 'host_call' ? decodedEntry(entry) : entry) })),
    ...(run.journal.truncated ? { journal_truncated: true as const } : {}),
    result: run.result,
    console: run.console,
    fuel: run.fuel,
    modules: run.modules,
    guest_modules: run.guestModules ?? {},
  };
}

export class TapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TapeError';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A tape read from a file: every field checked; the message names the first that is wrong. */
export function readTape(raw: unknown): Tape {
  if (!isRecord(raw)) throw new TapeError('a tape must be a JSON object');
  if (raw.format !== TAPE_FORMAT) throw new TapeError(`format must be "${TAPE_FORMAT}" (got ${JSON.stringify(raw.format)})`);
  if (raw.journal_truncated === true) throw new TapeError('this run\'s journal passed max_run_journal_size: it holds nothing to replay');
  for (const key of ['execution_id', 'program', 'blueprint', 'blueprint_hash'] as const) if (typeof raw[key] !== 'string') throw new TapeError(`${key} must be a string`);
  if (!Array.isArray(raw.journal)) throw new TapeError('journal must be a list of entries');
  const journal: TapeEntry[] = raw.journal.map((item, index) => {
    const entry = readEntry(answeredUndefined(item) ? { ...item, answer: undefined } : item);
    if (typeof entry === 'string') throw new TapeError(`journal[${index}]: ${entry}`);
    return { step: index, ...entry };
  });
  if (!isRecord(raw.result)) throw new TapeError('result must be the run\'s execute result (an object)');
  if (!Array.isArray(raw.console) || !raw.console.every((line) => typeof line === 'string')) throw new TapeError('console must be a list of strings');
  const fuel = raw.fuel;
  if (!isRecord(fuel) || ![fuel.wasm, fuel.host, fuel.budget].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) throw new TapeError('fuel must be {wasm, host, budget} (numbers >= 0)');
  if (!isRecord(raw.modules) || !Object.values(raw.modules).every((ops) => Array.isArray(ops) && ops.every((op) => typeof op === 'string'))) throw new TapeError('modules must map module names to lists of operation names');
  const packages = readPackages(raw.packages ?? []);
  if (!isRecord(raw.variables)) throw new TapeError('variables must be an object of strings');
  const guest = raw.guest_modules ?? {};
  if (!isRecord(guest) || !Object.entries(guest).every(([name, source]) => name.startsWith('@mcp/') && typeof source === 'string')) throw new TapeError('guest_modules must map @mcp/ module names to their guest code');
  return {
    format: TAPE_FORMAT,
    execution_id: raw.execution_id as string,
    program: raw.program as string,
    blueprint: raw.blueprint as string,
    blueprint_hash: raw.blueprint_hash as string,
    packages,
    variables: raw.variables as Record<string, string>,
    journal,
    result: raw.result as unknown as ExecuteResult,
    console: raw.console as string[],
    fuel: { wasm: fuel.wasm as number, host: fuel.host as number, budget: fuel.budget as number },
    modules: raw.modules as Record<string, string[]>,
    guest_modules: guest as Record<string, string>,
  };
}

/**
 * A host call that answered `undefined` (a gate check, a write): JSON has no undefined, so
 * its tape entry holds neither `answer` nor `error` (nor `withheld`).
 */
function answeredUndefined(item: unknown): item is Record<string, unknown> {
  return isRecord(item) && item.kind === 'host_call' && !('answer' in item) && !('error' in item) && !('reply' in item) && item.withheld !== true;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** `packages`: each `{name, digest}` with optional version, listed flag, dependencies and code; the message names the first wrong field. */
function readPackages(raw: unknown): TapePackage[] {
  if (!Array.isArray(raw)) throw new TapeError('packages must be a list of {name, digest, ...}');
  return raw.map((item, index) => {
    const where = `packages[${index}]`;
    if (!isRecord(item) || !isString(item.name) || !isString(item.digest)) throw new TapeError(`${where} must be {name, digest, ...} (strings)`);
    for (const key of ['version', 'lib', 'code_omitted'] as const) if (item[key] !== undefined && !isString(item[key])) throw new TapeError(`${where}.${key} must be a string`);
    if (item.map !== undefined && item.map !== null && !isString(item.map)) throw new TapeError(`${where}.map must be a string or null`);
    if (item.listed !== undefined && typeof item.listed !== 'boolean') throw new TapeError(`${where}.listed must be true or false`);
    const dependencies = item.dependencies ?? [];
    if (!Array.isArray(dependencies) || !dependencies.every((d) => isRecord(d) && isString(d.name) && isString(d.version))) throw new TapeError(`${where}.dependencies must be a list of {name, version} (strings)`);
    return item as unknown as TapePackage;
  });
}

/** The journal entries of a tape, without their step numbers. */
export function entriesOf(tape: Tape): JournalEntry[] {
  return tape.journal.map(({ step: _step, ...entry }) => entry as JournalEntry);
}

/** A fork's substitute for a host call's answer. */
export type ForkAnswer = { value: unknown } | { error: { name: string; message: string } };

/**
 * The journal a fork replays: the entries up to `step`, that host call's answer replaced
 * (its fuel charge kept), and nothing after it (the run continues live from there).
 */
export function forkedEntries(entries: readonly JournalEntry[], step: number, answer: ForkAnswer): JournalEntry[] {
  const target = entries[step];
  if (!target || target.kind !== 'host_call') throw new TapeError(`step ${step} is not a host_call entry of this run's journal (it has ${entries.length} entries; host calls at steps ${entries.flatMap((e, i) => (e.kind === 'host_call' ? [i] : [])).slice(0, 20).join(', ') || 'none'})`);
  const { reply: _reply, answer: _answer, error: _error, blobs: _blobs, withheld: _withheld, ...call } = target;
  const substituted: HostCallEntry = 'error' in answer ? { ...call, error: answer.error } : { ...call, answer: answer.value };
  return [...entries.slice(0, step), substituted];
}

/**
 * Resume: a run that continues live after the last entry of a recorded journal (pass it as
 * ExecutionRequest.replay with the same program, Blueprint and variables). Fork uses it
 * with a substituted last answer; a run parked for approval, or one whose runner died,
 * resumes with its journal as recorded so far.
 */
export function resumePlan(entries: readonly JournalEntry[]): ReplayPlan {
  return { entries: [...entries], live: true };
}
