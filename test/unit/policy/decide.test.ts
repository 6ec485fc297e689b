// Decisions: first match, defaults, per-caller
// lists, invariants, context normalisation, and the message of PermissionDeniedError.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decide, decideCheck, normalizeHost, normalizeRemote, normalizeVfsPath, parsePermissionPolicy, PermissionDeniedError, type PermissionPolicy } from '../../../src/policy';

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
    { capability: 'fs.write', action: 'allow' },
    { capability: 'http.get', filter: 'host == "api.example.com"', action: 'allow' },
    { capability: 'git.clone', filter: 'remote == "https://github.com/acme/project.git"', action: 'allow' },
    { capability: 'fs.move', filter: 'from glob "/notes/*" and to glob "/archive/*"', action: 'allow' },
    { capability: 'http.download', filter: 'vfs_path glob "/downloads/*"', action: 'allow' },
    { capability: 'acme.com/credits.apply', filter: 'amount <= ${vars.limit}', action: 'allow' },
  ],
  '@acme/billing': [{ capability: 'fs.read', action: 'allow' }],
});

const ask = (policy: PermissionPolicy, caller: string | undefined, capability: string, context: Record<string, unknown>, cwd = '/', variables: Record<string, string> = {}) =>
  decide({ policy, caller, capability, context, cwd, variables });

describe('matching', () => {
  test('the first matching rule wins and reports its index and name', () => {
    const denied = ask(rules, 'main', 'fs.read', { path: '/secret' });
    assert.deepEqual([denied.decision, denied.source, denied.rule, denied.ruleName], ['deny', 'policy', 0, 'no-secret-file']);
    const allowed = ask(rules, 'main', 'fs.read', { path: '/notes/a.txt' });
    assert.deepEqual([allowed.decision, allowed.rule, allowed.ruleName], ['allow', 1, undefined]);
  });

  test('a rule without a filter makes later rules for the same capability unreachable', () => {
    const result = ask(rules, 'main', 'fs.write', { path: '/notes/a' });
    assert.deepEqual([result.decision, result.rule], ['deny', 2]);
  });

  test('no matching rule falls to the default; absent default denies; default allow allows', () => {
    const fallen = ask(rules, 'main', 'fs.read', { path: '/other' });
    assert.deepEqual([fallen.decision, fallen.rule, fallen.source], ['deny', 'default', 'policy']);
    assert.equal(ask(policyOf(undefined, undefined), 'main', 'fs.read', { path: '/x' }).decision, 'deny');
    assert.equal(ask(policyOf(undefined, { main: [{ capability: 'fs.write', action: 'allow' }] }), 'main', 'fs.read', { path: '/x' }).decision, 'deny');
    const open = ask(policyOf('allow', undefined), 'main', 'http.get', { host: 'x' });
    assert.deepEqual([open.decision, open.rule], ['allow', 'default']);
  });

  test('a default of ask-human denies with the human-approval reason', () => {
    const result = ask(policyOf('ask-human', undefined), 'main', 'fs.remove', { path: '/tmp/x' });
    assert.equal(result.decision, 'deny');
    assert.equal(result.action, 'ask-human');
    assert.equal(result.reason, 'policy requires human approval for fs.remove on /tmp/x (caller main); a person can be asked only for a run\'s own calls (not outside a run, nor for a check inside an operation such as a redirect), so here it counts as a denial');
  });

  test('capabilities match exactly and case-sensitively; there are no prefixes or wildcards', () => {
    assert.equal(ask(rules, 'main', 'fs.mkdir', { path: '/notes/x' }).rule, 'default');
    assert.equal(ask(rules, 'main', 'FS.read', { path: '/notes/x' }).rule, 'default');
    assert.equal(ask(rules, 'main', 'fs', { path: '/notes/x' }).rule, 'default');
  });

  test('each caller has its own list; a caller with no list is governed by the default alone', () => {
    assert.equal(ask(rules, '@acme/billing', 'fs.read', { path: '/secret' }).decision, 'allow');
    const other = ask(rules, '@other/pkg', 'fs.read', { path: '/notes/a' });
    assert.deepEqual([other.decision, other.rule], ['deny', 'default']);
    assert.equal(ask(policyOf('allow', { main: [] }), '@other/pkg', 'acme.com/x.y', {}).decision, 'allow');
  });

  test('session variables feed the filters', () => {
    assert.equal(ask(rules, 'main', 'acme.com/credits.apply', { amount: 500 }, '/', { limit: '1000' }).decision, 'allow');
    assert.equal(ask(rules, 'main', 'acme.com/credits.apply', { amount: 5000 }, '/', { limit: '1000' }).decision, 'deny');
    assert.equal(ask(rules, 'main', 'acme.com/credits.apply', { amount: 5 }, '/', {}).decision, 'deny');
  });
});

describe('invariants', () => {
  test('secrets.get from main is refused before any rule, under default allow and an explicit allow', () => {
    const permissive = policyOf('allow', { main: [{ capability: 'secrets.get', action: 'allow' }] });
    const result = ask(permissive, 'main', 'secrets.get', { name: 'API_KEY' });
    assert.deepEqual([result.decision, result.source, result.rule], ['deny', 'invariant', undefined]);
    assert.match(result.reason!, /secret/);
    assert.equal(ask(policyOf(undefined, undefined), 'main', 'secrets.get', { name: 'K' }).source, 'invariant');
    assert.equal(ask(permissive, '@acme/billing', 'secrets.get', { name: 'API_KEY' }).decision, 'allow');
  });

  test('the check() variant skips the main-only invariant but still normalises paths', () => {
    const permissive = policyOf('allow', undefined);
    assert.equal(decideCheck({ policy: permissive, caller: 'main', capability: 'secrets.get', context: { name: 'K' }, cwd: '/', variables: {} }).decision, 'allow');
    assert.equal(decideCheck({ policy: rules, caller: 'main', capability: 'fs.read', context: { path: '/notes/../secret' }, cwd: '/', variables: {} }).rule, 0);
    assert.equal(decideCheck({ policy: permissive, caller: 'main', capability: 'fs.read', context: { path: '/../x' }, cwd: '/', variables: {} }).source, 'invariant');
  });

  test('an unidentified caller is refused as an invariant, never by a permissive fallback', () => {
    for (const caller of [undefined, '']) {
      const result = ask(policyOf('allow', undefined), caller, 'fs.read', { path: '/x' });
      assert.deepEqual([result.decision, result.source], ['deny', 'invariant']);
    }
  });
});

describe('normalisation', () => {
  test('VFS paths are resolved against the cwd with . and .. collapsed before matching', () => {
    assert.equal(ask(rules, 'main', 'fs.read', { path: '/notes/../secret' }).rule, 0);
    assert.equal(ask(rules, 'main', 'fs.read', { path: '/notes/./a//b.txt' }).context.path, '/notes/a/b.txt');
    assert.equal(ask(rules, 'main', 'fs.read', { path: 'a.txt' }, '/notes').decision, 'allow');
    assert.equal(ask(rules, 'main', 'fs.read', { path: '../secret' }, '/notes').rule, 0);
    const moved = ask(rules, 'main', 'fs.move', { from: 'x/../a', to: '/archive/./a' }, '/notes');
    assert.deepEqual([moved.decision, moved.context.from, moved.context.to], ['allow', '/notes/a', '/archive/a']);
    assert.equal(ask(rules, 'main', 'http.download', { host: 'x', vfs_path: 'f.zip' }, '/downloads').decision, 'allow');
  });

  test('a path climbing above / or not a string is an invariant refusal naming the field', () => {
    const climbing = ask(rules, 'main', 'fs.read', { path: '/../x' });
    assert.deepEqual([climbing.decision, climbing.source], ['deny', 'invariant']);
    assert.equal(climbing.reason, 'invalid fs.read context: path /../x climbs above /');
    assert.equal(ask(rules, 'main', 'fs.read', { path: 5 }).reason, 'invalid fs.read context: path must be a VFS path string');
    assert.equal(ask(rules, 'main', 'fs.copy', { from: '/a', to: '' }).reason, 'invalid fs.copy context: to must be a VFS path string');
    assert.equal(ask(rules, 'main', 'git.init', { path: null }).source, 'invariant');
    assert.equal(ask(rules, 'main', 'http.download', { vfs_path: '../../x' }, '/d').reason, 'invalid http.download context: vfs_path ../../x climbs above /');
  });

  test('package contexts pass verbatim unless the capability is fs.*, git.* or http.download', () => {
    const result = ask(policyOf('allow', undefined), '@acme/billing', 'acme.com/files.read', { path: '/../x', host: 'A.COM' });
    assert.deepEqual(result.context, { path: '/../x', host: 'A.COM' });
    assert.equal(result.decision, 'allow');
  });

  test('the caller context is never changed in place', () => {
    const context = { path: '/notes/../secret' };
    ask(rules, 'main', 'fs.read', context);
    assert.deepEqual(context, { path: '/notes/../secret' });
  });

  test('hosts lose case, port and trailing dot', () => {
    assert.equal(ask(rules, 'main', 'http.get', { host: 'API.example.com.:443' }).decision, 'allow');
    for (const [raw, host] of [['https://API.example.com.:443/', 'api.example.com'], ['Example.COM', 'example.com'], ['[::1]:8080', '::1'], ['[::1]', '::1'], ['::1', '::1'], ['x.org..', 'x.org']]) {
      assert.equal(normalizeHost(raw), host, raw);
    }
    assert.equal(normalizeHost(42), 42);
  });

  test('git remotes become canonical HTTPS URLs', () => {
    assert.equal(normalizeRemote('https://GitHub.com:443/acme/./project.git'), 'https://github.com/acme/project.git');
    assert.equal(normalizeRemote('https://github.com'), 'https://github.com/');
    assert.equal(normalizeRemote('https://github.com/a/b/../c.git'), 'https://github.com/a/c.git');
    assert.equal(normalizeRemote('not a url'), 'not a url');
    assert.equal(ask(rules, 'main', 'git.clone', { path: '/r', remote: 'HTTPS://GITHUB.COM:443/acme/x/../project.git', branch: '' }).decision, 'allow');
  });

  test('normalizeVfsPath collapses lexically', () => {
    assert.equal(normalizeVfsPath('/', '/', 'fs.list', 'path'), '/');
    assert.equal(normalizeVfsPath('.', '/work', 'fs.list', 'path'), '/work');
    assert.equal(normalizeVfsPath('/a/b/../../c/', '/', 'fs.list', 'path'), '/c');
    assert.throws(() => normalizeVfsPath('a\0b', '/', 'fs.read', 'path'), /must be a VFS path string/);
  });
});

describe('the error the program sees', () => {
  test('policy denials have the fixed message shape with the target and the closing sentence', () => {
    const decision = ask(rules, 'main', 'fs.read', { path: '/secret' });
    const error = new PermissionDeniedError('main', 'fs.read', decision.reason!, 'policy');
    assert.equal(error.name, 'PermissionDeniedError');
    assert.equal(error.code, 'permission_denied');
    assert.equal(decision.reason, 'policy denied fs.read on /secret for main');
    assert.ok(error.message.startsWith('permission denied: caller=main capability=fs.read: policy denied fs.read on /secret for main. '), error.message);
    assert.match(error.message, /forbidden by the operator's policy; do not work around it .*report it and stop\.$/);
    assert.doesNotMatch(error.message, /no-secret-file/, 'denials never name rules');
    assert.deepEqual([error.caller, error.capability, error.source], ['main', 'fs.read', 'policy']);
  });

  test('the target names one path, from and to, the download destination, or nothing', () => {
    const deny = policyOf(undefined, undefined);
    assert.equal(ask(deny, 'main', 'fs.copy', { from: '/a', to: 'b' }, '/w').reason, 'policy denied fs.copy from /a to /w/b for main');
    assert.equal(ask(deny, 'main', 'git.commit', { path: '/r', branch: 'main' }).reason, 'policy denied git.commit on /r for main');
    assert.equal(ask(deny, 'main', 'http.download', { host: 'h', vfs_path: '/d/f' }).reason, 'policy denied http.download on /d/f for main');
    assert.equal(ask(deny, 'main', 'http.get', { host: 'h', path: '/p' }).reason, 'policy denied http.get for main');
    assert.equal(ask(deny, '@a/b', 'session.read', { key: 'k' }).reason, 'policy denied session.read for @a/b');
  });

  test('invariant and read-only denials close with their own sentences', () => {
    assert.match(new PermissionDeniedError('main', 'secrets.get', 'x', 'invariant').message, /^permission denied: caller=main capability=secrets\.get: x\. No policy can grant this; .*report it and stop\.$/);
    assert.match(new PermissionDeniedError('main', 'fs.write', '/data/x is in the volume mounted read-only at /data', 'read_only').message, /read-only at \/data\. This volume cannot be written from this Blueprint; .*fs\.info\(\)/);
  });
});
