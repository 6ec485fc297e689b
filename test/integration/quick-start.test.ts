// The README's quick start reaches a result: the second-terminal block, exactly as the
// README prints it, runs in a shell against a real server started as the first block
// starts it (admin token, secret store key in SVC_SECRET_KEY, a 60 s time limit).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, startServer, tempDir, type TestServer } from '../harness';
import { START_TIMEOUT_MS } from '../support/cli';

const MARKER = '<!-- quick-start: test/integration/quick-start.test.ts runs this block -->';

function quickStartBlock(): string {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  assert.ok(at >= 0, 'the README marks the quick start block');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, 'a sh block follows the marker');
  return block[1];
}

describe('the README quick start', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ runners: 1, args: ['--max-execution-time', '60'], env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') }, timeoutMs: START_TIMEOUT_MS });
  });
  after(async () => server?.stop());

  test('registers a Blueprint, runs hello world, stores a secret and runs over HTTP', async () => {
    const cwd = tempDir();
    fs.symlinkSync(path.join(repoRoot, 'bin'), path.join(cwd, 'bin'));
    const script = quickStartBlock().replaceAll('localhost:8128', `127.0.0.1:${server.port}`);
    const shell = spawnSync('sh', ['-e', '-c', script], {
      cwd,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, SVC_SERVER_TOKEN: server.adminToken, SVC_SERVER_URL: server.url },
    });
    assert.equal(shell.status, 0, shell.stdout + shell.stderr);
    assert.match(shell.stdout, /^Added blueprint 'hello'$/m);
    assert.match(shell.stdout, /^hello, world$/m);
    assert.match(shell.stdout, /^Stored secret 'demo_key'$/m);
    const http = JSON.parse(shell.stdout.slice(shell.stdout.lastIndexOf('{"')));
    assert.equal(http.result, '42');
    assert.equal(http.error, null);
    // A Blueprint without `default` denies, and the JSON view says so as the text view does.
    const list = spawnSync(path.join(repoRoot, 'bin', 'svc'), ['blueprint', 'list', '--json'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, SVC_SERVER_TOKEN: server.adminToken, SVC_SERVER_URL: server.url } });
    assert.equal(list.status, 0, list.stderr);
    assert.equal(JSON.parse(list.stdout).find((b: { name: string }) => b.name === 'hello').default_action, 'deny');
    const secrets = await server.request('GET', '/v1/secrets');
    assert.ok(JSON.stringify(secrets.json).includes('demo_key'), secrets.text);
  });
});
