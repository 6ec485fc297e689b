// bin/svc against a real server (and with none): Blueprints, secrets, server status and
// stop, the token sources and the 401/403/"no server" messages, exit statuses 0/1/2, and
// the server's state after each command.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { START_TIMEOUT_MS, runSvc, runSvcInTerminal, serverEnv } from '../support/cli';

const VALUE = `canary-${randomBytes(8).toString('hex')}`;

async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
}

describe('svc without a server', () => {
  test('status fails with "no server at <URL>", stop succeeds as already stopped; help exits 0 with an example', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const status = await runSvc(['server', 'status', '--server', url]);
    assert.equal(status.code, 1);
    assert.match(status.stderr, new RegExp(`^error: no server at ${url}\\n`));
    const stop = await runSvc(['server', 'stop'], { env: { SVC_SERVER_URL: url } });
    assert.equal(stop.code, 0);
    assert.equal(stop.stdout, `already stopped (no server at ${url})\n`);
    const list = await runSvc(['blueprint', 'list'], { env: { SVC_SERVER_URL: url } });
    assert.equal(list.code, 1);
    assert.match(list.stderr, /no server at/);

    // test/unit/cli/help.test.ts checks every command's help in-process.
    for (const command of [[], ['blueprint', 'apply']]) {
      const help = await runSvc([...command, '--help']);
      assert.equal(help.code, 0, command.join(' '));
      assert.match(help.stdout, /Examples?:\n {2}\$ svc /, `${command.join(' ')} has an example`);
    }
  });

  test('usage errors exit 2: unknown command, missing argument, a malformed --server URL, an empty token file', async () => {
    assert.equal((await runSvc(['frobnicate'])).code, 2);
    const missing = await runSvc(['blueprint', 'show']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing required argument 'name'/);
    const badUrl = await runSvc(['server', 'status', '--server', 'ftp://x']);
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /--server: expected an http:\/\/ or https:\/\/ URL, got `ftp:\/\/x`/);
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'empty.token'), '\n');
    const empty = await runSvc(['server', 'status', '--token-file', path.join(dir, 'empty.token')]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /token file .*empty\.token is empty/);
  });
});

describe('svc against a server', () => {
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    server = await startServer({ env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') }, timeoutMs: START_TIMEOUT_MS });
    dir = tempDir('svc-cli-files-');
    env = serverEnv(server);
  });
  after(async () => server.stop());

  test('the token comes from --token-file, then SVC_SERVER_TOKEN_FILE, then SVC_SERVER_TOKEN; 401 and 403 say what to do', async () => {
    const none = await runSvc(['server', 'status'], { env: { SVC_SERVER_URL: server.url } });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /needs a token and none was given/);
    assert.match(none.stderr, /SVC_SERVER_TOKEN_FILE/);
    const wrong = await runSvc(['server', 'status'], { env: { ...env, SVC_SERVER_TOKEN: 'x'.repeat(40) } });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /did not accept the token in SVC_SERVER_TOKEN/);
    assert.ok(!wrong.stderr.includes('x'.repeat(40)), 'the token is never printed');

    fs.writeFileSync(path.join(dir, 'admin.token'), `  ${server.adminToken}\n`);
    fs.writeFileSync(path.join(dir, 'user.token'), server.userToken);
    // A file wins over the variable, the option over the file variable.
    const fromFile = await runSvc(['server', 'status'], { env: { ...env, SVC_SERVER_TOKEN: 'y'.repeat(40), SVC_SERVER_TOKEN_FILE: path.join(dir, 'admin.token') } });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const fromOption = await runSvc(['server', 'status', '--token-file', path.join(dir, 'admin.token')], { env: { ...env, SVC_SERVER_TOKEN_FILE: path.join(dir, 'user.token') } });
    assert.equal(fromOption.code, 0, fromOption.stderr);
    const user = await runSvc(['server', 'status', '--token-file', path.join(dir, 'user.token')], { env: { SVC_SERVER_URL: server.url } });
    assert.equal(user.code, 1);
    assert.match(user.stderr, /^error: .*admin.*user/m);
    assert.equal(server.audit({ type: 'auth', reason: 'admin_required' }).length >= 1, true);
  });

  test('apply adds then updates, continues past an invalid file and names its line, column and path; the server holds only the valid ones', async () => {
    writeFiles(dir, {
      'alpha.yaml': '# alpha\nname: alpha\nvfs: per_session\npermissions:\n  main:\n    - {capability: fs.read, action: allow}\n',
      'broken.yaml': 'name: broken\npermissions:\n  main:\n    - capability: fs.read\n      filter: path glob\n      action: allow\n',
      'beta.yaml': 'name: beta\ndefault: allow\n',
    });
    const first = await runSvc(['blueprint', 'apply', 'alpha.yaml', 'broken.yaml', 'beta.yaml'], { env, cwd: dir });
    assert.equal(first.code, 1);
    assert.equal(first.stdout, "Added blueprint 'alpha'\nAdded blueprint 'beta'\n");
    assert.match(first.stderr, /^error: broken\.yaml:5:15: blueprint parse error: invalid filter/m);
    assert.match(first.stderr, /at permissions\.main\[0\]\.filter/);
    assert.match(first.stderr, /svc blueprint lint broken\.yaml/);
    const names = (await server.request('GET', '/v1/blueprints')).json.blueprints.map((b: { name: string }) => b.name);
    assert.deepEqual(names, ['alpha', 'beta']);

    const again = await runSvc(['blueprint', 'apply', 'alpha.yaml'], { env, cwd: dir });
    assert.deepEqual([again.code, again.stdout], [0, "Updated blueprint 'alpha'\n"]);
    assert.equal(server.audit({ type: 'admin', event: 'blueprint_replaced', name: 'alpha' }).length, 1);
  });

  test('add refuses a registered name and suggests apply; a server-side check failure names the file and the next step', async () => {
    writeFiles(dir, { 'gamma.yaml': 'name: gamma\n', 'stored.yaml': 'name: stored\nsecrets:\n  API: {store: missing_key}\n' });
    const added = await runSvc(['blueprint', 'add', 'gamma.yaml'], { env, cwd: dir });
    assert.deepEqual([added.code, added.stdout], [0, "Added blueprint 'gamma'\n"]);
    const twice = await runSvc(['blueprint', 'add', 'gamma.yaml'], { env, cwd: dir });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /already registered/);
    assert.match(twice.stderr, /svc blueprint apply gamma\.yaml/);
    const unresolved = await runSvc(['blueprint', 'add', 'stored.yaml'], { env, cwd: dir });
    assert.equal(unresolved.code, 1);
    assert.match(unresolved.stderr, /^error: stored\.yaml:3:8: secret check failed: missing secret 'API'/m);
    assert.match(unresolved.stderr, /svc secret put/);
    assert.equal((await server.request('GET', '/v1/blueprints/stored')).status, 404);
  });

  test('list prints one aligned line per Blueprint and --json the summaries; show prints the stored text byte for byte', async () => {
    const list = await runSvc(['blueprint', 'list'], { env });
    assert.equal(list.code, 0);
    const lines = list.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.map((l) => l.split(/\s+/)[0]), ['alpha', 'beta', 'gamma']);
    assert.match(lines[0], /^alpha\s+vfs=per_session\s+default=deny\s+rules=1\s+packages=-$/);
    assert.match(lines[1], /^beta\s+vfs=ephemeral\s+default=allow\s+rules=0\s+packages=-$/);
    assert.equal(new Set(lines.map((l) => l.indexOf('vfs='))).size, 1, 'columns line up');
    const json = await runSvc(['blueprint', 'list', '--json'], { env });
    assert.deepEqual(JSON.parse(json.stdout), (await server.request('GET', '/v1/blueprints')).json.blueprints);
    const show = await runSvc(['blueprint', 'show', 'alpha'], { env });
    assert.equal(show.stdout, fs.readFileSync(path.join(dir, 'alpha.yaml'), 'utf8'));
    const unknown = await runSvc(['blueprint', 'show', 'nope'], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /blueprint 'nope' is not registered/);
  });

  test('remove ends the Blueprint\'s sessions; removing an unknown name fails', async () => {
    const session = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'gamma' } });
    assert.equal(session.status, 200);
    const removed = await runSvc(['blueprint', 'remove', 'gamma'], { env });
    assert.deepEqual([removed.code, removed.stdout], [0, "Removed blueprint 'gamma'; its open sessions were ended\n"]);
    assert.equal((await server.request('GET', '/v1/blueprints/gamma')).status, 404);
    assert.equal((await server.request('POST', `/v1/sessions/${session.json.session_id}/execute`, { token: server.userToken, body: { code: 'export function main() {}' } })).status, 404);
    assert.equal((await runSvc(['blueprint', 'remove', 'gamma'], { env })).code, 1);
  });

  test('secret put reads the value from standard input (never an argument); the store then resolves it; delete removes it', async () => {
    const put = await runSvc(['secret', 'put', 'team/api'], { env, stdin: `${VALUE}\n` });
    assert.deepEqual([put.code, put.stdout], [0, "Stored secret 'team/api'\n"]);
    assert.deepEqual((await server.request('GET', '/v1/secrets')).json.keys, ['team/api']);
    const uses = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: uses-secret\nsecrets:\n  API: {store: team/api}\n' } });
    assert.equal(uses.status, 200, uses.text);
    const emptyValue = await runSvc(['secret', 'put', 'other'], { env, stdin: '' });
    assert.equal(emptyValue.code, 1);
    assert.match(emptyValue.stderr, /empty/);
    const badKey = await runSvc(['secret', 'put', '../x'], { env, stdin: 'v' });
    assert.equal(badKey.code, 1);
    assert.match(badKey.stderr, /A–Z a–z 0–9/);
    const deleted = await runSvc(['secret', 'delete', 'team/api'], { env });
    assert.deepEqual([deleted.code, deleted.stdout], [0, "Deleted secret 'team/api'\n"]);
    assert.deepEqual((await server.request('GET', '/v1/secrets')).json.keys, []);
    assert.equal((await runSvc(['secret', 'delete', 'team/api'], { env })).code, 1);
    for (const line of server.lines()) assert.ok(!line.includes(VALUE), 'the value reached the server log');
  });

  test('on a terminal, secret put prompts with echo off: the typed value (Backspace edits it) is stored and never shown', async () => {
    const typed = `${VALUE}x\\x7f\\r`;
    const run = await runSvcInTerminal(['secret', 'put', 'typed/key'], 'input hidden', typed, { env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Value for secret 'typed\/key' \(input hidden\): \r?\n/);
    assert.match(run.stdout, /Stored secret 'typed\/key'/);
    assert.ok(!run.stdout.includes(VALUE), 'the typed value was echoed');
    assert.deepEqual((await server.request('GET', '/v1/secrets?prefix=typed')).json.keys, ['typed/key']);
  });

  test('server status prints aligned fields with the registered Blueprints', async () => {
    const status = await runSvc(['server', 'status'], { env });
    assert.equal(status.code, 0, status.stderr);
    const port = server.url.split(':').pop();
    assert.equal(
      status.stdout,
      `status:          running\nbind:            127.0.0.1:${port}\npid:             ${server.child.pid}\nactive sessions: 0\nblueprints:      alpha, beta, uses-secret\n`,
    );
  });
});

test('server stop asks the server to drain: it exits and audits shutdown_requested', async () => {
  const server = await startServer({ timeoutMs: START_TIMEOUT_MS });
  try {
    const stop = await runSvc(['server', 'stop'], { env: serverEnv(server) });
    assert.deepEqual([stop.code, stop.stdout], [0, `Stopping svc-server at ${server.url}\n`]);
    assert.equal(await server.exited(), 0);
    assert.equal(server.audit({ type: 'admin', event: 'shutdown_requested' }).length, 1);
  } finally {
    await server.stop();
  }
});
