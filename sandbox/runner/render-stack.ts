// The runner's last step before reporting a run: the program's stack text (and a fuel end's)
// is mapped to program.ts and the Packages' sources here, in the runner process, and only
// the rendered, bounded trace crosses to the server. The server never parses guest text.
// Source maps arrive once per runner and are kept here by key (./recent).
import { mappable, renderTrace, type MappableScript } from '../compile/stack';
import { PROGRAM_MAP_BYTES, PROGRAM_MAPS_KEPT, type RunMessage, type RunnerOutcome, type RunReport } from './protocol';
import { Recent } from './recent';

/** Programs' maps and sources by key: the pool sends them once and leaves them out after. */
const programs = new Recent<{ sourceMap: string; source: string }>(PROGRAM_MAPS_KEPT, PROGRAM_MAP_BYTES);

/** The run's program map and source: from the message (and kept), or kept from an earlier run. */
function programOf(message: RunMessage): { sourceMap: string; source: string } | undefined {
  if (typeof message.sourceMap === 'string' && typeof message.source === 'string') {
    const entry = { sourceMap: message.sourceMap, source: message.source };
    programs.set(message.programKey, entry, entry.sourceMap.length + entry.source.length);
    return entry;
  }
  return programs.get(message.programKey);
}

/** A Package's map: from the message (and kept), or kept from an earlier run. */
function packageScript(entry: NonNullable<RunMessage['packages']>[number]): MappableScript {
  if (typeof entry.sourceMap === 'string') programs.set(entry.key, { sourceMap: entry.sourceMap, source: '' }, entry.sourceMap.length);
  return mappable(entry.filename, typeof entry.sourceMap === 'string' ? entry.sourceMap : programs.get(entry.key)?.sourceMap);
}

/** The outcome as the server receives it: stacks replaced by their rendered traces. */
export function reportOf(outcome: RunnerOutcome, message: RunMessage): RunReport {
  const { failure, limitStack, ...rest } = outcome;
  // Every run passes here, so the kept maps see the same keys in the same order as the pool.
  const kept = programOf(message);
  const packages = (Array.isArray(message.packages) ? message.packages : []).map(packageScript);
  const stack = failure?.stack;
  if (stack === undefined && limitStack === undefined) return { ...rest, failure: failure && withoutStack(failure) };
  const program = mappable(message.filename, kept?.sourceMap);
  const render = (text: string | undefined) => {
    try {
      return renderTrace(text, program, kept?.source ?? '', packages) || undefined;
    } catch {
      // A stack the maps cannot place leaves the headline alone.
      return undefined;
    }
  };
  const report: RunReport = { ...rest, failure: failure && { ...withoutStack(failure), ...(stack !== undefined ? { trace: render(stack) } : {}) } };
  if (limitStack !== undefined) report.limitTrace = render(limitStack);
  return report;
}

function withoutStack(failure: NonNullable<RunnerOutcome['failure']>): NonNullable<RunReport['failure']> {
  const { stack: _stack, ...rest } = failure;
  return rest;
}
