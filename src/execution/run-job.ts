// What the sandbox is given for one run besides the program: the host modules it may call
// (their operation names), their trusted guest-side code, and the limits from the settings.
import type { Limits } from '../config';
import type { RunLimits } from '../../sandbox';
import type { HostModule } from '../stdlib';

/** Operation names of each imported module (what the guest may call). */
export function guestModules(imported: readonly string[], modules: ReadonlyMap<string, HostModule>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of imported) {
    const module = modules.get(name);
    if (module) out[name] = Object.keys(module.operations);
  }
  return out;
}

/** Guest-side source of each imported module that has one (trusted, unmetered). */
export function guestSources(imported: readonly string[], modules: ReadonlyMap<string, HostModule>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of imported) {
    const guest = modules.get(name)?.guest;
    if (guest) out[name] = guest;
  }
  return out;
}

/** A run's limits from the server's settings. */
export function runLimits(limits: Limits): RunLimits {
  return {
    memoryMb: limits.max_execution_memory,
    timeMs: limits.max_execution_time * 1000,
    cpuMs: limits.max_execution_cpu * 1000,
    fuel: limits.max_execution_fuel,
    stackKib: limits.max_execution_stack,
    hostCallsInFlight: limits.max_host_calls_in_flight,
    journalBytes: limits.max_run_journal_size * 1024 * 1024,
  };
}
