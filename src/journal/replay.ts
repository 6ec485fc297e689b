// Replaying a tape: the same program compiled again and run in an isolate against the
// tape's journal, with a host that answers nothing (every answer comes from the journal;
// a call the journal does not hold is a divergence, never a call to the world). The replay
// matches when it reproduces the tape's result, console and fuel exactly.
import { randomUUID } from 'node:crypto';
import { compileProgram, type HostHandler, type RunnerPool, type RunOutcome } from '../../sandbox';
import type { Divergence } from '../../sandbox/journal/entries';
import { limitDefaults } from '../config/schema';
import { guestSources } from '../execution/run-job';
import { prepareTapePackages } from '../packages';
import { hostModules } from '../stdlib';
import { entriesOf, TapeError, type Tape } from './tape';

export interface ReplayVerdict {
  matches: boolean;
  /** The first difference: the journal's divergence, or which of result, console and fuel differ. */
  difference: string | null;
  divergence: Divergence | null;
  result: string | null;
  console: string[];
  fuel: { wasm: number; host: number };
}

/**
 * The replay's host: it reaches nothing. The one thing it answers is a Package's read of a
 * secret, whose answer the journal withheld: from the replaying operator's own values
 * (absent: not set, as an unbound secret reads), so the value never travels in the tape.
 */
function secretsOnly(secrets: Readonly<Record<string, string>>, packages: ReadonlySet<string>): HostHandler {
  return async (call) => {
    const caller = call.attribution?.caller;
    if (call.module === 'svc:secrets' && call.op === 'get' && typeof caller === 'string' && packages.has(caller)) {
      const name = call.args[0];
      const value = typeof name === 'string' && Object.hasOwn(secrets, name) ? secrets[name] : undefined;
      return { ok: true, value: value === '' ? undefined : value, fuel: 0, withheld: true };
    }
    throw new Error('a replay calls nothing: this answer was not in the journal');
  };
}

/** @param secrets values for the secrets the run's Packages read (withheld from the tape), by the name the Package asks for. */
export async function replayTape(tape: Tape, pool: RunnerPool, secrets: Readonly<Record<string, string>> = {}): Promise<ReplayVerdict> {
  const modules = hostModules();
  const imported = Object.keys(tape.modules).sort();
  // The tape's Packages load as a server run loads them (its principals, imports and gates
  // live in the sandbox), from the code the tape carries, checked against its digests.
  const prepared = tape.packages.length > 0 ? await prepareTapePackages(tape.packages, [...modules.keys()].filter((name) => name.startsWith('svc:'))) : null;
  if (prepared && !prepared.ok) throw new TapeError(prepared.message);
  const packages = prepared?.value;
  const compiled = await compileProgram({ source: tape.program, availableModules: [...imported, ...(packages?.listed ?? [])] });
  if (!compiled.ok) throw new TapeError(`the tape's program does not compile here: ${compiled.error.message}`);
  const entries = entriesOf(tape);
  const replayBytes = JSON.stringify(entries).length;
  const outcome = await pool.run(
    {
      executionId: randomUUID(),
      script: compiled.script,
      hostModules: tape.modules,
      guestModules: { ...tape.guest_modules, ...guestSources(imported, modules) },
      limits: { memoryMb: limitDefaults.max_execution_memory, timeMs: 0, fuel: tape.fuel.budget, stackKib: limitDefaults.max_execution_stack, hostCallsInFlight: 4096, journalBytes: 0, replayBytes },
      ...(packages ? { packages: packages.packages } : {}),
      journal: { entries, live: false },
    },
    secretsOnly(secrets, new Set(tape.packages.map((p) => p.name))),
  );
  return verdict(tape, outcome);
}

function verdict(tape: Tape, outcome: RunOutcome): ReplayVerdict {
  const fuel = { wasm: outcome.wasmFuel, host: outcome.hostFuel };
  const base = { divergence: outcome.divergence ?? null, result: outcome.result, console: outcome.console, fuel };
  if (outcome.divergence) return { ...base, matches: false, difference: outcome.divergence.message };
  const recordedError = tape.result.error;
  let difference: string | null = null;
  if ((outcome.error?.kind ?? null) !== (recordedError?.kind ?? null)) difference = `the run ended ${outcome.error ? `with ${outcome.error.kind}: ${outcome.error.message.split('\n')[0]}` : 'ok'}; the tape's ended ${recordedError ? `with ${recordedError.kind}` : 'ok'}`;
  else if (outcome.result !== tape.result.result) difference = `result differs: replayed ${JSON.stringify(outcome.result)?.slice(0, 200)}, recorded ${JSON.stringify(tape.result.result)?.slice(0, 200)}`;
  else if (JSON.stringify(outcome.console) !== JSON.stringify(tape.console)) difference = 'console differs';
  else if (fuel.wasm !== tape.fuel.wasm || fuel.host !== tape.fuel.host) difference = `fuel differs: replayed wasm ${fuel.wasm} host ${fuel.host}, recorded wasm ${tape.fuel.wasm} host ${tape.fuel.host}`;
  return { ...base, matches: difference === null, difference };
}
