// The filter language: operators, missing fields, variables, glob, regex, limits, errors
// with carets, canonical printing, and print→parse round trips (fast-check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evaluateFilter, FilterError, globMatch, parseFilter, printFilter } from '../../../src/policy';

const ctx = { amount: 500, name: 'report.pdf', path: '/notes/a/b.txt', ok: true, tags: ['x', 'y', 3], nothing: null, items: [{ sku: 'A1' }] };
const check = (filter: string, vars: Record<string, string> = {}, context: object = ctx) => evaluateFilter(parseFilter(filter), context, vars);

test('ordering, equality and inequality on numbers, strings, booleans and null', () => {
  assert.equal(check('amount < 1000'), true);
  assert.equal(check('amount <= 500'), true);
  assert.equal(check('amount > 500'), false);
  assert.equal(check('amount >= 500.0'), true);
  assert.equal(check('amount == 500'), true);
  assert.equal(check('amount != 500'), false);
  assert.equal(check('name == "report.pdf"'), true);
  assert.equal(check('name != "other"'), true);
  assert.equal(check('ok == true'), true);
  assert.equal(check('nothing == null'), true);
  assert.equal(check('name != null'), true);
  assert.equal(check('name == 5'), false, 'type mismatch is false');
  assert.equal(check('name != 5'), false, 'type mismatch is false for != too');
  assert.equal(check('items.0.sku == "A1"'), true);
});

test('a missing field is false for every operator, and true under not', () => {
  for (const op of ['< 1', '== "x"', '!= "x"', 'glob "*"', 'matches "."', 'contains "x"']) assert.equal(check(`missing ${op}`), false, op);
  assert.equal(check('not (missing == "x")'), true);
  assert.equal(check('items.5.sku == "A1"'), false);
});

test('variables: bare and interpolated, unbound is false, converted by the field type', () => {
  assert.equal(check('amount <= ${vars.limit}', { limit: '1000' }), true);
  assert.equal(check('amount <= ${vars.limit}', {}), false);
  assert.equal(check('amount == ${vars.limit}', { limit: 'abc' }), false);
  assert.equal(check('ok == ${vars.flag}', { flag: 'true' }), true);
  assert.equal(check('path glob "/notes/${vars.team}/*"', { team: 'a' }), true);
  assert.equal(check('path glob "/notes/${vars.team}/*"', { team: '*' }), false, 'variable values match literally');
  assert.equal(check('name == "${vars.base}.pdf"', { base: 'report' }), true);
  assert.equal(check('tags contains ${vars.tag}', { tag: 'y' }), true);
});

test('glob: * crosses /, ? is one code point, escapes are literal, whole-string match', () => {
  assert.equal(globMatch('/notes/*', '/notes/a/b.txt'), true);
  assert.equal(globMatch('/notes/?', '/notes/é'), true);
  assert.equal(globMatch('/notes/?', '/notes/ab'), false);
  assert.equal(globMatch('a\\*b', 'a*b'), true);
  assert.equal(globMatch('a\\*b', 'axb'), false);
  assert.equal(globMatch('[ab]', '[ab]'), true);
  assert.equal(globMatch('*.pdf', 'x.pdf.exe'), false);
  assert.equal(globMatch('a\\', 'a\\'), true);
});

test('matches is an unanchored linear-time search; contains searches arrays only', () => {
  assert.equal(check('name matches "port"'), true);
  assert.equal(check('name matches "^port"'), false);
  const started = Date.now();
  assert.equal(evaluateFilter(parseFilter('name matches "^(a+)+$"'), { name: 'a'.repeat(50_000) + 'b' }, {}), false);
  assert.ok(Date.now() - started < 2_000);
  assert.equal(check('tags contains "x"'), true);
  assert.equal(check('tags contains 3'), true);
  assert.equal(check('name contains "rep"'), false);
});

test('precedence: not > and > or', () => {
  assert.equal(check('amount == 1 or amount == 500 and ok == true'), true);
  assert.equal(check('not amount == 1 and ok == false'), false);
  assert.equal(printFilter(parseFilter('a == 1 or b == 2 and c == 3')), 'a == 1 or b == 2 and c == 3');
});

test('errors name the problem and point at it with a caret', () => {
  const cases: Array<[string, RegExp]> = [
    ['a = 1', /single `=`/],
    ['!a', /write `not`/],
    ['a == "x', /unterminated string/],
    ['a == 1e', /not a valid number/],
    ['a..b == 1', /empty segment/],
    ['a < "x"', /numeric operand/],
    ['a glob 5', /wildcard pattern/],
    ['a matches "(a"', /invalid regex/],
    ['a matches "${vars.x}"', /literal regex/],
    ['(a == 1', /expected `\)`/],
    ['a == 1 b', /trailing input/],
    ['a', /comparison operator/],
    ['a == $x', /variable reference/],
    ['a == ${env.X}', /only `\$\{vars.NAME\}`/],
    ['a matches "(x)\\\\1"', /invalid regex/],
  ];
  for (const [source, pattern] of cases) {
    assert.throws(() => parseFilter(source), (error: unknown) => error instanceof FilterError && pattern.test(error.message) && /\^/.test(error.message), source);
  }
});

test('limits: 128 operators and 64 KiB', () => {
  const many = Array.from({ length: 130 }, (_, i) => `a == ${i}`).join(' or ');
  assert.throws(() => parseFilter(many), /128 operators/);
  assert.throws(() => parseFilter(`a == "${'x'.repeat(70_000)}"`), /65536 bytes/);
});

test('canonical printing follows the reference examples', () => {
  const examples: Array<[string, string]> = [
    ['amount<=5000.0 and customerClass=="premium"', 'amount <= 5000 and customerClass == "premium"'],
    ['path glob "/w/*" and not (path glob "*.exe")', 'path glob "/w/*" and not path glob "*.exe"'],
    ['(a == 1 or b == 2) and c == 3', '(a == 1 or b == 2) and c == 3'],
    ['a == 1 or (b == 2 and c == 3)', 'a == 1 or b == 2 and c == 3'],
    ['a and (b and c)'.replace(/([abc])(?= |\)|$)/g, '$1 == 1'), 'a == 1 and (b == 1 and c == 1)'],
    ['x == 1e3', 'x == 1000'],
    ['x == 1e-7', 'x == 0.0000001'],
    ['x == -0', 'x == 0'],
    ['s == "a\\"b\\n"', 's == "a\\"b\\n"'],
    ['not (a == 1 and b == 2)', 'not (a == 1 and b == 2)'],
  ];
  for (const [written, canonical] of examples) assert.equal(printFilter(parseFilter(written)), canonical, written);
});

const field = fc.constantFrom('a', 'b', 'c.d', 'items.0');
const operand = fc.oneof(
  fc.integer({ min: -1e6, max: 1e6 }).map(String),
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s).replace(/\$\{/g, '$ {')),
  fc.constantFrom('true', 'false', 'null', '${vars.v}'),
);
const comparison = fc.tuple(field, fc.constantFrom('==', '!='), operand).map(([f, op, v]) => `${f} ${op} ${v}`);
const expression: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof({ depthSize: 'small' }, comparison, fc.tuple(tie('expr'), fc.constantFrom('and', 'or'), tie('expr')).map(([l, c, r]) => `(${l}) ${c} (${r})`), tie('expr').map((e) => `not (${e})`)),
})).expr as fc.Arbitrary<string>;

test('property: printing is a fixed point of parse∘print', () => {
  fc.assert(
    fc.property(expression, (source) => {
      const once = printFilter(parseFilter(source));
      assert.equal(printFilter(parseFilter(once)), once);
    }),
    { numRuns: 300 },
  );
});

test('property: evaluation is preserved by canonical printing, and not negates', () => {
  const contexts = fc.record({ a: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.string({ maxLength: 2 }), fc.boolean(), fc.constant(null)), b: fc.integer({ min: -3, max: 3 }) });
  fc.assert(
    fc.property(expression, contexts, fc.option(fc.string({ maxLength: 2 }), { nil: undefined }), (source, context, v) => {
      const vars: Record<string, string> = v === undefined ? {} : { v };
      const parsed = parseFilter(source);
      const reprinted = parseFilter(printFilter(parsed));
      assert.equal(evaluateFilter(parsed, context, vars), evaluateFilter(reprinted, context, vars));
      assert.equal(evaluateFilter(parseFilter(`not (${source})`), context, vars), !evaluateFilter(parsed, context, vars));
    }),
    { numRuns: 300 },
  );
});
