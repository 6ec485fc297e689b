// The filter lexer: turns filter text into tokens with their
// source spans, so every syntax error can put a caret under the exact text at fault.
import { FilterError, type Operator, type Segment } from './filter-ast';

interface Span {
  at: number;
  end: number;
}

export type Token = Span &
  (
    | { type: 'lparen' | 'rparen' }
    | { type: 'op'; value: Operator }
    | { type: 'keyword'; value: 'and' | 'or' | 'not' | 'true' | 'false' | 'null' }
    | { type: 'path'; value: string[] }
    | { type: 'string'; value: string; segments: Segment[] | null }
    | { type: 'number'; value: number }
    | { type: 'variable'; name: string }
  );

const WORD_OPERATORS = new Set(['glob', 'matches', 'contains']);
const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);
const STRING_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t', r: '\r' };
export const NUMBER_PATTERN = /^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const VARIABLE_NAME = /^[A-Za-z0-9_-]+$/;
const WHITESPACE = /^\s$/u;
const NUMBER_CHAR = /[0-9.eE+-]/;
const WORD_START = /[A-Za-z_]/;
const WORD_CHAR = /[A-Za-z0-9_.]/;
const VARS_PREFIX = '${vars.';

class Lexer {
  private i = 0;
  readonly tokens: Token[] = [];

  constructor(private readonly source: string) {}

  private fail(reason: string, at: number, end: number): never {
    throw new FilterError(reason, at, end - at, this.source);
  }

  run(): Token[] {
    const s = this.source;
    while (this.i < s.length) {
      const c = String.fromCodePoint(s.codePointAt(this.i)!);
      if (WHITESPACE.test(c)) this.i += c.length;
      else if (c === '(' || c === ')') this.push({ type: c === '(' ? 'lparen' : 'rparen' }, this.i + 1);
      else if (c === '<' || c === '>') this.push({ type: 'op', value: (s[this.i + 1] === '=' ? `${c}=` : c) as Operator }, this.i + (s[this.i + 1] === '=' ? 2 : 1));
      else if (c === '=') this.equals();
      else if (c === '!') this.notEquals();
      else if (c === '"') this.string();
      else if (c === '$') this.variable();
      else if (c === '-' || (c >= '0' && c <= '9')) this.number();
      else if (WORD_START.test(c)) this.word();
      else if (c === '&' || c === '|') this.symbolicLogic(c);
      else this.fail(`unexpected character \`${c}\``, this.i, this.i + c.length);
    }
    return this.tokens;
  }

  private push(token: { type: string } & Record<string, unknown>, end: number): void {
    this.tokens.push({ ...token, at: this.i, end } as Token);
    this.i = end;
  }

  private equals(): void {
    if (this.source[this.i + 1] !== '=') this.fail('expected `==`; a single `=` is not an operator', this.i, this.i + 1);
    this.push({ type: 'op', value: '==' }, this.i + 2);
  }

  private notEquals(): void {
    if (this.source[this.i + 1] !== '=') this.fail('expected `!=`; write `not` for boolean negation', this.i, this.i + 1);
    this.push({ type: 'op', value: '!=' }, this.i + 2);
  }

  /** `&&` and `||` as other languages write them: name the keyword the grammar uses. */
  private symbolicLogic(c: '&' | '|'): never {
    const written = this.source[this.i + 1] === c ? c + c : c;
    this.fail(`\`${written}\` is not an operator here; write \`${c === '&' ? 'and' : 'or'}\``, this.i, this.i + written.length);
  }

  private string(): void {
    const s = this.source;
    const at = this.i;
    let value = '';
    let j = at + 1;
    for (;;) {
      if (j >= s.length) this.fail('unterminated string literal', at, s.length);
      const ch = s[j];
      if (ch === '"') break;
      if (ch === '\\' && j + 1 < s.length) {
        const next = s[j + 1];
        // Unknown escapes keep both characters, so `\d` in a regex needs no doubling.
        value += STRING_ESCAPES[next] ?? `\\${next}`;
        j += 2;
      } else {
        value += ch;
        j++;
      }
    }
    const end = j + 1;
    const segments = value.includes(VARS_PREFIX) ? this.interpolation(value, at, end) : null;
    this.push({ type: 'string', value, segments }, end);
  }

  /** Splits an unescaped string into literal text and `${vars.NAME}` segments. */
  private interpolation(text: string, at: number, end: number): Segment[] {
    const segments: Segment[] = [];
    let rest = text;
    while (rest.length > 0) {
      const start = rest.indexOf(VARS_PREFIX);
      if (start === -1) {
        segments.push({ kind: 'text', text: rest });
        break;
      }
      if (start > 0) segments.push({ kind: 'text', text: rest.slice(0, start) });
      const close = rest.indexOf('}', start);
      if (close === -1) this.fail('unterminated `${vars.NAME}` in string literal', at, end);
      const name = rest.slice(start + VARS_PREFIX.length, close);
      if (!VARIABLE_NAME.test(name)) this.fail('`${vars.NAME}` needs NAME in [A-Za-z0-9_-]', at, end);
      segments.push({ kind: 'var', name });
      rest = rest.slice(close + 1);
    }
    return segments;
  }

  private variable(): void {
    const s = this.source;
    const at = this.i;
    if (s[at + 1] !== '{') this.fail('expected a `${vars.NAME}` variable reference after `$`', at, at + 1);
    const close = s.indexOf('}', at);
    if (close === -1) this.fail('unterminated `${...}` variable reference', at, s.length);
    const inner = s.slice(at + 2, close);
    if (!inner.startsWith('vars.')) this.fail('only `${vars.NAME}` is supported here', at, close + 1);
    const name = inner.slice('vars.'.length);
    if (!VARIABLE_NAME.test(name)) this.fail('`${vars.NAME}` needs NAME in [A-Za-z0-9_-]', at, close + 1);
    this.push({ type: 'variable', name }, close + 1);
  }

  private number(): void {
    const s = this.source;
    let j = this.i;
    while (j < s.length && NUMBER_CHAR.test(s[j])) j++;
    const text = s.slice(this.i, j);
    const value = Number(text);
    if (!NUMBER_PATTERN.test(text) || !Number.isFinite(value)) this.fail(`\`${text}\` is not a valid number`, this.i, j);
    this.push({ type: 'number', value }, j);
  }

  private word(): void {
    const s = this.source;
    let j = this.i;
    while (j < s.length && WORD_CHAR.test(s[j])) j++;
    const word = s.slice(this.i, j);
    if (WORD_OPERATORS.has(word)) return this.push({ type: 'op', value: word }, j);
    if (KEYWORDS.has(word)) return this.push({ type: 'keyword', value: word }, j);
    const path = word.split('.');
    if (path.includes('')) this.fail('field path has an empty segment (check for a stray or doubled `.`)', this.i, j);
    this.push({ type: 'path', value: path }, j);
  }
}

export function lex(source: string): Token[] {
  return new Lexer(source).run();
}
