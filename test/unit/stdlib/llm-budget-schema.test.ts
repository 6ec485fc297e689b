// The pieces of svc:llm that need no provider: token reservations across a run's and the
// server's pools, and the local JSON Schema check with its JSON paths.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { estimateTokens, isShortfall, mapLimited, reserve, TokenPool } from '../../../src/stdlib/llm/budget';
import { parseOutput, readSchema, violation } from '../../../src/stdlib/llm/schema';

describe('token reservations', () => {
  test('a reservation takes from both pools or from neither, and names the pool that is short', () => {
    const pools = { run: new TokenPool(100), server: new TokenPool(150) };
    const a = reserve(pools, 80);
    assert.ok(!isShortfall(a));
    const b = reserve(pools, 30);
    assert.ok(isShortfall(b));
    assert.deepEqual(b, { scope: 'run', needed: 30, available: 20, limit: 100 });
    assert.deepEqual([pools.run.reserved, pools.server.reserved], [80, 80]);
    const other = { run: new TokenPool(1000), server: pools.server };
    assert.deepEqual(reserve(other, 71), { scope: 'server', needed: 71, available: 70, limit: 150 });
    assert.equal(other.run.reserved, 0);
  });
  test('settling replaces the reservation by the reported usage, or bills it fully when unknown; twice is once', () => {
    const pools = { run: new TokenPool(100), server: new TokenPool(100) };
    const a = reserve(pools, 50);
    const b = reserve(pools, 40);
    assert.ok(!isShortfall(a) && !isShortfall(b));
    assert.equal(a.settle(12), 12);
    assert.equal(a.settle(99), 0);
    assert.equal(b.settle(null), 40);
    assert.deepEqual([pools.run.spent, pools.run.reserved, pools.server.spent, pools.server.reserved], [52, 0, 52, 0]);
  });
  test('estimates are UTF-8 bytes ÷ 3, rounded up', () => {
    assert.deepEqual([estimateTokens(''), estimateTokens('abc'), estimateTokens('abcd'), estimateTokens('é')], [0, 1, 2, 1]);
  });
  test('mapLimited keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimited([5, 4, 3, 2, 1], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return n * 2;
    });
    assert.deepEqual(out, [10, 8, 6, 4, 2]);
    assert.equal(peak, 2);
  });
});

describe('local schema check', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      tags: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 1, maxItems: 2 },
      score: { type: 'number', minimum: 0, maximum: 1 },
      kind: { const: 'x' },
      'odd key': { type: 'integer' },
      either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      one: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 5 }] },
    },
    required: ['name'],
    additionalProperties: false,
  };
  const cases: Array<[unknown, string | null]> = [
    [{ name: 'n', tags: ['a'], score: 0.5, kind: 'x', 'odd key': 3, either: null, one: 6.5 }, null],
    [{}, 'at $.name: required property is missing'],
    [{ name: 1 }, 'at $.name: expected string, got number'],
    [{ name: 'n', tags: [] }, 'at $.tags: expected at least 1 items, got 0'],
    [{ name: 'n', tags: ['a', 'b', 'a'] }, 'at $.tags: expected at most 2 items, got 3'],
    [{ name: 'n', tags: ['c'] }, 'at $.tags[0]: expected one of ["a","b"]'],
    [{ name: 'n', score: 2 }, 'at $.score: expected at most 1'],
    [{ name: 'n', score: -1 }, 'at $.score: expected at least 0'],
    [{ name: 'n', kind: 'y' }, 'at $.kind: expected "x"'],
    [{ name: 'n', 'odd key': 1.5 }, 'at $["odd key"]: expected integer, got number'],
    [{ name: 'n', either: 3 }, 'at $.either: expected a value matching at least one anyOf alternative'],
    [{ name: 'n', one: 7 }, 'at $.one: expected a value matching exactly one oneOf alternative, 2 match'],
    [{ name: 'n', extra: 1 }, 'at $.extra: property is not allowed'],
    [[], 'at $: expected object, got array'],
  ];
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} → ${expected ?? 'conforms'}`, () => {
      assert.equal(violation(schema, value), expected);
    });
  }
  test('every keyword is checked locally, pattern on RE2', () => {
    assert.equal(violation({ type: 'string', pattern: '^a' }, 'b'), 'at $: must match pattern "^a"');
    assert.equal(violation({ type: 'string', format: 'email' }, 'b'), null, 'formats are not checked');
  });
  test('schemas as objects or JSON text; other values are TypeErrors', () => {
    assert.deepEqual(readSchema('{"type":"string"}', 'llm.call'), { type: 'string' });
    assert.throws(() => readSchema('{nope', 'llm.call'), { name: 'TypeError', message: 'llm.call: schema text is not JSON' });
    assert.throws(() => readSchema(42, 'llm.call'), TypeError);
    assert.throws(() => readSchema([], 'llm.call'), TypeError);
    assert.throws(() => readSchema(JSON.stringify({ description: 'x'.repeat(70_000) }), 'llm.call'), { name: 'TypeError', message: 'llm.call: the schema is larger than 65536 bytes' });
  });
  test('output text: JSON, or JSON in a json fence', () => {
    assert.deepEqual(parseOutput(' {"a":1} '), { ok: true, value: { a: 1 } });
    assert.deepEqual(parseOutput('```json\n[1,2]\n```'), { ok: true, value: [1, 2] });
    assert.deepEqual(parseOutput('Sure! {"a":1}'), { ok: false });
  });
});
