// Permission rules: parsing `default` and `permissions` from
// plain YAML values, error classes with paths, stage order, canonical form, variables.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalPolicy, parsePermissionPolicy, policyVariableReferences, type PermissionPolicy, type PolicyDiagnostic } from '../../../src/policy';

function refused(defaultValue: unknown, permissions: unknown): PolicyDiagnostic {
  const parsed = parsePermissionPolicy(defaultValue, permissions);
  assert.ok('error' in parsed, `expected a refusal of ${JSON.stringify(permissions)}`);
  return parsed.error;
}

function accepted(defaultValue: unknown, permissions: unknown): PermissionPolicy {
  const parsed = parsePermissionPolicy(defaultValue, permissions);
  if ('error' in parsed) assert.fail(parsed.error.message);
  return parsed.policy;
}

describe('parsing', () => {
  test('rules keep file order, name, capability, filter text and action per caller', () => {
    const policy = accepted('ask-human', {
      main: [
        { name: 'notes', capability: 'fs.read', filter: 'path glob "/notes/*"', action: 'allow' },
        { capability: 'fs.write', action: 'deny' },
      ],
      '@acme/billing': [{ capability: 'http.post', action: 'ask-human' }],
    });
    assert.equal(policy.default, 'ask-human');
    assert.deepEqual([...policy.callers.keys()], ['main', '@acme/billing']);
    const [first, second] = policy.callers.get('main')!;
    assert.equal(first.name, 'notes');
    assert.equal(first.filterText, 'path glob "/notes/*"');
    assert.equal(first.filter?.kind, 'compare');
    assert.deepEqual(second, { capability: 'fs.write', action: 'deny' });
  });

  test('absent default and permissions give an empty policy with no default (deny)', () => {
    const policy = accepted(undefined, undefined);
    assert.equal(policy.default, undefined);
    assert.equal(policy.callers.size, 0);
    assert.deepEqual(accepted(null, { main: null }).callers.get('main'), []);
  });

  test('unknown default or action values are parse errors naming the three variants', () => {
    assert.deepEqual(refused('maybe', undefined), { code: 'parse_error', message: 'unknown variant `maybe`, expected one of `allow`, `deny`, `ask-human`', path: ['default'] });
    assert.deepEqual(refused(undefined, { main: [{ capability: 'fs.read', action: 'Allow' }] }), {
      code: 'parse_error',
      message: 'unknown variant `Allow`, expected one of `allow`, `deny`, `ask-human`',
      path: ['permissions', 'main', 0, 'action'],
    });
  });

  test('unknown rule keys are refused listing the four allowed keys', () => {
    const error = refused(undefined, { main: [{ capability: 'fs.read', action: 'allow', when: 'x' }] });
    assert.equal(error.code, 'parse_error');
    assert.equal(error.message, 'unknown field `when`, expected one of `name`, `capability`, `filter`, `action`');
    assert.deepEqual(error.path, ['permissions', 'main', 0, 'when']);
  });

  test('missing fields and wrong types are parse errors at the rule or the key', () => {
    assert.deepEqual(refused(undefined, { main: [{ action: 'allow' }] }), { code: 'parse_error', message: 'missing field `capability`', path: ['permissions', 'main', 0] });
    assert.deepEqual(refused(undefined, { main: [{ capability: 'fs.read' }] }), { code: 'parse_error', message: 'missing field `action`', path: ['permissions', 'main', 0] });
    assert.deepEqual(refused(undefined, { main: [{ capability: 5, action: 'allow' }] }).path, ['permissions', 'main', 0, 'capability']);
    assert.deepEqual(refused(undefined, { main: [{ name: 3, capability: 'x.y', action: 'allow' }] }).path, ['permissions', 'main', 0, 'name']);
    assert.deepEqual(refused(undefined, { main: [{ capability: 'x.y', filter: true, action: 'allow' }] }).path, ['permissions', 'main', 0, 'filter']);
    assert.deepEqual(refused(undefined, { main: ['fs.read'] }).path, ['permissions', 'main', 0]);
    assert.deepEqual(refused(undefined, { main: { capability: 'fs.read' } }).path, ['permissions', 'main']);
    assert.deepEqual(refused(undefined, ['main']).path, ['permissions']);
    for (const permissions of [{ main: [{ capability: 5, action: 'allow' }] }, { main: ['x'] }, ['main']]) {
      assert.equal(refused(undefined, permissions).code, 'parse_error');
    }
  });

  test('a filter syntax error is a parse error rendered with the filter, its message and a caret line', () => {
    const error = refused(undefined, { main: [{ capability: 'fs.read', action: 'allow' }, { capability: 'fs.read', filter: 'path = "/x"', action: 'allow' }] });
    assert.equal(error.code, 'parse_error');
    assert.deepEqual(error.path, ['permissions', 'main', 1, 'filter']);
    assert.equal(error.message, 'invalid filter `path = "/x"`: expected `==`; a single `=` is not an operator\n  path = "/x"\n       ^');
  });

  test('empty callers, empty capabilities and empty or duplicate rule names are invalid_permissions', () => {
    assert.deepEqual(refused(undefined, { '': [] }), { code: 'invalid_permissions', message: 'caller identifier must not be empty', path: ['permissions', ''] });
    assert.deepEqual(refused(undefined, { main: [{ capability: '', action: 'allow' }] }), {
      code: 'invalid_permissions',
      message: "caller 'main': a rule has an empty capability name",
      path: ['permissions', 'main', 0, 'capability'],
    });
    const duplicate = refused(undefined, { main: [{ name: 'a', capability: 'x.y', action: 'allow' }, { name: 'a', capability: 'x.z', action: 'deny' }] });
    assert.equal(duplicate.code, 'invalid_permissions');
    assert.deepEqual(duplicate.path, ['permissions', 'main', 1, 'name']);
    assert.match(duplicate.message, /'a'/);
    assert.equal(refused(undefined, { main: [{ name: '', capability: 'x.y', action: 'allow' }] }).code, 'invalid_permissions');
  });

  test('the same rule name under two callers is fine', () => {
    accepted(undefined, { main: [{ name: 'a', capability: 'x.y', action: 'allow' }], '@p/q': [{ name: 'a', capability: 'x.y', action: 'allow' }] });
  });

  test('a structure fault anywhere wins over an earlier semantic fault', () => {
    const error = refused(undefined, {
      '': [],
      main: [{ capability: '', action: 'allow' }, { capability: 'fs.read', action: 'allow', filter: 'path ==' }],
    });
    assert.equal(error.code, 'parse_error');
    assert.deepEqual(error.path, ['permissions', 'main', 1, 'filter']);
  });

  test('within a rule, keys are checked in document order', () => {
    assert.deepEqual(refused(undefined, { main: [{ action: 'maybe', extra: 1, capability: 'x.y' }] }).path, ['permissions', 'main', 0, 'action']);
    assert.deepEqual(refused(undefined, { main: [{ extra: 1, action: 'maybe', capability: 'x.y' }] }).path, ['permissions', 'main', 0, 'extra']);
  });
});

describe('canonical form and variables', () => {
  test('default deny and absent default are the same; empty caller lists are left out; filters are canonical', () => {
    const written = canonicalPolicy(accepted('deny', { main: [{ capability: 'fs.read', filter: 'path   glob"/teams/${vars.team}/*"', action: 'allow' }], '@p/q': [] }));
    assert.deepEqual(written, { permissions: { main: [{ capability: 'fs.read', filter: 'path glob "/teams/${vars.team}/*"', action: 'allow' }] } });
    assert.deepEqual(canonicalPolicy(accepted(undefined, { main: [] })), {});
    assert.deepEqual(canonicalPolicy(accepted('allow', undefined)), { default: 'allow' });
    assert.deepEqual(canonicalPolicy(accepted('ask-human', undefined)), { default: 'ask-human' });
  });

  test('canonical rules keep the name and omit an absent filter', () => {
    assert.deepEqual(canonicalPolicy(accepted(undefined, { main: [{ action: 'deny', capability: 'fs.write', name: 'no writes' }] })), {
      permissions: { main: [{ name: 'no writes', capability: 'fs.write', action: 'deny' }] },
    });
  });

  test('every ${vars.NAME} of every filter is listed with its caller, rule and path', () => {
    const policy = accepted(undefined, {
      main: [{ capability: 'fs.read', filter: 'path glob "/t/${vars.team}/*" and size < ${vars.max}', action: 'allow' }, { capability: 'fs.write', action: 'allow' }],
      '@p/q': [{ capability: 'http.get', filter: 'host == ${vars.host}', action: 'allow' }],
    });
    assert.deepEqual(policyVariableReferences(policy), [
      { name: 'team', caller: 'main', index: 0, path: ['permissions', 'main', 0, 'filter'] },
      { name: 'max', caller: 'main', index: 0, path: ['permissions', 'main', 0, 'filter'] },
      { name: 'host', caller: '@p/q', index: 0, path: ['permissions', '@p/q', 0, 'filter'] },
    ]);
  });
});
