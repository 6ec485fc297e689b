// Sources and precedence: flag > SVC_* variable > config file > HOST/PORT > default, the
// bind/port exceptions, path resolution, SVC_HOME, and the command line's own rules.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseCommand } from '../../../src/config';
import { refused, run, scratch, settingsOf, serve, TOKEN, writeFile } from './support';

describe('bind and port ladder', () => {
  const cases: Array<{ name: string; argv?: string[]; env?: Record<string, string>; config?: Record<string, unknown>; bind: string; port: number }> = [
    { name: 'defaults are loopback only', bind: '127.0.0.1', port: 8128 },
    { name: 'PORT alone binds every interface', env: { PORT: '9000' }, bind: '0.0.0.0', port: 9000 },
    { name: 'a file bind survives an ambient PORT', env: { PORT: '9000' }, config: { bind: '127.0.0.1' }, bind: '127.0.0.1', port: 9000 },
    { name: 'a file port beats PORT, and PORT still opens the bind', env: { PORT: '9000' }, config: { port: 7000 }, bind: '0.0.0.0', port: 7000 },
    { name: 'SVC_BIND names the address despite PORT', env: { PORT: '9000', SVC_BIND: '10.1.2.3' }, bind: '10.1.2.3', port: 9000 },
    { name: '--bind names the address despite PORT', argv: ['--bind', '::1'], env: { PORT: '9000' }, bind: '::1', port: 9000 },
    { name: 'a parseable HOST names the address', env: { PORT: '9000', HOST: '192.168.1.5' }, bind: '192.168.1.5', port: 9000 },
    { name: 'HOST alone moves the bind', env: { HOST: '::' }, bind: '::', port: 8128 },
    { name: 'garbage HOST and PORT are ignored, PORT still opens the bind', env: { HOST: 'not-an-ip', PORT: 'abc' }, bind: '0.0.0.0', port: 8128 },
    { name: 'a host name in HOST is ignored', env: { HOST: 'localhost', PORT: '1' }, bind: '0.0.0.0', port: 1 },
    { name: 'an empty PORT counts as unset', env: { PORT: '  ' }, bind: '127.0.0.1', port: 8128 },
    { name: 'flag beats variable beats file beats PORT', argv: ['--port', '1'], env: { SVC_PORT: '2', PORT: '4' }, config: { port: 3 }, bind: '0.0.0.0', port: 1 },
    { name: 'variable beats file', env: { SVC_PORT: '2' }, config: { port: 3 }, bind: '127.0.0.1', port: 2 },
    { name: 'port 0 lets the OS choose', argv: ['--port', '0'], bind: '127.0.0.1', port: 0 },
    { name: 'the last of a repeated flag wins', argv: ['--port', '5', '--port=6'], bind: '127.0.0.1', port: 6 },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const s = settingsOf({ argv: c.argv, env: c.env, config: c.config });
      assert.deepEqual([s.bind, s.port], [c.bind, c.port]);
    });
  }

  test('a malformed SVC_PORT stops startup even when --port is given', () => {
    refused({ argv: ['--port', '1'], env: { SVC_PORT: 'abc' } }, /\$SVC_PORT: expected a port number, got `abc`/);
  });
  test('a malformed lower-ranked variable stops startup even when a flag wins', () => {
    refused({ argv: ['--max-execution-fuel', '10'], env: { SVC_MAX_EXECUTION_FUEL: '1.5M' } }, /\$SVC_MAX_EXECUTION_FUEL/);
    refused({ argv: ['--bind', '127.0.0.1'], env: { SVC_BIND: 'localhost' } }, /\$SVC_BIND: expected an IP address, got `localhost`/);
  });
  test('a malformed file value stops startup even when a variable wins', () => {
    refused({ env: { SVC_PORT: '1' }, config: { port: 70000 } }, /config `port`: expected a port number/);
  });
  test('SVC_* variables that are not settings are ignored', () => {
    assert.equal(settingsOf({ env: { SVC_SOMETHING_ELSE: 'x' } }).port, 8128);
  });
});

describe('config file location and paths', () => {
  test('SVC_CONFIG names the file; --config wins over it', () => {
    const dir = scratch();
    const a = writeFile(dir, 'a.yaml', 'port: 1111\n');
    const b = writeFile(dir, 'b.yaml', 'port: 2222\n');
    assert.equal(settingsOf({ dir, env: { SVC_CONFIG: a } }).port, 1111);
    assert.equal(settingsOf({ dir, argv: ['--config', b], env: { SVC_CONFIG: a } }).port, 2222);
  });
  test('a relative --config resolves against the working directory', () => {
    const dir = scratch();
    writeFile(dir, 'sub/c.yaml', 'port: 3333\n');
    const s = settingsOf({ dir, argv: ['--config', 'sub/c.yaml'] });
    assert.equal(s.port, 3333);
    assert.equal(s.configFile, path.join(dir, 'sub', 'c.yaml'));
  });
  test('relative paths in the file resolve against its directory; in flags and variables against cwd', () => {
    const dir = scratch();
    writeFile(dir, 'conf/c.yaml', 'database_path: data/svc.db\nblueprint_dir: bp\n');
    const s = settingsOf({ dir, argv: ['--config', 'conf/c.yaml', '--session-store-dir', 'sess'], env: { SVC_VOLUME_DIR: 'vols' } });
    assert.equal(s.paths.databasePath, path.join(dir, 'conf', 'data', 'svc.db'));
    assert.equal(s.paths.blueprintDir, path.join(dir, 'conf', 'bp'));
    assert.equal(s.paths.sessionStoreDir, path.join(dir, 'sess'));
    assert.equal(s.paths.volumeDir, path.join(dir, 'vols'));
  });
  test('a variable path overrides the file path and resolves against cwd', () => {
    const dir = scratch();
    const s = settingsOf({ dir, config: { package_store_dir: 'from-file' }, env: { SVC_PACKAGE_STORE_DIR: 'from-env' } });
    assert.equal(s.paths.packageStoreDir, path.join(dir, 'from-env'));
  });
  test('`~` is not expanded', () => {
    const dir = scratch();
    assert.equal(settingsOf({ dir, argv: ['--blueprint-dir', '~/bp'] }).paths.blueprintDir, path.join(dir, '~', 'bp'));
  });
});

describe('SVC_HOME and default paths', () => {
  test('SVC_HOME moves the base of every default path', () => {
    const home = scratch();
    const s = settingsOf({ env: { SVC_HOME: home } });
    assert.equal(s.home, home);
    assert.deepEqual(
      [s.paths.databasePath, s.paths.blueprintDir, s.paths.sessionStoreDir, s.paths.vfsSessionDir, s.paths.packageStoreDir, s.paths.packageFallbackDir, s.paths.volumeDir, s.secretStore.dir],
      [
        path.join(home, 'server', 'db', 'svc.db'),
        path.join(home, 'server', 'blueprints'),
        path.join(home, 'server', 'sessions'),
        path.join(home, 'server', 'vfs', 'sessions'),
        path.join(home, 'server', 'packages'),
        path.join(home, 'packages'),
        path.join(home, 'server', 'volumes'),
        path.join(home, 'server', 'secrets'),
      ],
    );
    assert.equal(s.paths.vfsEphemeralDir, os.tmpdir());
    assert.equal(s.paths.vfsEphemeralDirExplicit, false);
  });
  test('without SVC_HOME the base is ~/.svc', () => {
    const user = scratch();
    assert.equal(settingsOf({ homeDir: user }).home, path.join(user, '.svc'));
  });
  test('with no home directory the base is <tmp>/svc-home, with a warning', () => {
    const { settings, warnings } = serve({ homeDir: null });
    assert.equal(settings.home, path.join(os.tmpdir(), 'svc-home'));
    assert.ok(warnings.some((w) => /home directory/.test(w.msg)));
  });
  test('an empty SVC_HOME counts as unset', () => {
    const user = scratch();
    assert.equal(settingsOf({ homeDir: user, env: { SVC_HOME: '' } }).home, path.join(user, '.svc'));
  });
  test('parsing creates nothing under the state directories', () => {
    const home = scratch();
    settingsOf({ env: { SVC_HOME: home } });
    assert.deepEqual(fs.readdirSync(home), []);
  });
});

describe('command line', () => {
  test('--help lists every flag with its meaning', () => {
    const command = run({ argv: ['--help'] });
    assert.equal(command.kind, 'help');
    const text = (command as { text: string }).text;
    for (const flag of ['--config', '--bind', '--port', '--tls-cert-file', '--tls-key-file', '--allow-unauthenticated', '--mcp-allowed-host', '--database-path', '--blueprint-dir', '--session-store-dir', '--vfs-session-dir', '--vfs-ephemeral-dir', '--package-store-dir', '--volume-dir', '--secret-store-dir', '--secret-store-key-file', '--secret-store-key-env', '--allow-ip', '--add-host', '--allow-localhost', '--allow-private', '--max-execution-memory', '--max-execution-time', '--max-execution-fuel', '--max-execution-stack', '--max-session-state-memory', '--max-llm-tokens', '--max-execution-llm-tokens', '--max-llm-concurrency', '--max-embedding-tokens', '--max-execution-embedding-tokens', '--max-execution-embedding-requests', '--max-embedding-concurrency', '--log-file', '--shutdown-grace', '--runner-pool-size', '--health-check', '--help', '--version']) {
      assert.match(text, new RegExp(`^  ${flag}\\b.*\\S`, 'm'), flag);
    }
    assert.match(text, /SVC_ADD_HOSTS/);
  });
  test('--version prints svc-server and the version given', () => {
    assert.deepEqual(run({ argv: ['--version'] }), { kind: 'version', text: 'svc-server 1.2.3' });
  });
  test('--help needs no token and reads no config', () => {
    const command = parseCommand({ argv: ['--help'], env: {}, cwd: '/', homeDir: null, tmpDir: os.tmpdir(), version: '0' });
    assert.equal(command.kind, 'help');
  });
  const usageCases: Array<[string, string[], RegExp]> = [
    ['an unknown flag', ['--bogus'], /unknown flag --bogus/],
    ['a flag with no value at the end', ['--port'], /--port needs a value/],
    ['a flag followed by another flag', ['--port', '--bind', '::1'], /--port needs a value/],
    ['a boolean flag with a value', ['--allow-localhost=yes'], /--allow-localhost takes no value/],
    ['a positional argument', ['serve'], /unexpected argument `serve`/],
  ];
  for (const [name, argv, pattern] of usageCases) {
    test(`${name} is a usage error`, () => {
      refused({ argv }, pattern, 'usage');
    });
  }
  test('--flag=value and --flag value mean the same', () => {
    assert.equal(settingsOf({ argv: ['--shutdown-grace=9'] }).shutdownGraceSeconds, 9);
    assert.equal(settingsOf({ argv: ['--shutdown-grace', '9'] }).shutdownGraceSeconds, 9);
  });
  test('repeatable flags collect every occurrence and comma lists', () => {
    const s = settingsOf({ argv: ['--allow-ip', '10.0.0.1,10.0.0.2', '--allow-ip=10.0.0.3', '--mcp-allowed-host', 'a.test', '--mcp-allowed-host', 'b.test:1,c.test'] });
    assert.deepEqual([...s.network.allowIp].sort(), ['10.0.0.1/32', '10.0.0.2/32', '10.0.0.3/32']);
    assert.deepEqual([...s.mcpAllowedHosts].sort(), ['a.test', 'b.test:1', 'c.test']);
  });
  test('settings are frozen', () => {
    const s = settingsOf();
    assert.throws(() => {
      (s as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (s.limits as { max_execution_fuel: number }).max_execution_fuel = 1;
    }, TypeError);
  });
  test('the default token in these tests is the admin SVC_SERVER_TOKEN', () => {
    assert.deepEqual(settingsOf().tokens.map((t) => [t.name, t.role]), [['SVC_SERVER_TOKEN', 'admin']]);
    assert.equal(TOKEN.length, 40);
  });
});
