// Startup: settings precedence for the listen address, every startup refusal exits
// non-zero naming the cause without writing anything under SVC_HOME, and a restarted
// server reads the type checker's code cache its first check wrote.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { listTree, newToken, runServerBinary, startServer, tempDir, type TestServer } from '../harness';
import { registerBlueprint } from '../support/sessions';
import { selfSignedCertificate } from '../support/tls';
import { eventually } from '../support/wait';

// Precedence itself is unit-tested (test/unit/config/precedence.test.ts); these show that
// the listener binds where the settings say.
describe('listen address precedence', () => {
  test('PORT alone binds 0.0.0.0', async () => {
    const server = await startServer({ env: { SVC_PORT: undefined, PORT: '0' } });
    try {
      const listening = server.logs({ msg: 'svc-server listening' })[0];
      assert.match(listening.addr, /^0\.0\.0\.0:\d+$/);
    } finally {
      await server.stop();
    }
  });

  test('a loopback bind in the config file survives an ambient PORT, and garbage HOST and PORT do not stop startup', async () => {
    const server = await startServer({ env: { SVC_PORT: undefined, HOST: 'not-an-address', PORT: 'eighty' }, config: { bind: '127.0.0.1', port: 0 } });
    try {
      const listening = server.logs({ msg: 'svc-server listening' })[0];
      assert.match(listening.addr, /^127\.0\.0\.1:\d+$/);
      assert.equal((await server.request('GET', '/healthz', { token: null })).status, 200);
    } finally {
      await server.stop();
    }
  });
});

interface Refusal {
  name: string;
  /** Prepares files in a scratch directory outside SVC_HOME; returns args and env. */
  setup: (scratch: string) => { args?: string[]; env?: Record<string, string | undefined>; config?: Record<string, unknown> };
  /** Text the error must contain. */
  mentions: RegExp;
}

const token = newToken();

const refusals: Refusal[] = [
  { name: 'a malformed SVC_PORT even when --port is given', setup: () => ({ args: ['--port', '0'], env: { SVC_PORT: 'abc', SVC_SERVER_TOKEN: token } }), mentions: /SVC_PORT/ },
  { name: 'an unknown config key', setup: () => ({ env: { SVC_SERVER_TOKEN: token }, config: { bogus_key: 1 } }), mentions: /bogus_key/ },
  { name: 'no token and no allow_unauthenticated', setup: () => ({ env: {} }), mentions: /SVC_SERVER_TOKEN[\s\S]*api_tokens[\s\S]*allow-unauthenticated|allow-unauthenticated[\s\S]*SVC_SERVER_TOKEN/ },
  { name: 'a token shorter than 32 characters', setup: () => ({ env: { SVC_SERVER_TOKEN: 'short-token' } }), mentions: /32/ },
  { name: 'tokens together with allow_unauthenticated', setup: () => ({ args: ['--allow-unauthenticated'], env: { SVC_SERVER_TOKEN: token } }), mentions: /token/i },
  {
    name: 'only one TLS file',
    setup: (scratch) => {
      const { certFile } = selfSignedCertificate(scratch);
      return { env: { SVC_SERVER_TOKEN: token, SVC_TLS_CERT_FILE: certFile } };
    },
    mentions: /tls/i,
  },
  {
    name: 'a TLS key that does not match the certificate',
    setup: (scratch) => {
      const a = selfSignedCertificate(scratch, 'a');
      const b = selfSignedCertificate(scratch, 'b');
      return { env: { SVC_SERVER_TOKEN: token, SVC_TLS_CERT_FILE: a.certFile, SVC_TLS_KEY_FILE: b.keyFile } };
    },
    mentions: /match/i,
  },
  { name: 'a bad allow_ip entry', setup: () => ({ env: { SVC_SERVER_TOKEN: token, SVC_ALLOW_IP: '10.0.0.0/99' } }), mentions: /SVC_ALLOW_IP/ },
  {
    name: 'an incomplete volume declaration',
    setup: () => ({ env: { SVC_SERVER_TOKEN: token }, config: { volumes: { notes: { kind: 'managed-local' } } } }),
    mentions: /size_limit/,
  },
  {
    name: 'an unreadable secret-store key file',
    setup: (scratch) => ({ env: { SVC_SERVER_TOKEN: token, SVC_SECRET_STORE_KEY_FILE: path.join(scratch, 'missing.key') } }),
    mentions: /key/i,
  },
  {
    name: 'a log file in a missing directory',
    setup: (scratch) => ({ env: { SVC_SERVER_TOKEN: token, SVC_LOG_FILE: path.join(scratch, 'no-such-dir', 'svc.log') } }),
    mentions: /log/i,
  },
];

describe('startup refusals leave SVC_HOME untouched', () => {
  for (const refusal of refusals) {
    test(`${refusal.name} stops startup with a message naming the cause`, async () => {
      const home = tempDir();
      const scratch = tempDir();
      const { args = [], env = {}, config } = refusal.setup(scratch);
      if (config) {
        const configPath = path.join(scratch, 'config.yaml');
        fs.writeFileSync(configPath, toYaml(config));
        args.push('--config', configPath);
      }
      const before = listTree(home);
      const result = await runServerBinary(args, { SVC_PORT: '0', ...env }, home);
      assert.equal(result.code, 1, `exit code; stderr: ${result.stderr}`);
      assert.match(result.stderr, /^error: /m);
      assert.match(result.stderr, refusal.mentions);
      assert.deepEqual(listTree(home), before);
      assert.ok(!result.stderr.includes(token), 'the token never appears in the message');
    });
  }

  test('an unknown flag is a usage error with exit status 2', async () => {
    const result = await runServerBinary(['--no-such-flag'], {}, tempDir());
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no-such-flag/);
  });

  test('--version prints the version and --help lists the flags', async () => {
    const version = await runServerBinary(['--version'], {}, tempDir());
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^svc-server \d+\.\d+\.\d+/);
    const help = await runServerBinary(['--help'], {}, tempDir());
    assert.equal(help.code, 0);
    for (const flag of ['--config', '--bind', '--port', '--tls-cert-file', '--health-check', '--shutdown-grace']) assert.ok(help.stdout.includes(flag), flag);
  });
});

describe("the type checker's code cache", () => {
  const cacheFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => /^typescript-[0-9a-f]{32}\.v8cache$/.test(name)) : []);
  /** A type error the checker must find: the answer names it whichever way TypeScript was loaded. */
  const typeError = async (server: TestServer, padding = '') => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'typed', code: `${padding}export function main() { return "text".lenght; }` } });
    assert.equal(reply.json?.error?.kind, 'compile_error', reply.text.slice(0, 500));
    assert.match(reply.json.error.message, /Property 'lenght' does not exist/);
  };

  test('the first typed run writes it (0600), a restart checks with it without writing it again, and a damaged one is replaced', async () => {
    const home = tempDir();
    const cacheDir = path.join(tempDir(), 'cache');
    // Programs over 1 KiB go to the second checker thread, which loads TypeScript again.
    const options = { home, env: { SVC_CODE_CACHE_DIR: cacheDir }, args: ['--typecheck-large-program', '1'] };
    const first = await startServer(options);
    try {
      await registerBlueprint(first, 'name: typed\ndefault: allow\n');
      assert.deepEqual(cacheFiles(cacheDir), [], 'no cache before any program is checked');
      await typeError(first);
      const [name] = await eventually('the code cache', () => (cacheFiles(cacheDir).length === 1 ? cacheFiles(cacheDir) : null));
      assert.equal(fs.statSync(path.join(cacheDir, name)).mode & 0o777, 0o600);
    } finally {
      await first.stop();
    }
    const [name] = cacheFiles(cacheDir);
    const file = path.join(cacheDir, name);
    const written = fs.statSync(file);

    const second = await startServer(options);
    try {
      await typeError(second);
      // The large-program thread starts after this and reads the same file: damage it first.
      assert.equal(fs.statSync(file).mtimeMs, written.mtimeMs, 'a cache V8 accepted is not written again');
      const damaged = Buffer.alloc(4096, 7);
      fs.writeFileSync(file, damaged);
      await typeError(second, `// ${'padding '.repeat(200)}\n`);
      // V8 refused it; the new one holds what that thread compiled (not the same bytes as the first).
      await eventually('the damaged cache replaced', () => fs.statSync(file).size > 1024 * 1024 && !fs.readFileSync(file).equals(damaged));
      assert.deepEqual(cacheFiles(cacheDir), [name]);
      assert.deepEqual(second.logs({ level: 'warn', target: 'svc_server::typecheck' }), []);
    } finally {
      await second.stop();
    }
  });
});
