// settings_hash: stable over explicit defaults and source order,
// changed by any effective setting, blind to credentials.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { canonicalJson, computeSettingsHash } from '../../../src/config';
import { scratch, settingsOf, writeFile, type RunOptions } from './support';

const ADDR = '127.0.0.1:8128';

function hashOf(home: string, options: RunOptions = {}): string {
  return computeSettingsHash(settingsOf({ ...options, env: { SVC_HOME: home, ...(options.env ?? {}) } }), ADDR);
}

describe('settings_hash', () => {
  const home = scratch();
  const base = hashOf(home);

  test('is lower-case hex SHA-256', () => {
    assert.match(base, /^[0-9a-f]{64}$/);
  });
  test('an explicit default hashes like an omitted one', () => {
    const explicit = hashOf(home, {
      argv: ['--max-execution-memory', '50', '--shutdown-grace', '5', '--max-execution-fuel', '1T', '--port', '8128', '--bind', '127.0.0.1'],
      env: { SVC_MAX_LLM_TOKENS: '20_000_000' },
      config: {
        database_path: path.join(home, 'server', 'db', 'svc.db'),
        logging: { audit: { enabled: true, allows: 'summary' } },
        telemetry: false,
        network: { allow_localhost: false, allow_ip: [] },
        mcp_allowed_hosts: [],
      },
    });
    assert.equal(explicit, base);
  });
  test('host entries hash alike whatever their source, order or spelling', () => {
    const a = hashOf(home, { argv: ['--add-host', 'B.test=10.0.0.2,a.test=10.0.0.1'] });
    const b = hashOf(home, { env: { SVC_ADD_HOSTS: 'a.test.=10.0.0.1' }, config: { network: { hosts: { 'b.test': '10.0.0.2' } } } });
    assert.equal(a, b);
  });
  test('the order of grants and hosts does not matter', () => {
    const a = hashOf(home, { argv: ['--allow-ip', '10.0.0.1,10.0.0.2', '--mcp-allowed-host', 'b.test,a.test'] });
    const b = hashOf(home, { argv: ['--allow-ip', '10.0.0.2', '--allow-ip', '10.0.0.1/32', '--mcp-allowed-host', 'A.test,b.test'] });
    assert.equal(a, b);
  });
  const changes: Array<[string, RunOptions]> = [
    ['a limit', { argv: ['--max-execution-memory', '51'] }],
    ['the shutdown grace', { argv: ['--shutdown-grace', '6'] }],
    ['a path', { argv: ['--session-store-dir', path.join(home, 'elsewhere')] }],
    ['a network grant', { argv: ['--allow-localhost'] }],
    ['an allow_ip entry', { argv: ['--allow-ip', '10.0.0.1'] }],
    ['a network.hosts entry', { argv: ['--add-host', 'a.test=10.0.0.1'] }],
    ['a network.hosts address', { env: { SVC_ADD_HOSTS: 'a.test=10.0.0.2' } }],
    ['an MCP host', { argv: ['--mcp-allowed-host', 'svc.test'] }],
    ['telemetry', { env: { SVC_TELEMETRY: '1' } }],
    ['the telemetry endpoint', { env: { SVC_TELEMETRY_ENDPOINT: 'https://collector.test/v1/reports' } }],
    ['the audit mode', { config: { logging: { audit: { allows: 'all' } } } }],
    ['deny warnings', { env: { SVC_DENY_WARNINGS: '1' } }],
    ['the store being on', { env: { SVC_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') } }],
    ['a volume', { config: { volumes: { v: { kind: 'managed-local', size_limit: '1MB' } } } }],
    ['an OAuth provider', { config: { mcp_oauth: { providers: [{ match: 'a.test', client_id: 'x' }] } } }],
  ];
  for (const [name, options] of changes) {
    test(`changing ${name} changes it`, () => {
      assert.notEqual(hashOf(home, options), base);
    });
  }
  test('the bound address is part of it', () => {
    assert.notEqual(computeSettingsHash(settingsOf({ env: { SVC_HOME: home } }), '127.0.0.1:9999'), base);
  });
  test('credentials are not part of it: token values, the store key, its source, client secrets', () => {
    assert.equal(hashOf(home, { env: { SVC_SERVER_TOKEN: 'f'.repeat(40) } }), base);
    const keyA = hashOf(home, { env: { SVC_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') } });
    const keyB = hashOf(home, { env: { OTHER_KEY: Buffer.alloc(32, 2).toString('base64') }, argv: ['--secret-store-key-env', 'OTHER_KEY'] });
    assert.equal(keyA, keyB);
    const secretA = hashOf(home, { config: { mcp_oauth: { providers: [{ match: 'a.test', client_id: 'x', client_secret: 'one' }] } } });
    const secretB = hashOf(home, { config: { mcp_oauth: { providers: [{ match: 'a.test', client_id: 'x', client_secret: '${env.TWO}' }] } } });
    assert.equal(secretA, secretB);
  });
  test('token names and roles are part of it', () => {
    const dir = scratch();
    const file = writeFile(dir, 't', 'g'.repeat(40));
    const user = hashOf(home, { dir, config: { api_tokens: [{ name: 'h', role: 'user', token_file: file }] } });
    const admin = hashOf(home, { dir, config: { api_tokens: [{ name: 'h', role: 'admin', token_file: file }] } });
    assert.notEqual(user, base);
    assert.notEqual(user, admin);
  });
  test('the hashed document follows the reference shape, paths hashed', () => {
    const s = settingsOf({ env: { SVC_HOME: home } });
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const expected = {
      addr: ADDR,
      tls: false,
      auth: { allow_unauthenticated: false, tokens: [{ name: 'SVC_SERVER_TOKEN', role: 'admin' }] },
      mcp_allowed_hosts: [],
      mcp_oauth: [],
      paths: {
        database_path: sha(path.join(home, 'server', 'db', 'svc.db')),
        blueprint_dir: sha(path.join(home, 'server', 'blueprints')),
        session_store_dir: sha(path.join(home, 'server', 'sessions')),
        vfs_session_dir: sha(path.join(home, 'server', 'vfs', 'sessions')),
        vfs_ephemeral_dir: sha(s.paths.vfsEphemeralDir),
        package_store_dir: sha(path.join(home, 'server', 'packages')),
        package_fallback_dir: sha(path.join(home, 'packages')),
        volume_dir: sha(path.join(home, 'server', 'volumes')),
        secret_store_dir: sha(path.join(home, 'server', 'secrets')),
        log_file: null,
        audit_file: null,
        github_token_file: null,
      },
      secret_store: { enabled: false },
      volumes: {},
      network: { allow_ip: [], allow_localhost: false, allow_private: false },
      limits: s.limits,
      deny_warnings: false,
      github_api_url: 'https://api.github.com',
      telemetry: false,
      telemetry_include_source: false,
      audit: { enabled: true, allows: 'summary' },
      shutdown_grace: 5,
    };
    assert.equal(computeSettingsHash(s, ADDR), sha(canonicalJson(expected)));
  });
});

describe('canonicalJson', () => {
  test('sorts keys at every level and keeps array order', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}');
  });
});
