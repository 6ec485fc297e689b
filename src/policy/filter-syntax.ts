// The filter language (blueprints-and-policy §5): lexer, parser and canonical printer.
// A filter is a boolean expression over an operation's context fields, e.g.
// `path glob "/notes/*" and not (size > 1000)`.
import { RE2JS } from 're2js';

export const MAX_FILTER_BYTES = 65_536;
export const MAX_FILTER_OPERATORS = 128;

export class FilterError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    source: string,
  ) {
    super(`${reason}\n${caretExcerpt(source, offset)}`);
    this.name = 'FilterError';
  }
}

function caretExcerpt(source: string, offset: number): string {
  const line = source.replace(/\n/g, ' ');
  return `  ${line}\n  ${' '.repeat(Math.max(0, Math.min(offset, line.length)))}^`;
}

export type Segment = { kind: 'text'; text: string } | { kind: 'var'; name: string };

export type Operand =
  | { kind: 'string'; value: string }
  | { kind: 'interpolated'; segments: Segment[] }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'variable'; name: string };

export type Operator = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'glob' | 'matches' | 'contains';

export type Filter =
  | { kind: 'compare'; path: string[]; op: Operator; operand: Operand; regex?: RE2JS }
  | { kind: 'not'; operand: Filter }
  | { kind: 'and' | 'or'; left: Filter; right: Filter };

type Token =
  | { type: 'lparen' | 'rparen'; at: number }
  | { type: 'op'; value: Operator; at: number }
  | { type: 'keyword'; value: 'and' | 'or' | 'not' | 'true' | 'false' | 'null'; at: number }
  | { type: 'path'; value: string[]; at: number }
  | { type: 'string'; value: string; segments: Segment[] | null; at: number }
  | { type: 'number'; value: number; at: number }
  | { type: 'variable'; name: string; at: number };

const KEYWORDS = new Set(['and', 'or', 'not', 'glob', 'matches', 'contains', 'true', 'false', 'null']);
const NUMBER = /^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const VAR_NAME = /^[A-Za-z0-9_-]+$/;

function interpolate(text: string, source: string, at: number): Segment[] | null {
  if (!text.includes('${vars.')) return null;
  const segments: Segment[] = [];
  let rest = text;
  while (rest.length > 0) {
    const start = rest.indexOf('${vars.');
    if (start === -1) {
      segments.push({ kind: 'text', text: rest });
      break;
    }
    if (start > 0) segments.push({ kind: 'text', text: rest.slice(0, start) });
    const end = rest.indexOf('}', start);
    if (end === -1) throw new FilterError('unterminated `${vars.NAME}` in string literal', at, source);
    const name = rest.slice(start + 7, end);
    if (!VAR_NAME.test(name)) throw new FilterError('`${vars.NAME}` needs NAME in [A-Za-z0-9_-]', at, source);
    segments.push({ kind: 'var', name });
    rest = rest.slice(end + 1);
  }
  return segments;
}

function lex(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (c === '(' || c === ')') {
      tokens.push({ type: c === '(' ? 'lparen' : 'rparen', at });
      i++;
    } else if (c === '<' || c === '>') {
      const op = source[i + 1] === '=' ? `${c}=` : c;
      tokens.push({ type: 'op', value: op as Operator, at });
      i += op.length;
    } else if (c === '=') {
      if (source[i + 1] !== '=') throw new FilterError('expected `==`; a single `=` is not an operator', at, source);
      tokens.push({ type: 'op', value: '==', at });
      i += 2;
    } else if (c === '!') {
      if (source[i + 1] !== '=') throw new FilterError('expected `!=`; write `not` for boolean negation', at, source);
      tokens.push({ type: 'op', value: '!=', at });
      i += 2;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new FilterError('unterminated string literal', at, source);
        const ch = source[i];
        if (ch === '"') {
          i++;
          break;
        }
        if (ch === '\\' && i + 1 < source.length) {
          const next = source[i + 1];
          const mapped = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r' }[next];
          value += mapped ?? `\\${next}`;
          i += 2;
        } else {
          value += ch;
          i++;
        }
      }
      tokens.push({ type: 'string', value, segments: interpolate(value, source, at), at });
    } else if (c === '$') {
      if (source[i + 1] !== '{') throw new FilterError('expected a `${vars.NAME}` variable reference after `$`', at, source);
      const end = source.indexOf('}', i);
      if (end === -1) throw new FilterError('unterminated `${...}` variable reference', at, source);
      const inner = source.slice(i + 2, end);
      if (!inner.startsWith('vars.')) throw new FilterError('only `${vars.NAME}` is supported here', at, source);
      const name = inner.slice(5);
      if (!VAR_NAME.test(name)) throw new FilterError('`${vars.NAME}` needs NAME in [A-Za-z0-9_-]', at, source);
      tokens.push({ type: 'variable', name, at });
      i = end + 1;
    } else if (c === '-' || /[0-9]/.test(c)) {
      let j = i;
      while (j < source.length && /[0-9.eE+-]/.test(source[j])) j++;
      const text = source.slice(i, j);
      const value = Number(text);
      if (!NUMBER.test(text) || !Number.isFinite(value)) throw new FilterError(`\`${text}\` is not a valid number`, at, source);
      tokens.push({ type: 'number', value, at });
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < source.length && /[A-Za-z0-9_.]/.test(source[j])) j++;
      const word = source.slice(i, j);
      i = j;
      if (KEYWORDS.has(word)) {
        if (word === 'glob' || word === 'matches' || word === 'contains') tokens.push({ type: 'op', value: word, at });
        else tokens.push({ type: 'keyword', value: word as 'and', at });
      } else {
        const path = word.split('.');
        if (path.some((segment) => segment === '')) throw new FilterError('field path has an empty segment (check for a stray or doubled `.`)', at, source);
        tokens.push({ type: 'path', value: path, at });
      }
    } else {
      throw new FilterError(`unexpected character \`${c}\``, at, source);
    }
  }
  return tokens;
}

class Parser {
  private index = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }
  private at(): number {
    return this.peek()?.at ?? this.source.length;
  }
  private isKeyword(word: string): boolean {
    const token = this.peek();
    return token?.type === 'keyword' && token.value === word;
  }

  parse(): Filter {
    const filter = this.or();
    if (this.index < this.tokens.length) throw new FilterError('unexpected trailing input; expected `and`, `or`, or end of expression', this.at(), this.source);
    return filter;
  }

  private or(): Filter {
    let left = this.and();
    while (this.isKeyword('or')) {
      this.index++;
      left = { kind: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Filter {
    let left = this.not();
    while (this.isKeyword('and')) {
      this.index++;
      left = { kind: 'and', left, right: this.not() };
    }
    return left;
  }

  private not(): Filter {
    if (this.isKeyword('not')) {
      this.index++;
      return { kind: 'not', operand: this.not() };
    }
    return this.primary();
  }

  private primary(): Filter {
    const token = this.peek();
    if (token?.type === 'lparen') {
      this.index++;
      const inner = this.or();
      if (this.peek()?.type !== 'rparen') throw new FilterError('expected `)`', this.at(), this.source);
      this.index++;
      return inner;
    }
    if (token?.type !== 'path') throw new FilterError('expected a field name or `(`', this.at(), this.source);
    this.index++;
    const opToken = this.peek();
    if (opToken?.type !== 'op') {
      throw new FilterError(`expected a comparison operator (<, <=, ==, !=, >=, >, glob, matches, contains) after \`${token.value.join('.')}\``, this.at(), this.source);
    }
    this.index++;
    const operandToken = this.peek();
    if (!operandToken) throw new FilterError(`expected an operand after \`${opToken.value}\``, this.at(), this.source);
    const operand = this.operand(opToken.value, operandToken);
    this.index++;
    const compare: Filter = { kind: 'compare', path: token.value, op: opToken.value, operand };
    if (opToken.value === 'matches') {
      try {
        compare.regex = RE2JS.compile((operand as { value: string }).value);
      } catch (error) {
        throw new FilterError(`invalid regex: ${(error as Error).message}`, operandToken.at, this.source);
      }
    }
    return compare;
  }

  private operand(op: Operator, token: Token): Operand {
    const fail = (reason: string) => new FilterError(reason, token.at, this.source);
    const literal = (): Operand | null => {
      if (token.type === 'string') return token.segments ? { kind: 'interpolated', segments: token.segments } : { kind: 'string', value: token.value };
      if (token.type === 'number') return { kind: 'number', value: token.value };
      if (token.type === 'variable') return { kind: 'variable', name: token.name };
      if (token.type === 'keyword' && (token.value === 'true' || token.value === 'false')) return { kind: 'boolean', value: token.value === 'true' };
      if (token.type === 'keyword' && token.value === 'null') return { kind: 'null' };
      return null;
    };
    const value = literal();
    switch (op) {
      case '<':
      case '<=':
      case '>':
      case '>=':
        if (value?.kind === 'number' || value?.kind === 'variable') return value;
        throw fail(`\`${op}\` needs a numeric operand`);
      case '==':
      case '!=':
        if (value) return value;
        throw fail('expected a string, number, boolean, or null operand');
      case 'glob':
        if (value?.kind === 'string' || value?.kind === 'interpolated') return value;
        throw fail('`glob` needs a "quoted" wildcard pattern operand');
      case 'matches':
        if (value?.kind === 'interpolated') throw fail("`matches` takes a literal regex; `${vars.NAME}` interpolation isn't supported inside a regex pattern");
        if (value?.kind === 'string') return value;
        throw fail('`matches` needs a "quoted" regex operand');
      case 'contains':
        if (value && value.kind !== 'null') return value;
        throw fail('`contains` needs a string, number, or boolean operand');
    }
  }
}

export function parseFilter(source: string): Filter {
  if (Buffer.byteLength(source, 'utf8') > MAX_FILTER_BYTES) throw new FilterError(`filter exceeds ${MAX_FILTER_BYTES} bytes; shorten the filter`, 0, source.slice(0, 80));
  const tokens = lex(source);
  const operators = tokens.filter((t) => t.type === 'lparen' || (t.type === 'keyword' && ['and', 'or', 'not'].includes(t.value))).length;
  if (operators > MAX_FILTER_OPERATORS) throw new FilterError(`filter exceeds ${MAX_FILTER_OPERATORS} operators/groups; simplify the filter`, 0, source);
  if (tokens.length === 0) throw new FilterError('expected a field name or `(`', 0, source);
  const filter = new Parser(tokens, source).parse();
  if (Buffer.byteLength(printFilter(filter), 'utf8') > MAX_FILTER_BYTES) throw new FilterError(`formatted filter exceeds ${MAX_FILTER_BYTES} bytes; shorten the filter`, 0, source.slice(0, 80));
  return filter;
}

// --- canonical printing ---------------------------------------------------------------

function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')}"`;
}

export function printNumber(value: number): string {
  if (Object.is(value, -0)) return '0';
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Positional notation for exponent forms.
  const [mantissa, exponentText] = text.toLowerCase().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const pointAt = (mantissa.replace('-', '').indexOf('.') === -1 ? mantissa.replace('-', '').length : mantissa.replace('-', '').indexOf('.')) + exponent;
  let out: string;
  if (pointAt <= 0) out = `0.${'0'.repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) out = digits + '0'.repeat(pointAt - digits.length);
  else out = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return negative ? `-${out}` : out;
}

function printOperand(operand: Operand): string {
  switch (operand.kind) {
    case 'string':
      return quote(operand.value);
    case 'interpolated':
      return `"${operand.segments.map((s) => (s.kind === 'var' ? `\${vars.${s.name}}` : quote(s.text).slice(1, -1))).join('')}"`;
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

const precedence = { or: 1, and: 2, not: 3, compare: 4 } as const;

export function printFilter(filter: Filter): string {
  switch (filter.kind) {
    case 'compare':
      return `${filter.path.join('.')} ${filter.op} ${printOperand(filter.operand)}`;
    case 'not': {
      const inner = printFilter(filter.operand);
      return precedence[filter.operand.kind] < precedence.not ? `not (${inner})` : `not ${inner}`;
    }
    case 'and':
    case 'or': {
      const own = precedence[filter.kind];
      const left = printFilter(filter.left);
      const right = printFilter(filter.right);
      const wrapLeft = precedence[filter.left.kind] < own;
      const wrapRight = precedence[filter.right.kind] <= own;
      return `${wrapLeft ? `(${left})` : left} ${filter.kind} ${wrapRight ? `(${right})` : right}`;
    }
  }
}

/** Every `${vars.NAME}` the filter uses. */
export function filterVariables(filter: Filter): string[] {
  const names = new Set<string>();
  const visit = (f: Filter) => {
    if (f.kind === 'compare') {
      if (f.operand.kind === 'variable') names.add(f.operand.name);
      if (f.operand.kind === 'interpolated') for (const s of f.operand.segments) if (s.kind === 'var') names.add(s.name);
    } else if (f.kind === 'not') visit(f.operand);
    else {
      visit(f.left);
      visit(f.right);
    }
  };
  visit(filter);
  return [...names];
}

/** The first path segment of every field the filter tests. */
export function filterFields(filter: Filter): string[] {
  const fields = new Set<string>();
  const visit = (f: Filter) => {
    if (f.kind === 'compare') fields.add(f.path[0]);
    else if (f.kind === 'not') visit(f.operand);
    else {
      visit(f.left);
      visit(f.right);
    }
  };
  visit(filter);
  return [...fields];
}
