// Maps a runtime stack from the isolate back to the sources: frames of the compiled
// program become `program.ts:line:column`, frames of a Package's script its
// `@scope/name/src/<file>.ts:line:column`; runtime and prelude frames are hidden; the
// first program frame gets a source excerpt. The runner does this (sandbox/runner/
// render-stack.ts), so the server only ever receives the rendered, bounded text.
//
// The stack text is the program's (it can forge or inflate it): it is cut to
// MAX_STACK_CHARS and read by a scanner that looks at each character a bounded number of
// times; no regular expression with backtracking ever sees it.
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { PROGRAM_FILENAME, type PackageScript, type ProgramScript } from '../contract';
import { excerpt } from './diagnostics';

/** Stack text read at most; the rest is ignored. */
export const MAX_STACK_CHARS = 64 * 1024;
/** Frames shown at most. */
const MAX_FRAMES = 20;
/** A function name longer than this is cut (names come from the program's source). */
const MAX_NAME_CHARS = 200;
/** Digits of a line or column read at most (beyond any real position, within safe integers). */
const MAX_DIGITS = 9;

/** One frame as V8 writes it: `at name (file:line:column)` or `at file:line:column`. */
export interface StackFrame {
  /** Null for an anonymous frame (`at file:line:column`). */
  name: string | null;
  file: string;
  line: number;
  column: number;
}

const SPACE = 32;
const TAB = 9;
const COLON = 58;
const CLOSE_PAREN = 41;

const isDigit = (code: number) => code >= 48 && code <= 57;

/** Start of the run of digits ending at `end` (exclusive), or -1 when there are none or too many. */
function digitsBefore(line: string, end: number, floor: number): number {
  let at = end;
  while (at > floor && isDigit(line.charCodeAt(at - 1))) at--;
  return at === end || end - at > MAX_DIGITS ? -1 : at;
}

/**
 * Reads one stack line in linear time: the position is taken from the end (`:line:column`,
 * before an optional `)`), the name is what precedes the last ` (` before it. Anything else
 * is not a frame (null).
 */
export function parseFrame(line: string): StackFrame | null {
  let start = 0;
  while (start < line.length && (line.charCodeAt(start) === SPACE || line.charCodeAt(start) === TAB)) start++;
  if (!line.startsWith('at ', start)) return null;
  start += 3;
  let end = line.length;
  const closed = end > start && line.charCodeAt(end - 1) === CLOSE_PAREN;
  if (closed) end--;
  const columnAt = digitsBefore(line, end, start);
  if (columnAt <= start || line.charCodeAt(columnAt - 1) !== COLON) return null;
  const lineAt = digitsBefore(line, columnAt - 1, start);
  if (lineAt <= start || line.charCodeAt(lineAt - 1) !== COLON) return null;
  const fileEnd = lineAt - 1;
  let name: string | null = null;
  let fileStart = start;
  if (closed) {
    const open = line.lastIndexOf(' (', fileEnd - 1);
    if (open >= start) {
      name = line.slice(start, open);
      fileStart = open + 2;
    }
  }
  if (fileStart >= fileEnd) return null;
  return { name: name === '' ? null : name, file: line.slice(fileStart, fileEnd), line: Number(line.slice(lineAt, columnAt - 1)), column: Number(line.slice(columnAt, end)) };
}

/** A script frames can belong to: its file name and (built on first use) its source map. */
export interface MappableScript {
  filename: string;
  /** Null when the map is missing or unreadable: the script's frames are then hidden. */
  traceMap(): TraceMap | null;
}

export interface MappedFrame {
  functionName: string | null;
  /** `program.ts`, or a Package source such as `@acme/billing/src/lib.ts`. */
  file: string;
  line: number;
  column: number;
}

function displayName(name: string | null): string | null {
  if (name === null) return null;
  // The entry runs as the unit's `main` (esbuild's wrapper calls it on `Object`).
  if (name.startsWith('__svc') || name === 'Object.main') return 'main';
  const plain = name.startsWith('Object.') ? name.slice('Object.'.length) : name;
  return plain.length > MAX_NAME_CHARS ? `${plain.slice(0, MAX_NAME_CHARS)}…` : plain;
}

/** The frames of `program` and `packages` in `stack`, mapped to their sources (at most MAX_FRAMES). */
export function mapFrames(stack: string, program: MappableScript, packages: readonly MappableScript[] = []): MappedFrame[] {
  const frames: MappedFrame[] = [];
  const text = stack.length > MAX_STACK_CHARS ? stack.slice(0, MAX_STACK_CHARS) : stack;
  let from = 0;
  while (from <= text.length && frames.length < MAX_FRAMES) {
    const newline = text.indexOf('\n', from);
    const lineEnd = newline === -1 ? text.length : newline;
    const frame = parseFrame(text.slice(from, lineEnd));
    from = lineEnd + 1;
    if (!frame) continue;
    const owner = frame.file === program.filename ? program : packages.find((p) => p.filename === frame.file);
    if (!owner) continue;
    // Positions come from the guest (a program can forge its stack text): a frame at line or
    // column 0, or past the script, is not a real position and is skipped, never thrown on.
    if (frame.line < 1 || frame.column < 1) continue;
    const map = owner.traceMap();
    if (!map) continue;
    let original: ReturnType<typeof originalPositionFor>;
    try {
      original = originalPositionFor(map, { line: frame.line, column: frame.column - 1 });
    } catch {
      continue;
    }
    if (original.line === null || original.source === null) continue;
    frames.push({ functionName: displayName(frame.name), file: owner === program ? PROGRAM_FILENAME : original.source, line: original.line, column: original.column + 1 });
  }
  return frames;
}

/** The mapped frames and an excerpt of the innermost program line, or '' when no frame maps. */
export function renderTrace(stack: string | undefined, program: MappableScript, source: string, packages: readonly MappableScript[] = []): string {
  if (!stack) return '';
  const frames = mapFrames(stack, program, packages);
  if (frames.length === 0) return '';
  const lines = frames.map((f) => `    at ${f.functionName ? `${f.functionName} (${f.file}:${f.line}:${f.column})` : `${f.file}:${f.line}:${f.column}`}`);
  // The excerpt shows the program's own innermost line (Package sources are not the program's).
  const first = frames.find((f) => f.file === PROGRAM_FILENAME);
  const snippet = first ? excerpt(source, first.line, first.column) : '';
  return `${lines.join('\n')}${snippet ? `\n\n${snippet}` : ''}`;
}

/** A script as a MappableScript (the map parsed once, on first use). */
export function mappable(filename: string, sourceMap: string | null | undefined): MappableScript {
  let map: TraceMap | null | undefined;
  return {
    filename,
    traceMap() {
      if (map === undefined) {
        try {
          map = sourceMap ? new TraceMap(sourceMap) : null;
        } catch {
          map = null;
        }
      }
      return map;
    },
  };
}

/** The mapped frames of a compiled program's stack (tests and tools; runs map in the runner). */
export function mapRuntimeStack(stack: string, script: ProgramScript, packages: readonly PackageScript[] = []): MappedFrame[] {
  return mapFrames(stack, mappable(script.filename, script.sourceMap), packages.map((p) => mappable(p.filename, p.sourceMap)));
}

/** `Name: message`, the mapped frames, and an excerpt of the innermost program line. */
export function renderRuntimeError(headline: string, stack: string | undefined, script: ProgramScript, packages: readonly PackageScript[] = []): string {
  const trace = renderTrace(stack, mappable(script.filename, script.sourceMap), script.sources[PROGRAM_FILENAME] ?? '', packages.map((p) => mappable(p.filename, p.sourceMap)));
  return trace ? `${headline}\n${trace}` : headline;
}
