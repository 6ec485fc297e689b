// Maps a runtime stack from the isolate back to program.ts (program-runtime §5.2):
// frames of the compiled script become `program.ts:line:column`; runtime and prelude
// frames are hidden; the first program frame gets a source excerpt.
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { PROGRAM_FILENAME, type ProgramScript } from '../contract';
import { excerpt } from './diagnostics';

export interface MappedFrame {
  functionName: string | null;
  line: number;
  column: number;
}

const maps = new WeakMap<ProgramScript, TraceMap>();

function traceMapOf(script: ProgramScript): TraceMap {
  let map = maps.get(script);
  if (!map) {
    map = new TraceMap(script.sourceMap);
    maps.set(script, map);
  }
  return map;
}

const FRAME = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/;

export function mapRuntimeStack(stack: string, script: ProgramScript): MappedFrame[] {
  const frames: MappedFrame[] = [];
  const map = traceMapOf(script);
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line);
    if (!match || match[2] !== script.filename) continue;
    // Positions come from the guest (a program can forge its stack text): a frame at line or
    // column 0, or past the script, is not a real position and is skipped, never thrown on.
    const at = { line: Number(match[3]), column: Number(match[4]) };
    if (!Number.isSafeInteger(at.line) || !Number.isSafeInteger(at.column) || at.line < 1 || at.column < 1) continue;
    let original: ReturnType<typeof originalPositionFor>;
    try {
      original = originalPositionFor(map, { line: at.line, column: at.column - 1 });
    } catch {
      continue;
    }
    if (original.line === null || original.source === null) continue;
    const name = match[1] && !match[1].startsWith('__svc') && match[1] !== 'Object.main' ? match[1].replace(/^Object\./, '') : match[1] ? 'main' : null;
    frames.push({ functionName: name, line: original.line, column: original.column + 1 });
  }
  return frames;
}

/** `Name: message`, the mapped frames, and an excerpt of the innermost program line. */
export function renderRuntimeError(headline: string, stack: string | undefined, script: ProgramScript): string {
  if (!stack) return headline;
  const frames = mapRuntimeStack(stack, script);
  if (frames.length === 0) return headline;
  const lines = frames.slice(0, 20).map((f) => `    at ${f.functionName ? `${f.functionName} (${PROGRAM_FILENAME}:${f.line}:${f.column})` : `${PROGRAM_FILENAME}:${f.line}:${f.column}`}`);
  const source = script.sources[PROGRAM_FILENAME] ?? '';
  const snippet = excerpt(source, frames[0].line, frames[0].column);
  return `${headline}\n${lines.join('\n')}${snippet ? `\n\n${snippet}` : ''}`;
}
