// The canonical form of a filter, used in the Blueprint hash,
// in diagnostics and wherever a filter is shown; plus the walks that list a filter's
// variables and fields for the Blueprint checks.
import type { Comparison, Filter, Operand } from './filter-ast';

const STRING_ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function escapeText(text: string): string {
  return text.replace(/[\\"\n\t\r]/g, (c) => STRING_ESCAPES[c]);
}

/** Shortest round-tripping digits, positional (never an exponent); whole numbers below 1e15 as integers. */
export function printNumber(value: number): string {
  if (Object.is(value, -0)) return '0';
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const text = String(value);
  return /e/i.test(text) ? expandExponent(text) : text;
}

/** `1.5e-7` → `0.00000015`, `1e+21` → `1000000000000000000000`. */
function expandExponent(text: string): string {
  const negative = text.startsWith('-');
  const [mantissa, exponentText] = (negative ? text.slice(1) : text).toLowerCase().split('e');
  const pointInMantissa = mantissa.includes('.') ? mantissa.indexOf('.') : mantissa.length;
  const digits = mantissa.replace('.', '');
  const pointAt = pointInMantissa + Number(exponentText);
  let out: string;
  if (pointAt <= 0) out = `0.${'0'.repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) out = digits + '0'.repeat(pointAt - digits.length);
  else out = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return negative ? `-${out}` : out;
}

function printOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'string':
      return `"${escapeText(operand.value)}"`;
    case 'interpolated':
      return `"${operand.segments.map((s) => (s.kind === 'var' ? `\${vars.${s.name}}` : escapeText(s.text))).join('')}"`;
    case 'number':
      return printNumber(operand.value);
    case 'boolean':
      return String(operand.value);
    case 'null':
      return 'null';
    case 'variable':
      return `\${vars.${operand.name}}`;
  }
}

const PRECEDENCE = { or: 1, and: 2, not: 3, compare: 4 } as const;

/** Parenthesises a child only where the tree needs it: lower precedence, or a same-precedence right child. */
export function printFilter(filter: Filter): string {
  switch (filter.kind) {
    case 'compare':
      return `${filter.path.join('.')} ${filter.op} ${printOperand(filter.operand)}`;
    case 'not': {
      const inner = printFilter(filter.operand);
      return PRECEDENCE[filter.operand.kind] < PRECEDENCE.not ? `not (${inner})` : `not ${inner}`;
    }
    case 'and':
    case 'or': {
      const own = PRECEDENCE[filter.kind];
      const left = printFilter(filter.left);
      const right = printFilter(filter.right);
      const leftText = PRECEDENCE[filter.left.kind] < own ? `(${left})` : left;
      const rightText = PRECEDENCE[filter.right.kind] <= own ? `(${right})` : right;
      return `${leftText} ${filter.kind} ${rightText}`;
    }
  }
}

function comparisons(filter: Filter, out: Comparison[] = []): Comparison[] {
  if (filter.kind === 'compare') out.push(filter);
  else if (filter.kind === 'not') comparisons(filter.operand, out);
  else {
    comparisons(filter.left, out);
    comparisons(filter.right, out);
  }
  return out;
}

/** Every `${vars.NAME}` the filter uses, bare or interpolated, in first-use order. */
export function filterVariables(filter: Filter): string[] {
  const names = new Set<string>();
  for (const { operand } of comparisons(filter)) {
    if (operand.kind === 'variable') names.add(operand.name);
    if (operand.kind === 'interpolated') for (const s of operand.segments) if (s.kind === 'var') names.add(s.name);
  }
  return [...names];
}

/** The first path segment of every field the filter tests (the registration field check). */
export function filterFields(filter: Filter): string[] {
  return [...new Set(comparisons(filter).map((c) => c.path[0]))];
}
