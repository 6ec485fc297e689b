// Maps a runtime stack from the isolate back to the sources: frames of the compiled
// program become `program.ts:line:column`, frames of a Package's script its
// `@scope/name/src/<file>.ts:line:column`; runtime and prelude frames are hidden; the
// first program frame gets a source excerpt.
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { PROGRAM_FILENAME, type PackageScript, type ProgramScript } from '../contract';
import { excerpt } from './diagnostics';

export interface MappedFrame {
  functionName: string | null;
  /** `program.ts`, or a Package source such as `@acme/billing/src/lib.ts`. */
  file: string;
  line: number;
  column: number;
}

const maps = new WeakMap<ProgramScript | PackageScript, TraceMap>();

function traceMapOf(script: ProgramScript | PackageScript): TraceMap {
  let map = maps.get(script);
  if (!map) {
    map = new TraceMap(script.sourceMap);
    maps.set(script, map);
  }
  return map;
}

const FRAME = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/;

export function mapRuntimeStack(stack: string, script: ProgramScript, packages: readonly PackageScript[] = []): MappedFrame[] {
  const frames: MappedFrame[] = [];
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line);
    if (!match) continue;
    const owner: ProgramScript | PackageScript | undefined = match[2] === script.filename ? script : packages.find((p) => p.filename === match[2]);
    if (!owner) continue;
    const map = traceMapOf(owner);
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
    const file = owner === script ? PROGRAM_FILENAME : original.source;
    frames.push({ functionName: name, file, line: original.line, column: original.column + 1 });
  }
  return frames;
}

/** `Name: message`, the mapped frames, and an excerpt of the innermost program line. */
export function renderRuntimeError(headline: string, stack: string | undefined, script: ProgramScript, packages: readonly PackageScript[] = []): string {
  if (!stack) return headline;
  const frames = mapRuntimeStack(stack, script, packages);
  if (frames.length === 0) return headline;
  const lines = frames.slice(0, 20).map((f) => `    at ${f.functionName ? `${f.functionName} (${f.file}:${f.line}:${f.column})` : `${f.file}:${f.line}:${f.column}`}`);
  // The excerpt shows the program's own innermost line (Package sources are not the program's).
  const first = frames.find((f) => f.file === PROGRAM_FILENAME);
  const source = script.sources[PROGRAM_FILENAME] ?? '';
  const snippet = first ? excerpt(source, first.line, first.column) : '';
  return `${headline}\n${lines.join('\n')}${snippet ? `\n\n${snippet}` : ''}`;
}
