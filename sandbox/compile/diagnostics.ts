// Rendering of compile diagnostics and runtime stacks against the submitted source
//: `program.ts:line:column`, the source line and a caret.
import type { Diagnostic } from '../contract';
import { PROGRAM_FILENAME } from '../contract';

/** Characters of a source line an excerpt shows at most (a minified line can be megabytes). */
const EXCERPT_WIDTH = 160;

/** Two lines: the source text and a caret under the 1-based column (a long line shows a window around it). */
export function excerpt(source: string, line: number, column: number): string {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = source.indexOf('\n', start);
    if (next === -1) return '';
    start = next + 1;
  }
  if (line < 1 || start > source.length) return '';
  let end = source.indexOf('\n', start);
  if (end === -1) end = source.length;
  if (end > start && source.charCodeAt(end - 1) === 13) end--;
  const caret = Math.max(0, Math.min(column - 1, end - start));
  let from = start;
  let to = end;
  if (to - from > EXCERPT_WIDTH) {
    from = Math.max(start, Math.min(start + caret - EXCERPT_WIDTH / 2, end - EXCERPT_WIDTH));
    to = from + EXCERPT_WIDTH;
  }
  const text = `${from > start ? '…' : ''}${source.slice(from, to)}${to < end ? '…' : ''}`;
  const gutter = `${line} | `;
  return `${gutter}${text}\n${' '.repeat(gutter.length + (from > start ? 1 : 0) + start + caret - from)}^`;
}

export function renderCompileError(diagnostics: Diagnostic[], source: string): string {
  const blocks = diagnostics.map((d) => {
    const head = `${PROGRAM_FILENAME}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
    const notes = (d.notes ?? []).map((n) => `  note (${n.line}:${n.column}): ${n.message}`);
    const help = d.help ? [`  help: ${d.help}`] : [];
    return [head, excerpt(source, d.line, d.column), ...notes, ...help].filter((part) => part !== '').join('\n');
  });
  const count = diagnostics.filter((d) => d.severity === 'error').length;
  return `compile error${count === 1 ? '' : `s (${count})`} in ${PROGRAM_FILENAME}\n${blocks.join('\n\n')}`;
}

/** 1-based line and column of a 0-based offset. */
export function positionOf(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
