// `approval_timeout` (turn 4): how long an ask-human approval waits; default 24 h, at most
// 30 days, `d` accepted; the default keeps the Blueprint hash. And ask-human is supported:
// lint no longer warns about it, and the execute prompt tells agents a call may wait for a person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint, type Blueprint } from '../../../src/blueprints';
import { policyWarnings } from '../../../src/cli/lint';
import { executePrompt } from '../../../src/discovery/prompt';

function parsed(yaml: string): Blueprint {
  const result = parseBlueprint(yaml);
  if (!result.ok) assert.fail(JSON.stringify(result.problem));
  return result.blueprint;
}

test('approval_timeout: default 24h, units s/m/h/d, the default keeps the hash', () => {
  assert.equal(parsed('name: a\n').approvalTimeoutSecs, 86_400);
  assert.equal(parsed('name: a\napproval_timeout: 90s\n').approvalTimeoutSecs, 90);
  assert.equal(parsed('name: a\napproval_timeout: 2d\n').approvalTimeoutSecs, 172_800);
  assert.equal(parsed('name: a\napproval_timeout: 30d\n').approvalTimeoutSecs, 30 * 86_400);
  assert.equal(parsed('name: a\napproval_timeout: 24h\n').hash, parsed('name: a\n').hash);
  assert.notEqual(parsed('name: a\napproval_timeout: 1h\n').hash, parsed('name: a\n').hash);
});

test('approval_timeout: over 30d, no unit, zero or an unknown unit are refused naming the key', () => {
  for (const [value, message] of [
    ['31d', /approval_timeout: duration '31d' is over the most allowed, 30d/],
    ['10', /approval_timeout: duration '10' needs a unit \(s, m, h, or d\)/],
    ['0s', /approval_timeout: duration '0s' must be at least 1s/],
    ['3w', /approval_timeout: unknown duration unit 'w'/],
  ] as const) {
    const result = parseBlueprint(`name: a\napproval_timeout: ${value}\n`);
    assert.equal(result.ok, false, value);
    if (!result.ok) {
      assert.equal(result.problem.code, 'parse_error');
      assert.match(result.problem.message, message);
    }
  }
  // idle_timeout keeps its own units.
  const idle = parseBlueprint('name: a\nidle_timeout: 2d\n');
  assert.equal(idle.ok, false);
  if (!idle.ok) assert.match(idle.problem.message, /idle_timeout: unknown duration unit 'd' in '2d' \(use s, m, or h\)/);
});

const ASKING = 'name: pay\ndefault: ask-human\npermissions:\n  main:\n    - capability: http.get\n      action: allow\n    - capability: http.post\n      action: ask-human\n';

test('lint: ask-human (as a rule or the default) draws no warning', () => {
  assert.deepEqual(policyWarnings(parsed(ASKING)), []);
});

test('the execute prompt says a call may wait for a person and may be denied with source human; a Blueprint without ask-human does not', () => {
  const tools = { search: 'search', docs: 'docs', builtinsDocs: 'builtins', lastRun: 'last_run' } as Parameters<typeof executePrompt>[1];
  const prompt = executePrompt(parsed(ASKING), tools);
  assert.match(prompt, /Some calls need a person's approval/);
  assert.match(prompt, /source: "human"/);
  assert.match(prompt, /time limit stops meanwhile/);
  assert.doesNotMatch(prompt, /not available/);
  assert.doesNotMatch(executePrompt(parsed('name: plain\ndefault: allow\n'), tools), /approval/);
});
