// The filter parser: recursive descent with precedence
// `not` > `and` > `or`, operand checks per operator, RE2 compilation of `matches`
// patterns, and the size limits that keep parsing and evaluation cheap.
import { RE2JS } from 're2js';
import { FilterError, filterForMessage, MAX_FILTER_BYTES, MAX_FILTER_OPERATORS, type Comparison, type Filter, type Operand, type Operator } from './filter-ast';
import { lex, type Token } from './filter-lexer';
import { printFilter } from './filter-print';

class Parser {
  private index = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  parse(): Filter {
    const filter = this.or();
    if (this.peek()) this.failAtToken('unexpected trailing input; expected `and`, `or`, or end of expression');
    return filter;
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  /** Fails under the current token, or just past the end of the source. */
  private failAtToken(reason: string): never {
    const token = this.peek();
    throw token ? new FilterError(reason, token.at, token.end - token.at, this.source) : new FilterError(reason, this.source.length, 1, this.source);
  }

  private takeKeyword(word: 'and' | 'or' | 'not'): boolean {
    const token = this.peek();
    if (token?.type !== 'keyword' || token.value !== word) return false;
    this.index++;
    return true;
  }

  private or(): Filter {
    let left = this.and();
    while (this.takeKeyword('or')) left = { kind: 'or', left, right: this.and() };
    return left;
  }

  private and(): Filter {
    let left = this.not();
    while (this.takeKeyword('and')) left = { kind: 'and', left, right: this.not() };
    return left;
  }

  private not(): Filter {
    if (this.takeKeyword('not')) return { kind: 'not', operand: this.not() };
    return this.primary();
  }

  private primary(): Filter {
    const token = this.peek();
    if (token?.type === 'lparen') {
      this.index++;
      const inner = this.or();
      if (this.peek()?.type !== 'rparen') this.failAtToken('expected `)`');
      this.index++;
      return inner;
    }
    if (token?.type !== 'path') this.failAtToken('expected a field name or `(`');
    this.index++;
    return this.comparison(token.value);
  }

  private comparison(path: string[]): Comparison {
    const opToken = this.peek();
    if (opToken?.type !== 'op') this.failAtToken(`expected a comparison operator (<, <=, ==, !=, >=, >, glob, matches, contains) after \`${path.join('.')}\``);
    this.index++;
    const operandToken = this.peek();
    if (!operandToken) this.failAtToken(`expected an operand after \`${opToken.value}\``);
    const operand = this.operand(opToken.value, operandToken);
    this.index++;
    const comparison: Comparison = { kind: 'compare', path, op: opToken.value, operand };
    if (operand.kind === 'string' && opToken.value === 'matches') comparison.regex = this.compileRegex(operand.value, operandToken);
    return comparison;
  }

  private compileRegex(pattern: string, token: Token): RE2JS {
    try {
      return RE2JS.compile(pattern);
    } catch (error) {
      throw new FilterError(`invalid regex: ${(error as Error).message}`, token.at, token.end - token.at, this.source);
    }
  }

  private operand(op: Operator, token: Token): Operand {
    const value = literalOperand(token);
    const fail = (reason: string): never => {
      throw new FilterError(reason, token.at, token.end - token.at, this.source);
    };
    switch (op) {
      case '<':
      case '<=':
      case '>':
      case '>=':
        return value?.kind === 'number' || value?.kind === 'variable' ? value : fail(`\`${op}\` needs a numeric operand`);
      case '==':
      case '!=':
        return value ?? fail('expected a string, number, boolean, or null operand');
      case 'glob':
        return value?.kind === 'string' || value?.kind === 'interpolated' ? value : fail('`glob` needs a "quoted" wildcard pattern operand');
      case 'matches':
        if (value?.kind === 'interpolated') fail("`matches` takes a literal regex; `${vars.NAME}` interpolation isn't supported inside a regex pattern");
        return value?.kind === 'string' ? value : fail('`matches` needs a "quoted" regex operand');
      case 'contains':
        return value && value.kind !== 'null' ? value : fail('`contains` needs a string, number, or boolean operand');
    }
  }
}

function literalOperand(token: Token): Operand | null {
  switch (token.type) {
    case 'string':
      return token.segments ? { kind: 'interpolated', segments: token.segments } : { kind: 'string', value: token.value };
    case 'number':
      return { kind: 'number', value: token.value };
    case 'variable':
      return { kind: 'variable', name: token.name };
    case 'keyword':
      if (token.value === 'true' || token.value === 'false') return { kind: 'boolean', value: token.value === 'true' };
      return token.value === 'null' ? { kind: 'null' } : null;
    default:
      return null;
  }
}

function isOperatorToken(token: Token): boolean {
  return token.type === 'lparen' || (token.type === 'keyword' && (token.value === 'and' || token.value === 'or' || token.value === 'not'));
}

/** Refuses the 129th `not`/`and`/`or`/`(`, pointing at it. */
function checkOperatorCount(tokens: Token[], source: string): void {
  let count = 0;
  for (const token of tokens) {
    if (isOperatorToken(token) && ++count > MAX_FILTER_OPERATORS) {
      throw new FilterError(`filter exceeds ${MAX_FILTER_OPERATORS} operators/groups; simplify the filter`, token.at, token.end - token.at, source);
    }
  }
}

/** Parses filter text; throws FilterError (reason, offset, caret excerpt) on any fault. */
export function parseFilter(source: string): Filter {
  if (Buffer.byteLength(source, 'utf8') > MAX_FILTER_BYTES) {
    throw new FilterError(`filter exceeds ${MAX_FILTER_BYTES} bytes; shorten the filter`, 0, 1, filterForMessage(source));
  }
  const tokens = lex(source);
  checkOperatorCount(tokens, source);
  const filter = new Parser(tokens, source).parse();
  if (Buffer.byteLength(printFilter(filter), 'utf8') > MAX_FILTER_BYTES) {
    throw new FilterError(`formatted filter exceeds ${MAX_FILTER_BYTES} bytes; shorten the filter`, 0, 1, filterForMessage(source));
  }
  return filter;
}
