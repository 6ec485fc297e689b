// The YAML config file: empty and null documents, a non-mapping top level, unknown keys
// at every level naming the accepted ones, YAML errors, anchors, logging and telemetry.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { refused, scratch, serve, settingsOf, writeFile } from './support';

describe('document shape', () => {
  test('an empty file means all defaults', () => {
    const s = settingsOf({ config: '' });
    assert.deepEqual([s.bind, s.port, s.limits.max_execution_memory], ['127.0.0.1', 8128, 50]);
  });
  test('a null document means all defaults', () => {
    assert.equal(settingsOf({ config: '~\n' }).port, 8128);
    assert.equal(settingsOf({ config: '# only a comment\n' }).port, 8128);
  });
  test('a top level that is not a mapping stops startup', () => {
    refused({ config: '- port: 1\n' }, /top level must be a mapping/);
    refused({ config: 'just text\n' }, /top level must be a mapping/);
  });
  test('invalid YAML stops startup naming the file', () => {
    refused({ config: 'port: [1\n' }, /config file .*config\.yaml is not valid YAML/);
  });
  test('a duplicated key is invalid YAML', () => {
    refused({ config: 'port: 1\nport: 2\n' }, /not valid YAML/);
  });
  test('an unreadable config file stops startup naming it', () => {
    const dir = scratch();
    refused({ dir, argv: ['--config', path.join(dir, 'missing.yaml')] }, /cannot read config file .*missing\.yaml/);
  });
  test('anchors and aliases work like their values', () => {
    const s = settingsOf({ config: 'port: &p 4321\nnetwork:\n  allow_ip: [&a 10.0.0.1]\nmcp_allowed_hosts: [*a]\nshutdown_grace: 7\nmax_execution_time: *p\n' });
    assert.deepEqual([s.port, s.limits.max_execution_time, [...s.mcpAllowedHosts]], [4321, 4321, ['10.0.0.1']]);
  });
  test('a null value counts as unset', () => {
    assert.equal(settingsOf({ config: 'port:\ntls:\nlogging:\n' }).port, 8128);
  });
});

describe('unknown keys', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp[]]> = [
    ['the top level', { prot: 8128 }, [/unknown key `prot`/, /accepted keys: .*\bport\b/]],
    ['tls', { tls: { cert: 'x' } }, [/unknown key `tls\.cert`/, /cert_file, key_file/]],
    ['secret_store', { secret_store: { key: 'x' } }, [/unknown key `secret_store\.key`/, /dir, key_file, key_env/]],
    ['network', { network: { allow_ips: [] } }, [/unknown key `network\.allow_ips`/, /allow_ip, allow_localhost, allow_private/]],
    ['logging', { logging: { level: 'debug' } }, [/unknown key `logging\.level`/, /file, audit/]],
    ['logging.audit', { logging: { audit: { enable: true } } }, [/unknown key `logging\.audit\.enable`/, /enabled, file, allows/]],
    ['mcp_oauth', { mcp_oauth: { provider: [] } }, [/unknown key `mcp_oauth\.provider`/, /providers/]],
    ['an OAuth provider', { mcp_oauth: { providers: [{ match: 'a.test', client_id: 'x', secret: 'y' }] } }, [/unknown key `mcp_oauth\.providers\[0\]\.secret`/, /match, client_id, client_secret, scopes/]],
    ['an api_tokens entry', { api_tokens: [{ name: 'x', role: 'user', token_file: 'f', file: 'g' }] }, [/unknown key `api_tokens\[0\]\.file`/, /name, role, token_file/]],
    ['a volume', { volumes: { v: { kind: 'managed-local', size_limit: '1MB', size: 1 } } }, [/unknown key `volumes\.v\.size`/, /kind, path, access, size_limit/]],
  ];
  for (const [where, config, patterns] of cases) {
    test(`an unknown key in ${where} stops startup naming it and the accepted keys`, () => {
      refused({ config }, patterns);
    });
  }
  test('a nested block that is not a mapping is refused', () => {
    refused({ config: { tls: 'yes' } }, /config `tls`: expected a mapping/);
  });
});

describe('logging', () => {
  test('logging.file defaults to standard output and the audit settings to their defaults', () => {
    const s = settingsOf();
    assert.deepEqual(s.logging, { file: null, filter: null, audit: { enabled: true, file: null, allows: 'summary' } });
  });
  test('logging.file is created for appending when its directory exists, contents kept', () => {
    const dir = scratch();
    const existing = writeFile(dir, 'old.log', 'kept\n');
    assert.equal(settingsOf({ dir, argv: ['--log-file', 'old.log'] }).logging.file, existing);
    assert.equal(fs.readFileSync(existing, 'utf8'), 'kept\n');
    const fresh = settingsOf({ dir, env: { SVC_LOG_FILE: 'new.log' } }).logging.file!;
    assert.equal(fs.statSync(fresh).isFile(), true);
  });
  test('a log file in a missing directory stops startup', () => {
    const dir = scratch();
    refused({ dir, argv: ['--log-file', 'nope/svc.log'] }, /cannot open server log .*nope.svc\.log/);
    assert.equal(fs.existsSync(path.join(dir, 'nope')), false);
  });
  test('a directory as log file stops startup', () => {
    const dir = scratch();
    refused({ dir, config: { logging: { file: '.' } } }, /cannot open server log .*not a regular file/);
  });
  test('audit settings come from the file', () => {
    const dir = scratch();
    const s = settingsOf({ dir, config: { logging: { audit: { enabled: false, file: 'audit.log', allows: 'all' } } } });
    assert.deepEqual(s.logging.audit, { enabled: false, file: path.join(dir, 'audit.log'), allows: 'all' });
  });
  test('logging.audit.allows accepts only summary, all or none', () => {
    refused({ config: { logging: { audit: { allows: 'some' } } } }, /config `logging\.audit\.allows`: expected `summary`, `all` or `none`, got `some`/);
  });
  test('an audit file that cannot be opened does not stop startup: a warning instead, nothing created', () => {
    const dir = scratch();
    const { settings, warnings } = serve({ dir, config: { logging: { audit: { file: 'missing-dir/audit.log' } } } });
    assert.equal(settings.logging.audit.file, path.join(dir, 'missing-dir', 'audit.log'));
    assert.ok(warnings.some((w) => /audit file/.test(w.msg) && w.fields?.file === settings.logging.audit.file));
    assert.equal(fs.existsSync(path.join(dir, 'missing-dir')), false);
  });
});

describe('telemetry', () => {
  const cases: Array<[string, Record<string, string>, Record<string, unknown> | undefined, boolean]> = [
    ['off by default', {}, undefined, false],
    ['the variable turns it on', { SVC_TELEMETRY: 'yes' }, undefined, true],
    ['false in the file vetoes the variable', { SVC_TELEMETRY: '1' }, { telemetry: false }, false],
    ['a false-ish variable turns off a file true', { SVC_TELEMETRY: 'nope' }, { telemetry: true }, false],
    ['the file decides when the variable is unset', {}, { telemetry: true }, true],
    ['an empty variable counts as unset', { SVC_TELEMETRY: '' }, { telemetry: true }, true],
  ];
  for (const [name, env, config, expected] of cases) {
    test(`telemetry: ${name}`, () => {
      assert.equal(settingsOf({ env, config }).telemetry, expected);
    });
  }
  test('telemetry_include_source follows the same rule and needs telemetry on', () => {
    assert.equal(settingsOf({ env: { SVC_TELEMETRY: '1', SVC_TELEMETRY_INCLUDE_SOURCE: '1' } }).telemetryIncludeSource, true);
    assert.equal(settingsOf({ env: { SVC_TELEMETRY_INCLUDE_SOURCE: '1' } }).telemetryIncludeSource, false);
    assert.equal(settingsOf({ env: { SVC_TELEMETRY: '1', SVC_TELEMETRY_INCLUDE_SOURCE: '1' }, config: { telemetry_include_source: false } }).telemetryIncludeSource, false);
  });
});

describe('github_token_file', () => {
  test('must exist and be non-empty; resolved against the config file', () => {
    const dir = scratch();
    writeFile(dir, 'gh-token', 'ghp_example\n');
    assert.equal(settingsOf({ dir, config: { github_token_file: 'gh-token' } }).githubTokenFile, path.join(dir, 'gh-token'));
    refused({ dir, config: { github_token_file: 'absent' } }, /github_token_file .*absent/);
    writeFile(dir, 'empty', ' \n');
    refused({ dir, config: { github_token_file: 'empty' } }, /github_token_file .*empty is empty/);
  });
});
