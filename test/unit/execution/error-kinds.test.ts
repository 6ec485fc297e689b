// The execute error kinds are one list (src/execution/result.ts): the README's sentence
// names exactly them, and the execute result schema accepts them and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { EXECUTE_ERROR_KINDS, ExecuteResult } from '../../../src/execution';

const README = new URL('../../../README.md', import.meta.url);

test('the README lists exactly the execute error kinds', () => {
  const text = fs.readFileSync(README, 'utf8').replace(/\s+/g, ' ');
  const start = text.indexOf('A failure is still a 200: `error.kind` is ');
  assert.ok(start >= 0, 'README has the sentence listing `error.kind`');
  const sentence = text.slice(start, text.indexOf('. ', start));
  const listed = [...sentence.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((word) => word !== 'diagnostics');
  assert.deepEqual([...listed].sort(), [...EXECUTE_ERROR_KINDS].sort());
});

test('the execute result schema takes every listed kind and refuses any other', () => {
  const result = (kind: string) => ({ execution_id: 'e', session_id: 's', result: null, console: [], error: { kind, message: 'm' } });
  for (const kind of EXECUTE_ERROR_KINDS) assert.equal(ExecuteResult.safeParse(result(kind)).success, true, kind);
  assert.ok(EXECUTE_ERROR_KINDS.includes('cancelled'));
  assert.equal(ExecuteResult.safeParse(result('crashed')).success, false);
});
