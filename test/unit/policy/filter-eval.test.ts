// Filter evaluation: typed comparisons, the missing-field
// rule, variables, glob, linear-time regex search and array `contains`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateFilter, globMatch, parseFilter } from '../../../src/policy';

const ctx = {
  amount: 500,
  ratio: 0.5,
  name: 'report.pdf',
  path: '/notes/a/b.txt',
  ok: true,
  off: false,
  tags: ['x', 'y', 3, true, null],
  nothing: null,
  items: [{ sku: 'A1' }, { sku: 'B2' }],
  nested: { deep: { level: 3 } },
  obj: { '0': 'zero' },
};
const check = (filter: string, vars: Record<string, string> = {}, context: object = ctx) => evaluateFilter(parseFilter(filter), context, vars);

describe('comparisons', () => {
  test('ordering operators need a number field and a numeric operand', () => {
    assert.equal(check('amount < 1000'), true);
    assert.equal(check('amount < 500'), false);
    assert.equal(check('amount <= 500'), true);
    assert.equal(check('amount > 499.5'), true);
    assert.equal(check('amount > 500'), false);
    assert.equal(check('amount >= 500.0'), true);
    assert.equal(check('ratio >= 5e-1'), true);
    assert.equal(check('name < 5'), false, 'a string field is never ordered');
    assert.equal(check('ok > 0'), false, 'nor a boolean');
  });

  test('== and != on numbers, strings, booleans and null', () => {
    assert.equal(check('amount == 500.0'), true);
    assert.equal(check('amount != 500'), false);
    assert.equal(check('amount != 501'), true);
    assert.equal(check('name == "report.pdf"'), true);
    assert.equal(check('name == "Report.pdf"'), false, 'case-sensitive');
    assert.equal(check('name != "other"'), true);
    assert.equal(check('ok == true'), true);
    assert.equal(check('off != true'), true);
    assert.equal(check('nothing == null'), true);
    assert.equal(check('nothing != null'), false);
    assert.equal(check('name == null'), false);
    assert.equal(check('name != null'), true, 'a present non-null field is != null');
  });

  test('type mismatches are false for == and != alike', () => {
    for (const filter of ['name == 5', 'name != 5', 'amount == "500"', 'amount != "500"', 'ok == "true"', 'ok != 1', 'tags == "x"', 'tags != "x"', 'items == 1', 'nothing == 0', 'nothing != 0']) {
      assert.equal(check(filter), false, filter);
    }
  });

  test('strings compare by exact code points, with no normalisation', () => {
    assert.equal(check('name == "e\u0301"', {}, { name: '\u00e9' }), false);
    assert.equal(check('name == "\u00e9"', {}, { name: '\u00e9' }), true);
  });

  test('paths walk objects and arrays; a canonical integer segment indexes an array, otherwise it is a key', () => {
    assert.equal(check('items.1.sku == "B2"'), true);
    assert.equal(check('nested.deep.level >= 3'), true);
    assert.equal(check('obj.0 == "zero"'), true);
    assert.equal(check('items.01.sku == "B2"'), false, '01 is not an index');
    assert.equal(check('items.length == 2'), false, 'arrays have no named keys');
    assert.equal(check('name.length == 10'), false, 'strings are not containers');
  });
});

describe('missing fields', () => {
  test('a comparison on a missing field is false for every operator, != and contains included', () => {
    const operators = ['< 1', '<= 1', '> 1', '>= 1', '== "x"', '!= "x"', '== null', '!= null', 'glob "*"', 'matches ""', 'contains "x"'];
    for (const path of ['missing', 'items.5.sku', 'nested.deep.level.more', 'name.x', 'constructor', 'toString']) {
      for (const op of operators) assert.equal(check(`${path} ${op}`), false, `${path} ${op}`);
    }
  });

  test('not turns a missing comparison true, unlike !=', () => {
    assert.equal(check('not (owner == "ops")'), true);
    assert.equal(check('owner != "ops"'), false);
    assert.equal(check('not missing glob "*"'), true);
  });

  test('and and or short-circuit over missing fields', () => {
    assert.equal(check('missing == 1 or amount == 500'), true);
    assert.equal(check('amount == 500 and missing == 1'), false);
  });
});

describe('variables', () => {
  test('bare variables convert by the field type', () => {
    assert.equal(check('amount <= ${vars.limit}', { limit: '1000' }), true);
    assert.equal(check('amount <= ${vars.limit}', { limit: '1e2' }), false);
    assert.equal(check('amount == ${vars.limit}', { limit: '500.0' }), true);
    assert.equal(check('amount == ${vars.limit}', { limit: 'abc' }), false);
    assert.equal(check('amount != ${vars.limit}', { limit: 'abc' }), false, 'undecidable is false for != too');
    assert.equal(check('amount < ${vars.limit}', { limit: ' 1000' }), false, 'only the number grammar counts');
    assert.equal(check('ok == ${vars.flag}', { flag: 'true' }), true);
    assert.equal(check('ok != ${vars.flag}', { flag: 'false' }), true);
    assert.equal(check('ok == ${vars.flag}', { flag: 'TRUE' }), false);
    assert.equal(check('ok != ${vars.flag}', { flag: 'yes' }), false);
    assert.equal(check('name == ${vars.n}', { n: 'report.pdf' }), true);
    assert.equal(check('nothing == ${vars.n}', { n: 'null' }), false, 'a null field never equals a variable');
  });

  test('an unbound variable makes its comparison false, bare or interpolated', () => {
    for (const filter of ['amount <= ${vars.limit}', 'amount != ${vars.limit}', 'name == "${vars.base}.pdf"', 'name != "${vars.base}.pdf"', 'path glob "/notes/${vars.team}/*"', 'tags contains ${vars.t}']) {
      assert.equal(check(filter, {}), false, filter);
    }
    assert.equal(check('not (name == "${vars.base}.pdf")', {}), true);
  });

  test('names of Object.prototype members are unbound unless bound', () => {
    assert.equal(check('name != ${vars.constructor}', {}), false);
    assert.equal(check('name == "${vars.toString}"', {}), false);
    assert.equal(check('name == ${vars.constructor}', { constructor: 'report.pdf' }), true);
  });

  test('interpolated strings render values verbatim, once', () => {
    assert.equal(check('name == "${vars.base}.pdf"', { base: 'report' }), true);
    assert.equal(check('name != "${vars.base}.pdf"', { base: 'other' }), true);
    assert.equal(check('name == "${vars.a}"', { a: '${vars.b}', b: 'report.pdf' }), false, 'values are not re-parsed');
    assert.equal(check('name == "${vars.a}"', { a: '${vars.b}' }, { name: '${vars.b}' }), true);
  });
});

describe('glob', () => {
  test('* crosses /, ? is one code point, whole-string match, case-sensitive', () => {
    assert.equal(globMatch('/notes/*', '/notes/a/b.txt'), true);
    assert.equal(globMatch('/notes/*', '/notes/'), true);
    assert.equal(globMatch('/notes/*', '/Notes/a'), false);
    assert.equal(globMatch('/notes/?', '/notes/é'), true);
    assert.equal(globMatch('/notes/?', '/notes/😀'), true);
    assert.equal(globMatch('/notes/?', '/notes/ab'), false);
    assert.equal(globMatch('/notes/?', '/notes/'), false);
    assert.equal(globMatch('*.pdf', 'x.pdf.exe'), false);
    assert.equal(globMatch('notes', '/notes/x'), false);
    assert.equal(globMatch('*a*b*c*', 'xxaxxbxxcxx'), true);
    assert.equal(globMatch('*a*b*c*', 'xxaxxcxxbxx'), false);
    assert.equal(globMatch('', ''), true);
    assert.equal(globMatch('*', ''), true);
  });

  test('escapes are literal, a trailing lone backslash is a backslash, [ is plain', () => {
    assert.equal(globMatch('a\\*b', 'a*b'), true);
    assert.equal(globMatch('a\\*b', 'axb'), false);
    assert.equal(globMatch('a\\?', 'a?'), true);
    assert.equal(globMatch('a\\?', 'ab'), false);
    assert.equal(globMatch('a\\\\b', 'a\\b'), true);
    assert.equal(globMatch('a\\b', 'ab'), true, '\\x matches x');
    assert.equal(globMatch('a\\', 'a\\'), true);
    assert.equal(globMatch('[ab]', '[ab]'), true);
    assert.equal(globMatch('[ab]', 'a'), false);
  });

  test('glob needs a string field; variable values inside the pattern match literally', () => {
    assert.equal(check('amount glob "*"'), false);
    assert.equal(check('tags glob "*"'), false);
    assert.equal(check('path glob "/notes/${vars.team}/*"', { team: 'a' }), true);
    assert.equal(check('path glob "/notes/${vars.team}/*"', { team: '*' }), false);
    assert.equal(check('path glob "/notes/${vars.team}/*"', { team: '?' }), false);
    assert.equal(check('path glob "/notes/${vars.team}/*"', { team: '\\a' }), false);
    assert.equal(check('path glob "${vars.p}"', { p: 'a*' }, { path: 'a*' }), true);
    assert.equal(check('path glob "${vars.p}"', { p: 'a*' }, { path: 'ab' }), false);
  });

  test('a long adversarial glob answers false (its time is measured by bench/latencies.ts)', () => {
    assert.equal(globMatch(`${'*a'.repeat(200)}b`, 'a'.repeat(20_000)), false);
  });
});

describe('matches and contains', () => {
  test('matches is an unanchored search on a string field', () => {
    assert.equal(check('name matches "port"'), true);
    assert.equal(check('name matches "^port"'), false);
    assert.equal(check('name matches "^report\\.pdf$"'), true);
    assert.equal(check('name matches "\\d"'), false);
    assert.equal(check('amount matches "5"'), false, 'numbers are not searched');
    assert.equal(check('tags matches "x"'), false);
  });

  test('a catastrophic-backtracking pattern on a long input finishes (RE2, linear time)', () => {
    // A backtracking engine would not finish this in any useful time (the file's timeout
    // fails it); no wall-clock bound here, so a busy machine cannot fail it.
    const filter = parseFilter('name matches "^(a+)+$" or name matches "(a|a)*c" or name matches "^(.*a){20}$"');
    assert.equal(evaluateFilter(filter, { name: `${'a'.repeat(100_000)}b` }, {}), false);
  });

  test('contains tests array elements with == semantics and never searches strings', () => {
    assert.equal(check('tags contains "x"'), true);
    assert.equal(check('tags contains "z"'), false);
    assert.equal(check('tags contains 3'), true);
    assert.equal(check('tags contains 3.0'), true);
    assert.equal(check('tags contains true'), true);
    assert.equal(check('tags contains false'), false);
    assert.equal(check('tags contains "3"'), false, 'no cross-type equality');
    assert.equal(check('tags contains ${vars.v}', { v: '3' }), true, 'a variable converts per element');
    assert.equal(check('tags contains ${vars.v}', { v: 'true' }), true);
    assert.equal(check('tags contains "${vars.v}"', { v: 'y' }), true);
    assert.equal(check('name contains "rep"'), false);
    assert.equal(check('nested contains 3'), false);
  });
});
