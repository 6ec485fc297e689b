// Property-based tests (fast-check) of the filter language: canonical printing round
// trips on random trees, evaluator invariants, glob against a reference matcher, and a
// parser that only ever answers with a tree or a FilterError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evaluateFilter, FilterError, globMatch, parseFilter, printFilter, type Filter, type Operand, type Segment } from '../../../src/policy';

const KEYWORDS = new Set(['and', 'or', 'not', 'glob', 'matches', 'contains', 'true', 'false', 'null']);
const segment = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/).filter((s) => !KEYWORDS.has(s));
const path = fc.array(fc.oneof(segment, fc.nat({ max: 12 }).map(String)), { minLength: 1, maxLength: 3 }).filter((p) => /^[A-Za-z_]/.test(p[0]));
const varName = fc.stringMatching(/^[A-Za-z0-9_-]{1,6}$/);
const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '"', '\\', '\n', '\t', '\r', '$', '{', '}', '*', '?', 'é', '😀', '.'), maxLength: 8 }).filter((s) => !s.includes('${vars.'));
const number = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));

/** Interpolated segments as the lexer produces them: text never empty, never two texts in a row, at least one var. */
const interpolated = fc
  .array(fc.tuple(text, varName), { minLength: 1, maxLength: 3 })
  .chain((pairs) => text.map((tail) => ({ pairs, tail })))
  .map(({ pairs, tail }): Operand => {
    const segments: Segment[] = [];
    for (const [literal, name] of pairs) {
      if (literal) segments.push({ kind: 'text', text: literal });
      segments.push({ kind: 'var', name });
    }
    if (tail) segments.push({ kind: 'text', text: tail });
    return { kind: 'interpolated', segments };
  })
  // `$` just before `${vars.` would re-lex identically; a text ending in `${vars` cannot exist here.
  .filter((o) => o.kind === 'interpolated');

const stringOperand = text.map((value): Operand => ({ kind: 'string', value }));
const numberOperand = number.map((value): Operand => ({ kind: 'number', value }));
const variable = varName.map((name): Operand => ({ kind: 'variable', name }));
const scalar = fc.oneof(stringOperand, numberOperand, fc.boolean().map((value): Operand => ({ kind: 'boolean', value })), variable, interpolated);

const comparison: fc.Arbitrary<Filter> = fc.oneof(
  fc.tuple(path, fc.constantFrom('<', '<=', '>', '>=' as const), fc.oneof(numberOperand, variable)).map(([p, op, operand]): Filter => ({ kind: 'compare', path: p, op, operand })),
  fc.tuple(path, fc.constantFrom('==', '!=' as const), fc.oneof(scalar, fc.constant<Operand>({ kind: 'null' }))).map(([p, op, operand]): Filter => ({ kind: 'compare', path: p, op, operand })),
  fc.tuple(path, fc.oneof(stringOperand, interpolated)).map(([p, operand]): Filter => ({ kind: 'compare', path: p, op: 'glob', operand })),
  fc.tuple(path, fc.constantFrom('a+', '^x$', '[0-9]{2}', 'foo|bar', '\\d', '')).map(([p, value]): Filter => ({ kind: 'compare', path: p, op: 'matches', operand: { kind: 'string', value } })),
  fc.tuple(path, scalar).map(([p, operand]): Filter => ({ kind: 'compare', path: p, op: 'contains', operand })),
);

const tree: fc.Arbitrary<Filter> = fc.letrec<{ filter: Filter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    tie('filter').map((operand): Filter => ({ kind: 'not', operand })),
    fc.tuple(fc.constantFrom('and', 'or' as const), tie('filter'), tie('filter')).map(([kind, left, right]): Filter => ({ kind, left, right })),
  ),
})).filter;

/** The tree without the compiled regex objects, for structural comparison. */
function shape(filter: Filter): unknown {
  return JSON.parse(JSON.stringify(filter, (key, value) => (key === 'regex' ? undefined : value)));
}

test('property: print then parse gives back the same tree, and printing is a fixed point', () => {
  fc.assert(
    fc.property(tree, (filter) => {
      const printed = printFilter(filter);
      const reparsed = parseFilter(printed);
      assert.deepEqual(shape(reparsed), shape(filter));
      assert.equal(printFilter(reparsed), printed);
    }),
    { numRuns: 500 },
  );
});

const fieldValue = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('', 'a', 'x', 'foo'), fc.boolean(), fc.constant(null), fc.array(fc.oneof(fc.integer({ min: -2, max: 2 }), fc.constantFrom('a', 'x')), { maxLength: 3 }));
const context = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'x'), fieldValue, { maxKeys: 4 });
const vars = fc.dictionary(fc.constantFrom('v', 'w'), fc.constantFrom('1', '-2', 'a', 'x', 'true', 'false', ''), { maxKeys: 2 });
const smallComparison: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', 'b', 'c', 'missing'), fc.constantFrom('==', '!=', '<', '>=', 'contains'), fc.constantFrom('1', '-2', '"a"', '"x"', 'true', '${vars.v}', '"${vars.w}"'))
  .filter(([, op, operand]) => !((op === '<' || op === '>=') && !/^-?\d|^\$\{/.test(operand)))
  .map(([field, op, operand]) => `${field} ${op} ${operand}`);
const expression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small' },
    smallComparison,
    tie('e').map((e) => `not (${e})`),
    fc.tuple(tie('e'), fc.constantFrom('and', 'or'), tie('e')).map(([l, c, r]) => `(${l}) ${c} (${r})`),
  ),
})).e;
const evaluate = (source: string, ctx: Record<string, unknown>, v: Record<string, string>) => evaluateFilter(parseFilter(source), ctx, v);

test('property: not negates, and/or commute, De Morgan holds, canonical printing keeps the meaning', () => {
  fc.assert(
    fc.property(expression, expression, context, vars, (x, y, ctx, v) => {
      const a = evaluate(x, ctx, v);
      const b = evaluate(y, ctx, v);
      assert.equal(evaluate(`not (${x})`, ctx, v), !a);
      assert.equal(evaluate(`(${x}) and (${y})`, ctx, v), evaluate(`(${y}) and (${x})`, ctx, v));
      assert.equal(evaluate(`(${x}) or (${y})`, ctx, v), evaluate(`(${y}) or (${x})`, ctx, v));
      assert.equal(evaluate(`(${x}) and (${y})`, ctx, v), a && b);
      assert.equal(evaluate(`not ((${x}) or (${y}))`, ctx, v), evaluate(`not (${x}) and not (${y})`, ctx, v));
      assert.equal(evaluate(printFilter(parseFilter(x)), ctx, v), a);
    }),
    { numRuns: 400 },
  );
});

test('property: with the field present and types matching, exactly one of == and != holds', () => {
  const pairs = fc.oneof(
    fc.tuple(number, number).map(([f, o]) => ({ field: f as unknown, operand: JSON.stringify(o) === 'null' ? '0' : printFilter({ kind: 'compare', path: ['x'], op: '==', operand: { kind: 'number', value: o } }).slice(5) })),
    fc.tuple(text, text).map(([f, o]) => ({ field: f as unknown, operand: printFilter({ kind: 'compare', path: ['x'], op: '==', operand: { kind: 'string', value: o } }).slice(5) })),
    fc.tuple(fc.boolean(), fc.boolean()).map(([f, o]) => ({ field: f as unknown, operand: String(o) })),
  );
  fc.assert(
    fc.property(pairs, ({ field, operand }) => {
      const equal = evaluate(`x == ${operand}`, { x: field }, {});
      const different = evaluate(`x != ${operand}`, { x: field }, {});
      assert.notEqual(equal, different);
      assert.equal(evaluate(`x == ${operand}`, {}, {}), false);
      assert.equal(evaluate(`x != ${operand}`, {}, {}), false);
    }),
    { numRuns: 300 },
  );
});

/** Reference glob: a regex built character by character (fine for short inputs). */
function referenceGlob(pattern: string, subject: string): boolean {
  const chars = Array.from(pattern);
  let source = '';
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else if (c === '\\') source += (i + 1 < chars.length ? chars[++i] : '\\').replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
    else source += c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u').test(subject);
}

test('property: glob agrees with a reference regex translation', () => {
  const patternText = fc.string({ unit: fc.constantFrom('a', 'b', '/', '*', '?', '\\', '[', 'é', '😀'), maxLength: 8 });
  const subject = fc.string({ unit: fc.constantFrom('a', 'b', '/', '*', '?', '\\', '[', 'é', '😀'), maxLength: 10 });
  fc.assert(
    fc.property(patternText, subject, (p, s) => {
      assert.equal(globMatch(p, s), referenceGlob(p, s), `${JSON.stringify(p)} vs ${JSON.stringify(s)}`);
    }),
    { numRuns: 2000 },
  );
});

test('property: any input either parses or throws a FilterError with a caret line', () => {
  const unit = fc.constantFrom('a', 'b', '.', ' ', '(', ')', '=', '!', '<', '>', '"', '\\', '$', '{', '}', '-', '1', 'e', 'and ', 'or ', 'not ', 'glob ', 'matches ', 'contains ', 'vars.', 'null', '😀', '\n');
  fc.assert(
    fc.property(fc.string({ unit, maxLength: 24 }), (source) => {
      try {
        const filter = parseFilter(source);
        assert.equal(typeof printFilter(filter), 'string');
      } catch (error) {
        assert.ok(error instanceof FilterError, `${JSON.stringify(source)} threw ${String(error)}`);
        const lines = error.message.split('\n');
        assert.equal(lines.length, 3);
        assert.match(lines[2], /^ *\^+$/);
      }
    }),
    { numRuns: 3000 },
  );
});
