// The filter language's tree, its limits and its syntax error.
// Shared by the lexer, parser, printer and evaluator so none of them imports another's
// internals.
import type { RE2JS } from 're2js';

export const MAX_FILTER_BYTES = 65_536;
export const MAX_FILTER_OPERATORS = 128;

export type Segment = { kind: 'text'; text: string } | { kind: 'var'; name: string };

export type Operand =
  | { kind: 'string'; value: string }
  | { kind: 'interpolated'; segments: Segment[] }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'variable'; name: string };

export type Operator = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'glob' | 'matches' | 'contains';

export interface Comparison {
  kind: 'compare';
  path: string[];
  op: Operator;
  operand: Operand;
  /** Compiled once at parse time for `matches`; RE2 semantics, linear-time search. */
  regex?: RE2JS;
}

export type Filter = Comparison | { kind: 'not'; operand: Filter } | { kind: 'and' | 'or'; left: Filter; right: Filter };

/** Longest excerpt shown for a filter too large to print whole. */
const EXCERPT_LIMIT = 80;

/**
 * A filter syntax error. `message` is the reason, a newline, the source indented by two
 * spaces and a caret line under the offending span, ready to follow
 * "invalid filter `<src>`: ".
 */
export class FilterError extends Error {
  readonly code = 'filter_syntax';
  /** 1-based column of the span's start, in code points of the printed excerpt. */
  readonly column: number;

  constructor(
    readonly reason: string,
    /** UTF-16 offset of the span's start in the source. */
    readonly offset: number,
    /** Span length in UTF-16 units; the caret line shows at least one `^`. */
    readonly length: number,
    source: string,
  ) {
    const excerpt = caretExcerpt(source, offset, length);
    super(`${reason}\n${excerpt.text}`);
    this.name = 'FilterError';
    this.column = excerpt.column;
  }
}

/** Newlines and tabs print as spaces so the caret line stays aligned with the source. */
function flatten(text: string): string {
  return text.replace(/[\r\n\t\v\f]/g, ' ');
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The source indented by two spaces and a caret line under [offset, offset+length) (Blueprint placeholder errors use it too). */
export function caretExcerpt(source: string, offset: number, length: number): { text: string; column: number } {
  const start = Math.max(0, Math.min(offset, source.length));
  const before = codePoints(source.slice(0, start));
  const span = Math.max(1, codePoints(source.slice(start, Math.min(source.length, start + length))));
  return { text: `  ${flatten(source)}\n  ${' '.repeat(before)}${'^'.repeat(span)}`, column: before + 1 };
}

/** The filter as shown in a diagnostic header; huge sources are cut so messages stay readable. */
export function filterForMessage(source: string): string {
  return Buffer.byteLength(source, 'utf8') > MAX_FILTER_BYTES ? `${Array.from(source).slice(0, EXCERPT_LIMIT).join('')}…` : source;
}
