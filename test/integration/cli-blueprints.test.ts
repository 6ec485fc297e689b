// bin/svc blueprint apply/add/list/show/remove and server status against a real server:
// output, exit status, file:line:col diagnostics with the next step, and the server's
// state after each command. `apply` runs as a process; the other verbs' output checks run
// in-process (svcInProcess).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { START_TIMEOUT_MS, runSvc, serverEnv, svcInProcess } from '../support/cli';

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
}

describe('svc blueprint against a server', () => {
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    server = await startServer({ env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') }, timeoutMs: START_TIMEOUT_MS });
    dir = tempDir('svc-cli-files-');
    env = serverEnv(server);
  });
  after(async () => server.stop());

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
    const added = await svcInProcess(['blueprint', 'add', 'gamma.yaml'], { env, cwd: dir });
    assert.deepEqual([added.code, added.stdout], [0, "Added blueprint 'gamma'\n"]);
    const twice = await svcInProcess(['blueprint', 'add', 'gamma.yaml'], { env, cwd: dir });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /already registered/);
    assert.match(twice.stderr, /svc blueprint apply gamma\.yaml/);
    const unresolved = await svcInProcess(['blueprint', 'add', 'stored.yaml'], { env, cwd: dir });
    assert.equal(unresolved.code, 1);
    assert.match(unresolved.stderr, /^error: stored\.yaml:3:8: secret check failed: missing secret 'API'/m);
    assert.match(unresolved.stderr, /svc secret put/);
    assert.equal((await server.request('GET', '/v1/blueprints/stored')).status, 404);
  });

  test('list prints one aligned line per Blueprint and --json the summaries; show prints the stored text byte for byte', async () => {
    const list = await svcInProcess(['blueprint', 'list'], { env });
    assert.equal(list.code, 0);
    const lines = list.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.map((l) => l.split(/\s+/)[0]), ['alpha', 'beta', 'gamma']);
    assert.match(lines[0], /^alpha\s+vfs=per_session\s+default=deny\s+rules=1\s+packages=-$/);
    assert.match(lines[1], /^beta\s+vfs=ephemeral\s+default=allow\s+rules=0\s+packages=-$/);
    assert.equal(new Set(lines.map((l) => l.indexOf('vfs='))).size, 1, 'columns line up');
    const json = await svcInProcess(['blueprint', 'list', '--json'], { env });
    assert.deepEqual(JSON.parse(json.stdout), (await server.request('GET', '/v1/blueprints')).json.blueprints);
    const show = await svcInProcess(['blueprint', 'show', 'alpha'], { env });
    assert.equal(show.stdout, fs.readFileSync(path.join(dir, 'alpha.yaml'), 'utf8'));
    const unknown = await svcInProcess(['blueprint', 'show', 'nope'], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /blueprint 'nope' is not registered/);
  });

  test('remove ends the Blueprint\'s sessions; removing an unknown name fails', async () => {
    const session = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'gamma' } });
    assert.equal(session.status, 200);
    const removed = await svcInProcess(['blueprint', 'remove', 'gamma'], { env });
    assert.deepEqual([removed.code, removed.stdout], [0, "Removed blueprint 'gamma'; its open sessions were ended\n"]);
    assert.equal((await server.request('GET', '/v1/blueprints/gamma')).status, 404);
    assert.equal((await server.request('POST', `/v1/sessions/${session.json.session_id}/execute`, { token: server.userToken, body: { code: 'export function main() {}' } })).status, 404);
    assert.equal((await svcInProcess(['blueprint', 'remove', 'gamma'], { env })).code, 1);
  });

  test('server status prints aligned fields with the registered Blueprints and the runner sandbox level', async () => {
    const status = await svcInProcess(['server', 'status'], { env });
    assert.equal(status.code, 0, status.stderr);
    const port = server.url.split(':').pop();
    const { level, missing } = (await server.request('GET', '/v1/status')).json.runner_sandbox;
    const sandbox = missing.length > 0 ? `${level} (missing ${missing.join(', ')})` : level;
    assert.equal(
      status.stdout,
      `status:          running\nbind:            127.0.0.1:${port}\npid:             ${server.child.pid}\nactive sessions: 0\nblueprints:      alpha, beta\nrunner sandbox:  ${sandbox}\n`,
    );
  });
});
