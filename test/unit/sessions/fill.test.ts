// Filling vfs path templates and git values with session variables, and the binding order.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { BindingDeclarations } from '../../../src/blueprints';
import { bindBlueprint, fillFileArea, fillGit, fillPathTemplate, type BindableBlueprint } from '../../../src/sessions';

describe('fillPathTemplate', () => {
  test('a whole-component variable is replaced with its value', () => {
    assert.equal(fillPathTemplate('/teams/${vars.team}/notes', { team: 'blue' }, 'vfs.cwd'), '/teams/blue/notes');
    assert.equal(fillPathTemplate('teams/${vars.team}', { team: 'blue' }, 'vfs.subPath'), 'teams/blue');
    assert.equal(fillPathTemplate('/', {}, 'vfs.cwd'), '/');
  });

  test('a value that itself looks like a reference is not expanded again', () => {
    assert.equal(fillPathTemplate('/${vars.a}', { a: '${vars.b}', b: 'x' }, 'vfs.cwd'), '/${vars.b}');
  });

  test('an unbound variable is refused naming it', () => {
    assert.throws(() => fillPathTemplate('/teams/${vars.team}', {}, 'vfs.cwd'), /vfs\.cwd: variable '\$\{vars\.team\}' has no value/);
  });

  for (const bad of ['', '.', '..', 'a/b', 'a\\b', 'a\0b']) {
    test(`a value ${JSON.stringify(bad)} is refused as a path component`, () => {
      assert.throws(() => fillPathTemplate('/teams/${vars.team}', { team: bad }, 'vfs.cwd'), /value of variable 'team'.*nonempty/);
    });
  }

  test('a filled path over 4096 bytes is refused', () => {
    assert.throws(() => fillPathTemplate('/${vars.a}/${vars.a}', { a: 'x'.repeat(2100) }, 'vfs.cwd'), /resolved path exceeds 4096 bytes/);
  });
});

describe('fillFileArea', () => {
  test('cwd defaults to / and mounts keep their guest paths with filled subPaths', () => {
    const filled = fillFileArea(
      { mode: 'per_session', size_limit: 1024, mounts: { '/handbook': { volume: 'handbook', subPath: 'teams/${vars.team}', access: 'read_only' } } },
      { team: 'blue' },
    );
    assert.deepEqual(filled, {
      ok: true,
      value: { mode: 'per_session', cwd: '/', size_limit: 1024, mounts: { '/handbook': { volume: 'handbook', subPath: 'teams/blue', access: 'read_only' } } },
    });
  });

  test('errors start with "invalid vfs config:" and name the field', () => {
    const filled = fillFileArea({ mode: 'named', volume: 'v', subPath: '${vars.who}' }, {});
    assert.deepEqual(filled, { ok: false, error: "invalid vfs config: vfs.subPath: variable '${vars.who}' has no value" });
  });
});

describe('fillGit', () => {
  test('references anywhere in the text are expanded and the result trimmed', () => {
    assert.deepEqual(fillGit({ identity: { name: ' Agent ${vars.team} ', email: '${vars.team}@example.com' }, username: 'bot-${vars.team}' }, { team: 'blue' }), {
      ok: true,
      value: { identity: { name: 'Agent blue', email: 'blue@example.com' }, username: 'bot-blue' },
    });
  });

  test('no git block fills to null', () => {
    assert.deepEqual(fillGit(null, {}), { ok: true, value: null });
  });

  test('a filled value with an identity delimiter is refused', () => {
    const filled = fillGit({ identity: { name: '${vars.n}', email: 'a@b' } }, { n: 'Eve <x>' });
    assert.equal(filled.ok, false);
    assert.match((filled as { error: string }).error, /^invalid git config: git\.identity\.name: must be nonempty/);
  });

  test('a username with a colon and an unbound variable are refused', () => {
    assert.match((fillGit({ identity: { name: 'a', email: 'b' }, username: '${vars.u}' }, { u: 'a:b' }) as { error: string }).error, /git\.username/);
    assert.match((fillGit({ identity: { name: '${vars.missing}', email: 'b' } }, {}) as { error: string }).error, /variable '\$\{vars\.missing\}' has no value/);
  });
});

describe('bindBlueprint', () => {
  const declarations: BindingDeclarations = {
    variables: new Map([
      ['team', { required: true }],
      ['region', { required: false, default: 'eu' }],
    ]),
    secrets: new Map([
      ['USER_TOKEN', { source: 'harness', required: true } as const],
      ['API', { source: 'store', key: 'api' } as const],
    ]),
  };
  const blueprint: BindableBlueprint = { declarations, vfs: { mode: 'per_session', cwd: '/teams/${vars.team}' }, git: { identity: { name: '${vars.team}', email: 'x@y' } } };

  test('binds variables with defaults, the filled file area and the harness secrets', () => {
    const bound = bindBlueprint(blueprint, { team: 'blue' }, { USER_TOKEN: 't' });
    assert.ok(bound.ok);
    assert.deepEqual(bound.value.variables, { region: 'eu', team: 'blue' });
    assert.equal(bound.value.fileArea.cwd, '/teams/blue');
    assert.deepEqual(bound.value.secrets, { USER_TOKEN: 't' });
    assert.equal(bound.value.git?.identity.name, 'blue');
  });

  test('variables are checked before the vfs, the vfs before secrets', () => {
    assert.match((bindBlueprint(blueprint, { extra: '1' }, {}) as { error: string }).error, /^invalid variables: variable 'extra' is not declared/);
    assert.match((bindBlueprint(blueprint, { team: '..' }, {}) as { error: string }).error, /^invalid vfs config:/);
    assert.match((bindBlueprint(blueprint, { team: 'blue' }, {}) as { error: string }).error, /^invalid secrets: required harness secret 'USER_TOKEN'/);
    assert.match((bindBlueprint(blueprint, { team: 'blue' }, { API: 'x', USER_TOKEN: 't' }) as { error: string }).error, /secret 'API' is not declared with a harness source/);
  });

  test('an empty variable counts as not supplied', () => {
    assert.match((bindBlueprint(blueprint, { team: '' }, { USER_TOKEN: 't' }) as { error: string }).error, /required variable 'team' was not supplied/);
  });
});
