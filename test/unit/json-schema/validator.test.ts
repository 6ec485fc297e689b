// The server's one JSON-Schema validator: bounded schemas, RE2 patterns, compiled once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CACHED_VALIDATOR_BYTES, checkJsonValues, compileSchema, MAX_SCHEMA_BYTES, SchemaError, validatorCacheUse, violation } from '../../../src/json-schema';

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

test('two schemas with the same $id each check their own values (an $id is not registered validator-wide)', () => {
  assert.equal(violation({ $id: 'https://schemas.example/shared', type: 'string' }, 1), 'at $: expected string, got number');
  assert.equal(violation({ $id: 'https://schemas.example/shared', type: 'number' }, 1), null);
  assert.equal(violation({ $id: 'https://schemas.example/shared', type: 'number' }, 'x'), 'at $: expected number, got string');
});

test('the validator cache is bounded by bytes, and ajv forgets what leaves it: 400 distinct schemas (some refused) leave only the cached ones registered', () => {
  // ajv registers its own meta-schemas besides the ones it compiled for us.
  const before = validatorCacheUse();
  const own = before.registered - before.entries;
  for (let i = 0; i < 400; i++) {
    compileSchema({ type: 'object', properties: { [`p${i}`]: { type: 'string', description: 'x'.repeat(i % 7 === 0 ? 60_000 : 10) } } });
    if (i % 10 === 0) assert.throws(() => compileSchema({ $ref: `#/nowhere/${i}` }), SchemaError);
  }
  const use = validatorCacheUse();
  assert.ok(use.bytes <= CACHED_VALIDATOR_BYTES, `${use.bytes} bytes kept`);
  assert.ok(use.entries <= 64, `${use.entries} entries kept`);
  assert.equal(use.registered - own, use.entries, `ajv still registers ${use.registered - own} schemas for ${use.entries} cached validators`);
  // A large schema (about 120 KB counted, against a 4 MiB budget) among small ones: the byte bound, not the count, decides.
  const large = (n: number) => ({ type: 'object', properties: { [`big${n}`]: { type: 'string', description: 'y'.repeat(60_000) } } });
  const first = compileSchema(large(0));
  for (let n = 1; n <= 80; n++) compileSchema(large(n));
  assert.ok(validatorCacheUse().entries < 64, 'large schemas fill the byte budget before the count');
  assert.notEqual(compileSchema(large(0)), first, 'the oldest large schema was pushed out by bytes');
  assert.equal(violation(large(0), { big0: 1 }), 'at $.big0: expected string, got number');
});
