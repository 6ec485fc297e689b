// The runner's last step before reporting a run: the program's stack text (and a fuel end's)
// is mapped to program.ts and the Packages' sources here, in the runner process, and only
// the rendered, bounded trace crosses to the server. The server never parses guest text.
import { mappable, renderTrace, type MappableScript } from '../compile/stack';
import type { RunMessage, RunnerOutcome, RunReport } from './protocol';

/** Package maps parsed lately, by content key (the same Packages fail run after run). */
const packageMaps = new Map<string, MappableScript>();
const PACKAGE_MAPS_KEPT = 32;

function packageScript(entry: NonNullable<RunMessage['packages']>[number]): MappableScript {
  let script = packageMaps.get(entry.key);
  if (!script) {
    script = mappable(entry.filename, entry.sourceMap);
    packageMaps.set(entry.key, script);
    if (packageMaps.size > PACKAGE_MAPS_KEPT) packageMaps.delete(packageMaps.keys().next().value as string);
  }
  return script;
}

/** The outcome as the server receives it: stacks replaced by their rendered traces. */
export function reportOf(outcome: RunnerOutcome, message: RunMessage): RunReport {
  const { failure, limitStack, ...rest } = outcome;
  const stack = failure?.stack;
  if (stack === undefined && limitStack === undefined) return { ...rest, failure: failure && withoutStack(failure) };
  const program = mappable(message.filename, message.sourceMap);
  const packages = (Array.isArray(message.packages) ? message.packages : []).map(packageScript);
  const render = (text: string | undefined) => {
    try {
      return renderTrace(text, program, typeof message.source === 'string' ? message.source : '', packages) || undefined;
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
