// Rendering of compile diagnostics and runtime stacks against the submitted source
//: `program.ts:line:column`, the source line and a caret.
import type { Diagnostic } from '../contract';
import { PROGRAM_FILENAME } from '../contract';

/** Two lines: the source text and a caret under the 1-based column. */
export function excerpt(source: string, line: number, column: number): string {
  const text = source.split(/\r?\n/)[line - 1];
  if (text === undefined) return '';
  const gutter = `${line} | `;
  return `${gutter}${text}\n${' '.repeat(gutter.length + Math.max(0, column - 1))}^`;
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
