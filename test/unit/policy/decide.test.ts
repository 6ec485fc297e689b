// Decisions: first matching rule, defaults, per-caller lists, invariants, normalisation,
// and the decision records of one run in each `allows` mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditRecord } from '../../../src/audit';
import { decide, parsePermissionPolicy, PermissionDeniedError, RunDecisions, type PermissionPolicy } from '../../../src/policy';

function policyOf(defaultValue: unknown, permissions: unknown): PermissionPolicy {
  const parsed = parsePermissionPolicy(defaultValue, permissions);
  if ('error' in parsed) throw new Error(parsed.error.message);
  return parsed.policy;
}

const rules = policyOf('deny', {
  main: [
    { name: 'no-secret-file', capability: 'fs.read', filter: 'path == "/secret"', action: 'deny' },
    { capability: 'fs.read', filter: 'path glob "/notes/*"', action: 'allow' },
    { capability: 'fs.write', action: 'ask-human' },
  ],
  '@acme/billing': [{ capability: 'fs.read', action: 'allow' }],
});

const ask = (policy: PermissionPolicy, caller: string, capability: string, context: Record<string, unknown>, cwd = '/') =>
  decide({ policy, caller, capability, context, cwd, variables: {} });

test('the first matching rule wins and reports its index and name', () => {
  const denied = ask(rules, 'main', 'fs.read', { path: '/secret' });
  assert.equal(denied.decision, 'deny');
  assert.equal(denied.rule, 0);
  assert.equal(denied.ruleName, 'no-secret-file');
  const allowed = ask(rules, 'main', 'fs.read', { path: '/notes/a.txt' });
  assert.deepEqual([allowed.decision, allowed.rule], ['allow', 1]);
});

test('no matching rule falls to the default; an absent default denies; default allow allows', () => {
  assert.deepEqual([ask(rules, 'main', 'fs.read', { path: '/other' }).decision, ask(rules, 'main', 'fs.read', { path: '/other' }).rule], ['deny', 'default']);
  assert.equal(ask(policyOf(undefined, undefined), 'main', 'fs.read', { path: '/x' }).decision, 'deny');
  assert.equal(ask(policyOf('allow', undefined), 'main', 'http.get', { host: 'x' }).decision, 'allow');
});

test('capabilities match exactly and callers have their own lists', () => {
  assert.equal(ask(rules, 'main', 'fs.mkdir', { path: '/notes/x' }).rule, 'default');
  assert.equal(ask(rules, '@acme/billing', 'fs.read', { path: '/secret' }).decision, 'allow');
  assert.equal(ask(rules, '@other/pkg', 'fs.read', { path: '/notes/a' }).rule, 'default');
});

test('ask-human is a denial with its own reason', () => {
  const result = ask(rules, 'main', 'fs.write', { path: '/notes/a' });
  assert.equal(result.decision, 'deny');
  assert.match(result.reason!, /human approval/);
});

test('secrets.get from main is refused as an invariant, even under default allow and an explicit allow rule', () => {
  const permissive = policyOf('allow', { main: [{ capability: 'secrets.get', action: 'allow' }] });
  const result = ask(permissive, 'main', 'secrets.get', { name: 'API_KEY' });
  assert.deepEqual([result.decision, result.source], ['deny', 'invariant']);
  assert.equal(ask(permissive, '@acme/billing', 'secrets.get', { name: 'API_KEY' }).decision, 'allow');
});

test('paths are normalised against the cwd before matching; climbing above / is an invariant refusal', () => {
  assert.equal(ask(rules, 'main', 'fs.read', { path: '/notes/../secret' }).rule, 0);
  assert.equal(ask(rules, 'main', 'fs.read', { path: 'a.txt' }, '/notes').decision, 'allow');
  const climbing = ask(rules, 'main', 'fs.read', { path: '/../x' });
  assert.deepEqual([climbing.decision, climbing.source], ['deny', 'invariant']);
  const notText = ask(rules, 'main', 'fs.read', { path: 5 });
  assert.equal(notText.source, 'invariant');
});

test('hosts lose case, port and trailing dot', () => {
  const policy = policyOf('deny', { main: [{ capability: 'http.get', filter: 'host == "api.example.com"', action: 'allow' }] });
  assert.equal(ask(policy, 'main', 'http.get', { host: 'API.example.com.:443' }).decision, 'allow');
});

test('rule parsing refuses unknown keys, bad actions, empty callers and capabilities, bad filters', () => {
  const cases: Array<[unknown, unknown, string]> = [
    ['maybe', undefined, 'parse_error'],
    [undefined, { main: [{ capability: 'fs.read', action: 'allow', extra: 1 }] }, 'parse_error'],
    [undefined, { '': [] }, 'invalid_permissions'],
    [undefined, { main: [{ capability: '', action: 'allow' }] }, 'invalid_permissions'],
    [undefined, { main: [{ capability: 'fs.read', action: 'perhaps' }] }, 'parse_error'],
    [undefined, { main: [{ capability: 'fs.read', action: 'allow', filter: 'path = 1' }] }, 'parse_error'],
    [undefined, { main: [{ name: 'a', capability: 'x', action: 'allow' }, { name: 'a', capability: 'y', action: 'allow' }] }, 'invalid_permissions'],
  ];
  for (const [d, p, code] of cases) {
    const parsed = parsePermissionPolicy(d, p);
    assert.ok('error' in parsed, JSON.stringify(p));
    if ('error' in parsed) assert.equal(parsed.error.code, code);
  }
});

function recorder(allows: 'summary' | 'all' | 'none') {
  const written: AuditRecord[] = [];
  const policy = policyOf('deny', { main: [{ capability: 'fs.read', action: 'allow' }] });
  const decisions = new RunDecisions(
    { execution_id: 'e1', session_id: 's1', blueprint: 'bp', blueprint_hash: 'h'.repeat(64), principal: 'harness', cwd: '/', variables: {}, policy },
    { write: (record) => written.push(record) },
    allows,
  );
  for (let i = 0; i < 1000; i++) decisions.gate('main', 'fs.read', { path: `/f${i % 20}` });
  assert.throws(() => decisions.gate('main', 'fs.write', { path: '/x', length: 1 }), (e: unknown) => e instanceof PermissionDeniedError && e.source === 'policy' && /caller=main capability=fs\.write/.test(e.message));
  decisions.flush();
  return written as Array<Record<string, any>>;
}

test('1,000 allowed reads and one denied write: one deny row in every mode; allows per mode', () => {
  const all = recorder('all');
  assert.equal(all.filter((r) => r.decision === 'deny').length, 1);
  assert.equal(all.filter((r) => r.decision === 'allow').length, 1000);
  const summary = recorder('summary');
  assert.equal(summary.filter((r) => r.decision === 'deny').length, 1);
  const groups = summary.filter((r) => r.decision === 'allow');
  assert.equal(groups.length, 1);
  assert.equal(groups[0].count, 1000);
  assert.equal(groups[0].contexts.length, 10);
  assert.equal(groups[0].summary_overflow, true);
  assert.equal(JSON.parse(groups[0].contexts[0].payload_json).path, '/f0');
  const none = recorder('none');
  assert.deepEqual(none.map((r) => r.decision), ['deny']);
  const deny = none[0];
  assert.equal(deny.reason, 'denied by policy');
  assert.equal(deny.context.path, '/x');
  assert.equal(deny.rule, 'default');
});

test('quick-search context text loses URL credentials, query and fragment; payload_json keeps them', () => {
  const written: Array<Record<string, any>> = [];
  const decisions = new RunDecisions(
    { blueprint: 'bp', blueprint_hash: 'h', principal: 'p', cwd: '/', variables: {}, policy: policyOf('deny', undefined) },
    { write: (record) => written.push(record as Record<string, any>) },
    'summary',
  );
  assert.throws(() => decisions.gate('main', 'http.get', { host: 'x.example', path: '/a?token=abc#f', url: 'https://u:p@x.example/a?q=1' }));
  assert.equal(written[0].context.path, '/a');
  assert.match(written[0].context.payload_json, /token=abc/);
});
