// Volume declarations: names, kinds, paths, access, size limits,
// and overlap with server directories and with each other.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { refused, scratch, settingsOf } from './support';

const local = (p: string, extra: Record<string, unknown> = {}) => ({ kind: 'local-path', path: p, size_limit: '1GB', ...extra });

describe('accepted declarations', () => {
  test('managed-local lives under volume_dir; local-path at its path; access defaults to read_write', () => {
    const home = scratch();
    const data = scratch();
    const s = settingsOf({ env: { SVC_HOME: home }, config: { volumes: { notes: { kind: 'managed-local', size_limit: '500MB' }, data: local(data, { access: 'read_only' }) } } });
    assert.deepEqual(s.volumes, [
      { name: 'notes', kind: 'managed-local', directory: path.join(home, 'server', 'volumes', 'notes'), access: 'read_write', sizeLimit: 500 * 1024 ** 2 },
      { name: 'data', kind: 'local-path', directory: data, path: data, access: 'read_only', sizeLimit: 1024 ** 3 },
    ]);
  });
  const sizes: Array<[unknown, number | 'unlimited']> = [
    ['unlimited', 'unlimited'],
    [1024, 1024],
    ['100', 100],
    ['100B', 100],
    ['2KB', 2048],
    ['2K', 2048],
    ['2KiB', 2048],
    ['3MB', 3 * 1024 ** 2],
    ['10GB', 10 * 1024 ** 3],
    ['1TB', 1024 ** 4],
    ['5mb', 5 * 1024 ** 2],
  ];
  for (const [text, bytes] of sizes) {
    test(`size_limit ${JSON.stringify(text)} is ${bytes}`, () => {
      assert.equal(settingsOf({ config: { volumes: { v: { kind: 'managed-local', size_limit: text } } } }).volumes[0].sizeLimit, bytes);
    });
  }
});

describe('refused declarations', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a missing kind', { v: { size_limit: '1MB' } }, /config `volumes\.v`: `kind` is required/],
    ['an unknown kind', { v: { kind: 'nfs', size_limit: '1MB' } }, /config `volumes\.v\.kind`: expected `managed-local` or `local-path`, got `nfs`/],
    ['a missing size_limit', { v: { kind: 'managed-local' } }, /config `volumes\.v`: `size_limit` is required/],
    ['a malformed size_limit', { v: { kind: 'managed-local', size_limit: '1.5GB' } }, /config `volumes\.v\.size_limit`: expected a size such as `500MB` or `unlimited`, got `1\.5GB`/],
    ['an unknown size unit', { v: { kind: 'managed-local', size_limit: '1PB' } }, /volumes\.v\.size_limit/],
    ['a negative size', { v: { kind: 'managed-local', size_limit: '-1MB' } }, /volumes\.v\.size_limit/],
    ['a bad access', { v: { kind: 'managed-local', size_limit: '1MB', access: 'write' } }, /config `volumes\.v\.access`: expected `read_write` or `read_only`, got `write`/],
    ['local-path without path', { v: { kind: 'local-path', size_limit: '1MB' } }, /config `volumes\.v`: `path` is required for a local-path volume/],
    ['a relative path', { v: local('data/here') }, /config `volumes\.v\.path`: must be an absolute path, got `data\/here`/],
    ['a ~ path', { v: local('~/data') }, /must be an absolute path/],
    ['managed-local with a path', { v: { kind: 'managed-local', path: '/srv/x', size_limit: '1MB' } }, /config `volumes\.v\.path`: .*remove `path`/],
    ['a name with a dot', { 'my.vol': { kind: 'managed-local', size_limit: '1MB' } }, /config `volumes\.my\.vol`: a volume name is 1-64 characters/],
    ['a name over 64 characters', { ['v'.repeat(65)]: { kind: 'managed-local', size_limit: '1MB' } }, /a volume name is 1-64 characters/],
    ['one directory named twice', { a: local('/srv/data'), b: local('/srv/data/') }, /`a` and `b` name the same directory/],
    ['one volume inside another', { a: local('/srv/data'), b: local('/srv/data/sub') }, /`a` and `b` overlap/],
    ['a declaration that is not a mapping', { v: 'managed-local' }, /config `volumes\.v`: expected a mapping/],
  ];
  for (const [name, volumes, pattern] of cases) {
    test(`${name} stops startup`, () => {
      refused({ config: { volumes } }, pattern);
    });
  }
  test('volumes that is not a mapping stops startup', () => {
    refused({ config: { volumes: ['a'] } }, /config `volumes`: expected a mapping/);
  });
});

describe('overlap with server directories', () => {
  const home = scratch();
  const server = path.join(home, 'server');
  const cases: Array<[string, string, RegExp]> = [
    ['inside the session store', path.join(server, 'sessions', 'x'), /overlaps the server's session_store_dir/],
    ['containing the whole state directory', home, /overlaps the server's/],
    ['inside the database directory', path.join(server, 'db'), /overlaps the server's database_path directory/],
    ['inside vfs_session_dir', path.join(server, 'vfs', 'sessions', 'a'), /vfs_session_dir/],
    ['inside package_store_dir', path.join(server, 'packages', 'p'), /package_store_dir/],
    ['inside volume_dir (for a local-path)', path.join(server, 'volumes', 'v'), /volume_dir/],
    ['inside the secret store', path.join(server, 'secrets'), /secret_store\.dir/],
    ['inside blueprint_dir', path.join(server, 'blueprints', 'b'), /blueprint_dir/],
    ['inside code_cache_dir (compiled code the server runs)', path.join(server, 'cache'), /code_cache_dir/],
  ];
  for (const [name, dir, pattern] of cases) {
    test(`a volume ${name} stops startup`, () => {
      refused({ env: { SVC_HOME: home }, config: { volumes: { v: local(dir) } } }, [/config `volumes\.v`/, pattern]);
    });
  }
  test('a volume containing the log file, the audit file or the config file stops startup', () => {
    const dir = scratch();
    const home = { SVC_HOME: scratch() };
    const logDir = scratch();
    refused({ env: home, argv: ['--log-file', path.join(logDir, 'svc.log')], config: { volumes: { v: local(logDir) } } }, /overlaps the server's log file/);
    const auditDir = scratch();
    refused({ env: home, config: { logging: { audit: { file: path.join(auditDir, 'audit.log') } }, volumes: { v: local(auditDir) } } }, /overlaps the server's audit file/);
    refused({ dir, env: home, config: { volumes: { v: local(dir) } } }, /overlaps the server's config file/);
  });
  test('an explicit vfs_ephemeral_dir is protected; the default OS temp directory is exempt', () => {
    const dir = scratch();
    refused({ argv: ['--vfs-ephemeral-dir', dir], config: { volumes: { v: local(path.join(dir, 'v')) } } }, /vfs_ephemeral_dir/);
    assert.equal(settingsOf({ config: { volumes: { v: local(path.join(dir, 'v')) } } }).volumes.length, 1);
  });
  test('a managed-local volume under volume_dir is fine', () => {
    assert.equal(settingsOf({ env: { SVC_HOME: home }, config: { volumes: { v: { kind: 'managed-local', size_limit: 'unlimited' } } } }).volumes.length, 1);
  });
});
