// Evaluation of a parsed filter against an operation context. Evaluation never throws:
// anything that cannot be decided is false. `matches` runs the RE2 program compiled at
// parse time (re2js: an automaton simulation, linear in the input, no backreferences or
// lookaround), so no pattern can stall a decision.
import type { Comparison, Filter, Operand } from './filter-ast';
import { NUMBER_PATTERN } from './filter-lexer';

type Variables = Readonly<Record<string, string>>;

const MISSING = Symbol('missing');
const INDEX = /^(0|[1-9][0-9]*)$/;

/** Own keys only: `${vars.constructor}` must not find Object.prototype.constructor. */
function variable(vars: Variables, name: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(vars, name)) return undefined;
  const value = vars[name];
  return typeof value === 'string' ? value : undefined;
}

function lookup(context: unknown, path: string[]): unknown {
  let value: unknown = context;
  for (const segment of path) {
    if (Array.isArray(value) && INDEX.test(segment)) {
      const index = Number(segment);
      if (index >= value.length) return MISSING;
      value = value[index];
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else return MISSING;
    if (value === undefined) return MISSING;
  }
  return value;
}

function variableNumber(text: string | undefined): number | null {
  if (text === undefined || !NUMBER_PATTERN.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** `==` as a tri-state: true/false when decidable, null when not (missing types, unbound). */
function equals(field: unknown, operand: Operand, vars: Variables): boolean | null {
  switch (operand.kind) {
    case 'null':
      return field === null;
    case 'number':
      return typeof field === 'number' ? field === operand.value : null;
    case 'string':
      return typeof field === 'string' ? field === operand.value : null;
    case 'boolean':
      return typeof field === 'boolean' ? field === operand.value : null;
    case 'interpolated': {
      if (typeof field !== 'string') return null;
      const text = interpolate(operand, vars, (value) => value);
      return text === null ? null : field === text;
    }
    case 'variable': {
      const value = variable(vars, operand.name);
      if (value === undefined) return null;
      if (typeof field === 'boolean') return value === 'true' || value === 'false' ? field === (value === 'true') : null;
      if (typeof field === 'number') {
        const n = variableNumber(value);
        return n === null ? null : field === n;
      }
      if (typeof field === 'string') return field === value;
      return null;
    }
  }
}

function globPattern(operand: Operand, vars: Variables): string | null {
  if (operand.kind === 'string') return operand.value;
  if (operand.kind !== 'interpolated') return null;
  // Variable values match literally; only the Blueprint's own text has wildcards.
  return interpolate(operand, vars, (value) => value.replace(/[\\*?]/g, (c) => `\\${c}`));
}

/** An interpolated operand's text with each variable's value (as `quote` renders it); null when a variable is unset. */
function interpolate(operand: Extract<Operand, { kind: 'interpolated' }>, vars: Variables, quote: (value: string) => string): string | null {
  let text = '';
  for (const segment of operand.segments) {
    if (segment.kind === 'text') text += segment.text;
    else {
      const value = variable(vars, segment.name);
      if (value === undefined) return null;
      text += quote(value);
    }
  }
  return text;
}

/** Whole-string glob: `*` any run (including `/`), `?` one code point, `\x` literal x. */
export function globMatch(pattern: string, text: string): boolean {
  const p = Array.from(pattern);
  const t = Array.from(text);
  // Iterative matcher with backtracking to the last `*` (linear in practice, no regex).
  let pi = 0;
  let ti = 0;
  let starP = -1;
  let starT = 0;
  const literalAt = (i: number): [string, number] | null => {
    if (p[i] === '\\') return i + 1 < p.length ? [p[i + 1], 2] : ['\\', 1];
    return null;
  };
  while (ti < t.length) {
    if (pi < p.length && p[pi] === '*') {
      starP = pi++;
      starT = ti;
      continue;
    }
    if (pi < p.length) {
      const literal = literalAt(pi);
      if (literal) {
        if (literal[0] === t[ti]) {
          pi += literal[1];
          ti++;
          continue;
        }
      } else if (p[pi] === '?' || p[pi] === t[ti]) {
        pi++;
        ti++;
        continue;
      }
    }
    if (starP !== -1) {
      pi = starP + 1;
      ti = ++starT;
      continue;
    }
    return false;
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

function compare(filter: Comparison, context: unknown, vars: Variables): boolean {
  const field = lookup(context, filter.path);
  if (field === MISSING) return false;
  const { op, operand } = filter;
  switch (op) {
    case '<':
    case '<=':
    case '>':
    case '>=': {
      if (typeof field !== 'number') return false;
      const right = operand.kind === 'number' ? operand.value : operand.kind === 'variable' ? variableNumber(variable(vars, operand.name)) : null;
      if (right === null) return false;
      return op === '<' ? field < right : op === '<=' ? field <= right : op === '>' ? field > right : field >= right;
    }
    case '==':
      return equals(field, operand, vars) === true;
    case '!=': {
      if (operand.kind === 'null') return field !== null;
      const result = equals(field, operand, vars);
      return result === null ? false : !result;
    }
    case 'glob': {
      if (typeof field !== 'string') return false;
      const pattern = globPattern(operand, vars);
      return pattern !== null && globMatch(pattern, field);
    }
    case 'matches':
      return typeof field === 'string' && filter.regex !== undefined && filter.regex.matcher(field).find();
    case 'contains':
      return Array.isArray(field) && field.some((element) => equals(element, operand, vars) === true);
  }
}

/** True when the filter holds for the context; never throws. */
export function evaluateFilter(filter: Filter, context: unknown, vars: Variables): boolean {
  switch (filter.kind) {
    case 'compare':
      return compare(filter, context, vars);
    case 'not':
      return !evaluateFilter(filter.operand, context, vars);
    case 'and':
      return evaluateFilter(filter.left, context, vars) && evaluateFilter(filter.right, context, vars);
    case 'or':
      return evaluateFilter(filter.left, context, vars) || evaluateFilter(filter.right, context, vars);
  }
}
