// The Blueprint's `typecheck` key: strict, on (the default) or off; `on` written out keeps
// the hash of a Blueprint without the key; anything else is a parse_error naming the values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint } from '../../../src/blueprints';

const parse = (yaml: string) => {
  const parsed = parseBlueprint(yaml);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.problem.message);
  return parsed.blueprint;
};

test('typecheck defaults to on, and on written out has the same hash', () => {
  const plain = parse('name: a\n');
  assert.equal(plain.typecheck, 'on');
  assert.equal(parse('name: a\ntypecheck: on\n').hash, plain.hash);
});

test('strict and off are kept and change the hash', () => {
  const plain = parse('name: a\n');
  const strict = parse('name: a\ntypecheck: strict\n');
  const off = parse('name: a\ntypecheck: off\n');
  assert.equal(strict.typecheck, 'strict');
  assert.equal(off.typecheck, 'off');
  assert.equal(new Set([plain.hash, strict.hash, off.hash]).size, 3);
});

test('another value is a parse_error naming the key and the accepted values', () => {
  for (const [yaml, shown] of [['name: a\ntypecheck: sometimes\n', 'sometimes'], ['name: a\ntypecheck: true\n', 'true']]) {
    const parsed = parseBlueprint(yaml);
    assert.ok(!parsed.ok);
    assert.equal(parsed.problem.code, 'parse_error');
    assert.equal(parsed.problem.message, `blueprint parse error: typecheck: unknown value '${shown}': expected \`strict\`, \`on\` (the default) or \`off\``);
    assert.deepEqual(parsed.problem.diagnostic?.path, ['typecheck']);
  }
  const list = parseBlueprint('name: a\ntypecheck: [on]\n');
  assert.ok(!list.ok);
  assert.match(list.problem.message, /typecheck: expected a string/);
});
