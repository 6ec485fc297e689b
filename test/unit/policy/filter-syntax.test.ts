// The filter language's syntax: lexer and parser errors with caret excerpts, the limits,
// precedence, and the canonical printed form.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FilterError, filterFields, filterVariables, parseFilter, printFilter, printNumber } from '../../../src/policy';

function syntaxError(source: string): FilterError {
  try {
    parseFilter(source);
  } catch (error) {
    if (error instanceof FilterError) return error;
    throw error;
  }
  assert.fail(`expected \`${source}\` to be refused`);
}

const canonical = (source: string) => printFilter(parseFilter(source));

describe('syntax errors', () => {
  test('each lexer and parser fault names the problem', () => {
    const cases: Array<[string, string]> = [
      ['a = 1', 'expected `==`; a single `=` is not an operator'],
      ['!a', 'expected `!=`; write `not` for boolean negation'],
      ['a == "x', 'unterminated string literal'],
      ['a == "${vars.x"', 'unterminated `${vars.NAME}` in string literal'],
      ['a == "${vars.a b}"', '`${vars.NAME}` needs NAME in [A-Za-z0-9_-]'],
      ['a == $x', 'expected a `${vars.NAME}` variable reference after `$`'],
      ['a == ${vars.x', 'unterminated `${...}` variable reference'],
      ['a == ${env.X}', 'only `${vars.NAME}` is supported here'],
      ['a == ${vars.}', '`${vars.NAME}` needs NAME in [A-Za-z0-9_-]'],
      ['a == 1e', '`1e` is not a valid number'],
      ['a == --1', '`--1` is not a valid number'],
      ['a == 1-2', '`1-2` is not a valid number'],
      ['a == .5', 'unexpected character `.`'],
      ['a..b == 1', 'field path has an empty segment (check for a stray or doubled `.`)'],
      ['a. == 1', 'field path has an empty segment (check for a stray or doubled `.`)'],
      ['a == 1 & b == 2', '`&` is not an operator here; write `and`'],
      ['a == 1 && b == 2', '`&&` is not an operator here; write `and`'],
      ['a == 1 || b == 2', '`||` is not an operator here; write `or`'],
      ['a < "x"', '`<` needs a numeric operand'],
      ['a >= true', '`>=` needs a numeric operand'],
      ['a == (', 'expected a string, number, boolean, or null operand'],
      ['a glob 5', '`glob` needs a "quoted" wildcard pattern operand'],
      ['a glob ${vars.x}', '`glob` needs a "quoted" wildcard pattern operand'],
      ['a matches "x${vars.y}"', "`matches` takes a literal regex; `${vars.NAME}` interpolation isn't supported inside a regex pattern"],
      ['a matches 5', '`matches` needs a "quoted" regex operand'],
      ['a contains null', '`contains` needs a string, number, or boolean operand'],
      ['', 'expected a field name or `(`'],
      ['and', 'expected a field name or `(`'],
      ['5 == a', 'expected a field name or `(`'],
      ['(a == 1', 'expected `)`'],
      ['a == 1 b == 2', 'unexpected trailing input; expected `and`, `or`, or end of expression'],
      ['a == 1)', 'unexpected trailing input; expected `and`, `or`, or end of expression'],
      ['a', 'expected a comparison operator (<, <=, ==, !=, >=, >, glob, matches, contains) after `a`'],
      ['a.b c', 'expected a comparison operator (<, <=, ==, !=, >=, >, glob, matches, contains) after `a.b`'],
      ['a ==', 'expected an operand after `==`'],
      ['not', 'expected a field name or `(`'],
    ];
    for (const [source, reason] of cases) assert.equal(syntaxError(source).reason, reason, source);
  });

  test('regex patterns RE2 refuses (backreferences, lookaround, bad syntax) are invalid regex', () => {
    for (const pattern of ['(a', '(x)\\\\1', '(?=x)', '(?<!x)y', 'a{2,5000}']) {
      assert.match(syntaxError(`a matches "${pattern}"`).reason, /^invalid regex: /, pattern);
    }
  });

  test('the message renders the source and a caret line under the whole offending span', () => {
    assert.equal(syntaxError('a = 1').message, 'expected `==`; a single `=` is not an operator\n  a = 1\n    ^');
    assert.equal(syntaxError('a == 1e').message, '`1e` is not a valid number\n  a == 1e\n       ^^');
    assert.equal(syntaxError('amount < "x" and b == 1').message, '`<` needs a numeric operand\n  amount < "x" and b == 1\n           ^^^');
    const atEnd = syntaxError('(a == 1');
    assert.equal(atEnd.message, 'expected `)`\n  (a == 1\n         ^');
    assert.equal(atEnd.offset, 7);
    assert.equal(atEnd.column, 8);
  });

  test('caret columns count code points, and newlines in the source print as spaces', () => {
    const astral = syntaxError('a == "😀" b');
    assert.equal(astral.message.split('\n')[2], `  ${' '.repeat(9)}^`);
    assert.equal(astral.column, 10);
    const multiline = syntaxError('a == 1\nand b = 2');
    assert.deepEqual(multiline.message.split('\n').slice(1), ['  a == 1 and b = 2', `  ${' '.repeat(13)}^`]);
  });
});

describe('limits', () => {
  const comparisons = (n: number) => Array.from({ length: n }, (_, i) => `a == ${i}`).join(' or ');

  test('128 operators/groups parse; the 129th is refused with the caret on it', () => {
    assert.doesNotThrow(() => parseFilter(comparisons(129)));
    const error = syntaxError(comparisons(130));
    assert.equal(error.reason, 'filter exceeds 128 operators/groups; simplify the filter');
    assert.equal(error.offset, comparisons(129).length + 1);
    assert.throws(() => parseFilter(`${'not '.repeat(128)}(a == 1)`), /exceeds 128 operators/, 'not and ( count too');
    assert.doesNotThrow(() => parseFilter(`${'not '.repeat(127)}(a == 1)`));
  });

  test('65,536 bytes of UTF-8 parse; one more byte is refused', () => {
    const fits = `a == "${'x'.repeat(65_536 - 7)}"`;
    assert.equal(Buffer.byteLength(fits), 65_536);
    assert.doesNotThrow(() => parseFilter(fits));
    const multibyte = `a == "${'é'.repeat(32_765)}"`;
    assert.equal(Buffer.byteLength(multibyte), 65_537);
    assert.equal(syntaxError(multibyte).reason, 'filter exceeds 65536 bytes; shorten the filter');
  });

  test('a canonical form over 64 KiB is refused even when the source fits', () => {
    const newlines = `a == "${'\n'.repeat(40_000)}"`;
    assert.equal(syntaxError(newlines).reason, 'formatted filter exceeds 65536 bytes; shorten the filter');
  });

  test('the excerpt of an oversized filter is shortened', () => {
    const error = syntaxError(`a == "${'x'.repeat(70_000)}"`);
    assert.ok(error.message.length < 300, `message of ${error.message.length} characters`);
  });
});

describe('grammar', () => {
  test('precedence is not > and > or, and both connectives associate left', () => {
    const tree = parseFilter('not a == 1 and b == 2 or c == 3');
    assert.equal(tree.kind, 'or');
    assert.equal(tree.kind === 'or' && tree.left.kind, 'and');
    assert.equal(tree.kind === 'or' && tree.left.kind === 'and' && tree.left.left.kind, 'not');
    const chain = parseFilter('a == 1 and b == 2 and c == 3');
    assert.equal(chain.kind === 'and' && chain.left.kind, 'and', 'left-associative');
  });

  test('keywords are never field names, but may be segments of a longer path', () => {
    assert.throws(() => parseFilter('true == 1'), /expected a field name/);
    assert.deepEqual(filterFields(parseFilter('not.x == 1 and glob.y == 2')), ['not', 'glob']);
  });

  test('strings keep unknown escapes as two characters and unescape the known ones', () => {
    const tree = parseFilter('a == "q\\"b\\\\s\\n\\t\\r\\d"');
    assert.deepEqual(tree.kind === 'compare' && tree.operand, { kind: 'string', value: 'q"b\\s\n\t\r\\d' });
  });

  test('other $ and { in strings are literal; ${vars.NAME} makes a string interpolated', () => {
    assert.deepEqual(parseFilter('a == "$x {y} ${z}"'), { kind: 'compare', path: ['a'], op: '==', operand: { kind: 'string', value: '$x {y} ${z}' } });
    const tree = parseFilter('a == "/t/${vars.team}/${vars.user-id}.txt"');
    assert.deepEqual(tree.kind === 'compare' && tree.operand, {
      kind: 'interpolated',
      segments: [{ kind: 'text', text: '/t/' }, { kind: 'var', name: 'team' }, { kind: 'text', text: '/' }, { kind: 'var', name: 'user-id' }, { kind: 'text', text: '.txt' }],
    });
  });

  test('numbers follow the number pattern: 5, -2.5, 1e3, 5., -.5', () => {
    for (const [text, value] of [['5', 5], ['-2.5', -2.5], ['1e3', 1000], ['5.', 5], ['-.5', -0.5], ['2E-2', 0.02]] as const) {
      const tree = parseFilter(`a == ${text}`);
      assert.deepEqual(tree.kind === 'compare' && tree.operand, { kind: 'number', value }, text);
    }
    assert.equal(syntaxError('a == 1e999').reason, '`1e999` is not a valid number');
  });

  test('Unicode whitespace separates tokens', () => {
    assert.equal(canonical('a\u00a0==\u20031\u2028and\tb==2'), 'a == 1 and b == 2');
  });

  test('variables and fields are listed for the Blueprint checks', () => {
    const tree = parseFilter('a.b == ${vars.x} and (c glob "/${vars.y}/${vars.x}" or not d.0 > ${vars.z})');
    assert.deepEqual(filterVariables(tree), ['x', 'y', 'z']);
    assert.deepEqual(filterFields(tree), ['a', 'c', 'd']);
  });
});

describe('canonical form', () => {
  test('the reference examples', () => {
    const examples: Array<[string, string]> = [
      ['amount<=5000.0 and customerClass=="premium"', 'amount <= 5000 and customerClass == "premium"'],
      ['path glob "/w/*" and not (path glob "*.exe")', 'path glob "/w/*" and not path glob "*.exe"'],
      ['(a == 1 or b == 2) and c == 3', '(a == 1 or b == 2) and c == 3'],
      ['a == 1 or (b == 2 and c == 3)', 'a == 1 or b == 2 and c == 3'],
      ['x == 1e3', 'x == 1000'],
    ];
    for (const [written, expected] of examples) assert.equal(canonical(written), expected, written);
  });

  test('parentheses only where the tree needs them', () => {
    assert.equal(canonical('a == 1 and (b == 1 and c == 1)'), 'a == 1 and (b == 1 and c == 1)');
    assert.equal(canonical('(a == 1 and b == 1) and c == 1'), 'a == 1 and b == 1 and c == 1');
    assert.equal(canonical('a == 1 or (b == 1 or c == 1)'), 'a == 1 or (b == 1 or c == 1)');
    assert.equal(canonical('not (a == 1 and b == 2)'), 'not (a == 1 and b == 2)');
    assert.equal(canonical('not (not (a == 1))'), 'not not a == 1');
    assert.equal(canonical('((a == 1))'), 'a == 1');
    assert.equal(canonical('(a == 1 or b == 1) and not (c == 1 or d == 1)'), '(a == 1 or b == 1) and not (c == 1 or d == 1)');
  });

  test('numbers: integers below 1e15, otherwise shortest digits in positional notation', () => {
    const numbers: Array<[number, string]> = [
      [5000.0, '5000'],
      [-0, '0'],
      [1e-7, '0.0000001'],
      [-1.5e-7, '-0.00000015'],
      [1e21, '1000000000000000000000'],
      [1e15, '1000000000000000'],
      [0.1, '0.1'],
      [123.456, '123.456'],
      [2 ** 53 + 2, '9007199254740994'],
    ];
    for (const [value, text] of numbers) {
      assert.equal(printNumber(value), text, String(value));
      assert.equal(Number(text), value === 0 ? 0 : value);
    }
    assert.equal(canonical('x == -0.0 and y == 5. and z == 1E21'), 'x == 0 and y == 5 and z == 1000000000000000000000');
  });

  test('strings are re-quoted with the five escapes; variables print as ${vars.NAME}', () => {
    assert.equal(canonical('s=="a\\"b\\n"'), 's == "a\\"b\\n"');
    assert.equal(canonical('s == "tab\there"'), 's == "tab\\there"');
    assert.equal(canonical('s == "back\\\\slash \\d"'), 's == "back\\\\slash \\\\d"');
    assert.equal(canonical('p glob  "/t/${vars.team}/\\"*"'), 'p glob "/t/${vars.team}/\\"*"');
    assert.equal(canonical('n<=${vars.limit} and b==true and c!=null and d contains false'), 'n <= ${vars.limit} and b == true and c != null and d contains false');
  });
});
