// The server's one JSON-Schema validator: bounded schemas, RE2 patterns, compiled once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkJsonValues, compileSchema, MAX_SCHEMA_BYTES, SchemaError, violation } from '../../../src/json-schema';

test('pattern runs on RE2: a catastrophic-backtracking pattern answers at once', () => {
  // With a backtracking engine this subject takes longer than the test run; RE2 is linear.
  assert.equal(violation({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(100_000)}b`), 'at $: must match pattern "^(a+)+$"');
  assert.equal(violation({ type: 'string', pattern: '^(a+)+$' }, 'aaa'), null);
});

test('a schema larger than the bound, or one ajv cannot compile, is a SchemaError', () => {
  assert.throws(() => compileSchema({ description: 'x'.repeat(MAX_SCHEMA_BYTES) }), SchemaError);
  assert.throws(() => compileSchema({ $ref: 'https://schemas.example/remote.json' }), /not usable/);
  assert.throws(() => compileSchema({ type: 'string', pattern: '(?<=a)b' }), SchemaError);
});

test('a schema seen again is the same compiled validator; another draft named in $schema still validates', () => {
  assert.equal(compileSchema({ type: 'integer' }), compileSchema({ type: 'integer' }));
  assert.equal(violation({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }, 1), 'at $: expected string, got number');
  assert.equal(violation(false, 1), 'at $: no value is allowed here');
  assert.equal(violation(true, 1), null);
});

test('the host task answers each value\'s first violation, or why the schema is unusable', () => {
  assert.deepEqual(checkJsonValues({ schema: { type: 'integer', minimum: 1 }, values: [1, 0, 'x'] }), { problems: [null, 'at $: expected at least 1', 'at $: expected integer, got string'] });
  assert.match((checkJsonValues({ schema: { $ref: '#/nowhere' }, values: [] }) as { schemaError: string }).schemaError, /^the schema is not usable: /);
});

test('the compiled-validator cache is bounded: a schema pushed out by 100 others compiles again and still checks its own values', () => {
  const first = compileSchema({ type: 'integer', minimum: 0 });
  for (let i = 1; i <= 100; i++) compileSchema({ type: 'integer', minimum: i });
  assert.notEqual(compileSchema({ type: 'integer', minimum: 0 }), first);
  assert.equal(violation({ type: 'integer', minimum: 0 }, -1), 'at $: expected at least 0');
  assert.equal(violation({ type: 'integer', minimum: 100 }, 99), 'at $: expected at least 100');
});
