// The runner's last step before reporting a run: the program's stack text (and a fuel end's)
// is mapped to program.ts and the Packages' sources here, in the runner process, and only
// the rendered, bounded trace crosses to the server. The server never parses guest text.
// Source maps arrive once per runner and are kept here by key as each run message arrives.
import { mappable, renderTrace, type MappableScript } from '../compile/stack';
import { mapBytes, PROGRAM_MAP_BYTES, PROGRAM_MAPS_KEPT, type RunMessage, type RunnerOutcome, type RunReport } from './protocol';
import { boundedCache } from '../bounded-cache';

/** Programs' maps and sources by key: the pool sends them once and leaves them out after. */
const programs = boundedCache<{ sourceMap: string; source: string }>({ maxBytes: PROGRAM_MAP_BYTES, maxEntries: PROGRAM_MAPS_KEPT, sizeOf: mapBytes });

/** The maps a run's trace is rendered with, taken when its message arrived. */
export interface RunMaps {
  program: { sourceMap: string; source: string } | undefined;
  packages: MappableScript[];
}

/**
 * Keeps the maps a run message carries, or finds those an earlier message carried. Called
 * as each message arrives, in the order the pool sent them, so the runner's bookkeeping
 * sees the same keys in the same order as the pool's, whatever order the runs end in.
 */
export function mapsOf(message: RunMessage): RunMaps {
  let program: RunMaps['program'];
  if (typeof message.sourceMap === 'string' && typeof message.source === 'string') {
    program = { sourceMap: message.sourceMap, source: message.source };
    programs.set(message.programKey, program);
  } else program = programs.get(message.programKey);
  const packages = (Array.isArray(message.packages) ? message.packages : []).map((entry) => {
    if (typeof entry.sourceMap === 'string') programs.set(entry.key, { sourceMap: entry.sourceMap, source: '' });
    return mappable(entry.filename, typeof entry.sourceMap === 'string' ? entry.sourceMap : programs.get(entry.key)?.sourceMap);
  });
  return { program, packages };
}

/** The outcome as the server receives it: stacks replaced by their rendered traces. */
export function reportOf(outcome: RunnerOutcome, message: RunMessage, maps: RunMaps): RunReport {
  const { failure, limitStack, ...rest } = outcome;
  const stack = failure?.stack;
  if (stack === undefined && limitStack === undefined) return { ...rest, failure: failure && withoutStack(failure) };
  const program = mappable(message.filename, maps.program?.sourceMap);
  const render = (text: string | undefined) => {
    try {
      return renderTrace(text, program, maps.program?.source ?? '', maps.packages) || undefined;
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
