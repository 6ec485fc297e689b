// The settings layer: precedence and its exceptions, value types, tokens, TLS, volumes,
// network grants, MCP hosts, settings_hash, and refusals that name the setting.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { computeSettingsHash, ConfigError, parseCommand, type Command } from '../../../src/config';

const TOKEN = 'a'.repeat(40);

function scratch(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-config-'));
}

function run(argv: string[], env: Record<string, string> = {}, config?: Record<string, unknown>): Command {
  const dir = scratch();
  const args = [...argv];
  if (config) {
    fs.writeFileSync(path.join(dir, 'config.yaml'), stringify(config));
    args.push('--config', path.join(dir, 'config.yaml'));
  }
  return parseCommand({ argv: args, env: { SVC_SERVER_TOKEN: TOKEN, ...env }, cwd: dir, homeDir: dir, tmpDir: os.tmpdir(), version: '0.1.0' });
}

function settings(argv: string[], env: Record<string, string> = {}, config?: Record<string, unknown>) {
  const command = run(argv, env, config);
  assert.equal(command.kind, 'serve');
  return (command as Extract<Command, { kind: 'serve' }>).settings;
}

function refusal(argv: string[], env: Record<string, string>, config: Record<string, unknown> | undefined, pattern: RegExp, code: 'usage' | 'invalid' = 'invalid') {
  assert.throws(() => run(argv, env, config), (error: unknown) => error instanceof ConfigError && error.code === code && pattern.test(error.message));
}

describe('bind and port precedence', () => {
  test('defaults are loopback:8128', () => {
    const s = settings([]);
    assert.deepEqual([s.bind, s.port], ['127.0.0.1', 8128]);
  });
  test('flag beats variable beats file beats HOST/PORT', () => {
    assert.equal(settings(['--port', '1'], { SVC_PORT: '2', PORT: '4' }, { port: 3 }).port, 1);
    assert.equal(settings([], { SVC_PORT: '2', PORT: '4' }, { port: 3 }).port, 2);
    assert.equal(settings([], { PORT: '4' }, { port: 3 }).port, 3);
    assert.equal(settings([], { PORT: '4' }).port, 4);
  });
  test('PORT alone binds 0.0.0.0; a file bind survives PORT; HOST names the address', () => {
    assert.equal(settings([], { PORT: '9000' }).bind, '0.0.0.0');
    assert.equal(settings([], { PORT: '9000' }, { bind: '127.0.0.1' }).bind, '127.0.0.1');
    assert.equal(settings([], { PORT: '9000', HOST: '::1' }).bind, '::1');
  });
  test('garbage HOST and PORT are ignored (PORT still means all interfaces)', () => {
    const s = settings([], { HOST: 'not-an-ip', PORT: 'abc' });
    assert.deepEqual([s.bind, s.port], ['0.0.0.0', 8128]);
  });
  test('a malformed SVC_PORT stops startup even when --port is given', () => {
    refusal(['--port', '1'], { SVC_PORT: 'abc' }, undefined, /\$SVC_PORT: expected a port number, got `abc`/);
  });
});

describe('value types', () => {
  test('counts take K/M/B/T and underscores and refuse everything else', () => {
    assert.equal(settings(['--max-execution-fuel', '1_000K']).limits.max_execution_fuel, 1_000_000);
    assert.equal(settings([], { SVC_MAX_EXECUTION_FUEL: '2t' }).limits.max_execution_fuel, 2e12);
    for (const bad of ['1.5M', '1e10', '1 M', '1MB', '-1', 'K', '_1', '1_', '1__0', '1_K', '9007199254740993']) {
      refusal([], { SVC_MAX_EXECUTION_FUEL: bad }, undefined, /SVC_MAX_EXECUTION_FUEL: a count is a whole number/);
    }
  });
  test('a count in the file is judged as written (1e3 refused)', () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, 'c.yaml'), 'max_execution_fuel: 1e3\n');
    assert.throws(() => parseCommand({ argv: ['--config', path.join(dir, 'c.yaml')], env: { SVC_SERVER_TOKEN: TOKEN }, cwd: dir, homeDir: dir, tmpDir: dir, version: '0' }), /max_execution_fuel/);
  });
  test('seconds and megabytes are plain digits; ranges are checked', () => {
    refusal([], { SVC_SHUTDOWN_GRACE: '8s' }, undefined, /\$SVC_SHUTDOWN_GRACE: expected a whole number of seconds, got `8s`/);
    refusal(['--max-execution-memory', '0'], {}, undefined, /max execution memory must be at least 1 MB, got 0/);
    refusal(['--max-execution-stack', '20000'], {}, undefined, /max execution stack must be at most 16384 KiB, got 20000/);
    assert.equal(settings(['--max-execution-time', '0']).limits.max_execution_time, 0);
  });
  test('boolean variables: 1/true/yes/on in any case', () => {
    assert.equal(settings([], { SVC_ALLOW_LOCALHOST: 'YES' }).network.allowLocalhost, true);
    assert.equal(settings([], { SVC_ALLOW_LOCALHOST: 'nope' }).network.allowLocalhost, false);
  });
  test('an empty variable counts as unset; an unknown flag is a usage error', () => {
    assert.equal(settings([], { SVC_PORT: '' }).port, 8128);
    refusal(['--bogus'], {}, undefined, /--bogus/, 'usage');
  });
  test('unknown keys stop startup at every level, naming the key', () => {
    refusal([], {}, { bogus: 1 }, /bogus/);
    refusal([], {}, { tls: { cert: 'x' } }, /tls\.cert/);
    refusal([], {}, { logging: { audit: { enable: true } } }, /logging\.audit\.enable/);
  });
});

describe('grants and exceptions', () => {
  test('network grants and MCP hosts add up across sources; variables are reported', () => {
    const s = settings(['--allow-ip', '10.0.0.1'], { SVC_ALLOW_IP: '192.168.0.0/16, ::1', SVC_MCP_ALLOWED_HOSTS: 'svc.local:8128' }, { network: { allow_ip: ['127.0.0.1'] }, mcp_allowed_hosts: ['Example.COM'] });
    assert.deepEqual([...s.network.allowIp].sort(), ['10.0.0.1/32', '127.0.0.1/32', '192.168.0.0/16', '::1/128']);
    assert.deepEqual([...s.mcpAllowedHosts].sort(), ['example.com', 'svc.local:8128']);
    assert.deepEqual(s.network.grantsFromEnvironment, ['SVC_ALLOW_IP']);
    refusal([], { SVC_ALLOW_IP: '10.0.0.0/99' }, undefined, /\$SVC_ALLOW_IP: expected an IP address or CIDR range/);
  });
  test('allow_unauthenticated is on when any source says so; it cannot be combined with tokens', () => {
    refusal(['--allow-unauthenticated'], {}, undefined, /either requires a token or it does not/);
    const s = parseCommand({ argv: [], env: { SVC_ALLOW_UNAUTHENTICATED: '1' }, cwd: '/', homeDir: '/tmp', tmpDir: '/tmp', version: '0' });
    assert.equal(s.kind === 'serve' && s.settings.allowUnauthenticated, true);
  });
  test('telemetry: false in the file wins; otherwise the variable decides', () => {
    assert.equal(settings([], { SVC_TELEMETRY: '1' }, { telemetry: false }).telemetry, false);
    assert.equal(settings([], { SVC_TELEMETRY: 'no' }, { telemetry: true }).telemetry, false);
    assert.equal(settings([], {}, { telemetry: true }).telemetry, true);
  });
  test('SVC_HOME moves every default path', () => {
    const home = scratch();
    const s = settings([], { SVC_HOME: home });
    assert.equal(s.paths.databasePath, path.join(home, 'server', 'db', 'svc.db'));
    assert.equal(s.paths.sessionStoreDir, path.join(home, 'server', 'sessions'));
    assert.equal(s.secretStore.dir, path.join(home, 'server', 'secrets'));
  });
});

describe('tokens', () => {
  test('no token at all names every way to configure one', () => {
    assert.throws(
      () => parseCommand({ argv: [], env: {}, cwd: '/', homeDir: '/tmp', tmpDir: '/tmp', version: '0' }),
      (error: unknown) => error instanceof ConfigError && /SVC_SERVER_TOKEN/.test(error.message) && /api_tokens/.test(error.message) && /--allow-unauthenticated/.test(error.message),
    );
  });
  test('format, duplicates, roles and empty files are refused without echoing the token', () => {
    const dir = scratch();
    const file = (name: string, content: string) => {
      fs.writeFileSync(path.join(dir, name), content);
      return path.join(dir, name);
    };
    const short = 'short-token-value';
    refusal([], { SVC_SERVER_TOKEN: short }, undefined, /is 17 characters long/);
    refusal([], { SVC_SERVER_TOKEN: `${'b'.repeat(40)}!` }, undefined, /outside letters/);
    refusal([], {}, { api_tokens: [{ name: 'SVC_SERVER_TOKEN', role: 'user', token_file: file('t1', 'c'.repeat(40)) }] }, /used twice/);
    refusal([], {}, { api_tokens: [{ name: 'dup', role: 'user', token_file: file('t2', `${TOKEN}\n`) }] }, /same token/);
    refusal([], {}, { api_tokens: [{ name: 'x', role: 'root', token_file: file('t3', 'd'.repeat(40)) }] }, /role must be/);
    refusal([], {}, { api_tokens: [{ name: 'x', role: 'user', token_file: file('t4', '  \n') }] }, /empty/);
    const s = settings([], {}, { api_tokens: [{ name: 'harness', role: 'user', token_file: file('t5', `  ${'e'.repeat(40)}\n`) }] });
    assert.deepEqual(s.tokens.map((t) => [t.name, t.role]), [['SVC_SERVER_TOKEN', 'admin'], ['harness', 'user']]);
    assert.equal(s.tokens[0].digest.length, 32);
  });
});

describe('volumes, TLS and the store key', () => {
  test('volume declarations: complete, absolute, apart from server directories and each other', () => {
    refusal([], {}, { volumes: { v: { kind: 'managed-local' } } }, /size_limit/);
    refusal([], {}, { volumes: { v: { kind: 'local-path', path: 'relative', size_limit: '1MB' } } }, /absolute/);
    refusal([], {}, { volumes: { v: { kind: 'managed-local', path: '/x', size_limit: '1MB' } } }, /remove `path`/);
    const dir = scratch();
    refusal([], { SVC_HOME: dir }, { volumes: { v: { kind: 'local-path', path: path.join(dir, 'server', 'sessions', 'x'), size_limit: '1MB' } } }, /overlaps/);
    refusal([], {}, { volumes: { a: { kind: 'local-path', path: '/srv/data', size_limit: '1MB' }, b: { kind: 'local-path', path: '/srv/data', size_limit: '1MB' } } }, /same directory/);
    refusal([], {}, { volumes: { a: { kind: 'local-path', path: '/srv/data', size_limit: '1MB' }, b: { kind: 'local-path', path: '/srv/data/sub', size_limit: '1MB' } } }, /overlap/);
    const s = settings([], {}, { volumes: { notes: { kind: 'managed-local', size_limit: '500MB', access: 'read_only' } } });
    assert.deepEqual([s.volumes[0].sizeLimit, s.volumes[0].access], [500 * 1024 * 1024, 'read_only']);
  });
  test('TLS needs both files', () => {
    refusal([], { SVC_TLS_CERT_FILE: '/nonexistent.crt' }, undefined, /both tls\.cert_file and tls\.key_file/);
  });
  test('the store key is base64 of 32 bytes; the file wins over the variable', () => {
    refusal([], { SVC_SECRET_KEY: 'dG9vIHNob3J0' }, undefined, /32 bytes/);
    const dir = scratch();
    fs.writeFileSync(path.join(dir, 'key'), Buffer.alloc(32, 7).toString('base64'));
    const s = settings(['--secret-store-key-file', path.join(dir, 'key')], { SVC_SECRET_KEY: 'garbage' });
    assert.deepEqual(s.secretStore.key, Buffer.alloc(32, 7));
    refusal(['--secret-store-key-file', path.join(dir, 'missing')], {}, undefined, /cannot read the secret store key file/);
  });
});

describe('settings_hash', () => {
  test('an explicit default hashes like an omitted one; a change changes it; tokens are not part of it', () => {
    const home = { SVC_HOME: scratch() };
    const base = computeSettingsHash(settings([], home), '127.0.0.1:8128');
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.equal(computeSettingsHash(settings(['--max-execution-memory', '50', '--shutdown-grace', '5'], home), '127.0.0.1:8128'), base);
    assert.notEqual(computeSettingsHash(settings(['--max-execution-memory', '51'], home), '127.0.0.1:8128'), base);
    assert.equal(computeSettingsHash(settings([], { ...home, SVC_SERVER_TOKEN: 'f'.repeat(40) }), '127.0.0.1:8128'), base);
  });
});

test('--health-check reads the address only, without tokens', () => {
  const command = parseCommand({ argv: ['--health-check'], env: { SVC_PORT: '9999', SVC_BIND: '0.0.0.0' }, cwd: '/', homeDir: '/tmp', tmpDir: '/tmp', version: '0' });
  assert.deepEqual(command, { kind: 'health-check', target: { host: '127.0.0.1', port: 9999, tls: null } });
});
