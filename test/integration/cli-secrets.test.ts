// bin/svc secret put/delete and the token sources against a real server: --token-file,
// SVC_SERVER_TOKEN_FILE, SVC_SERVER_TOKEN, the 401/403 messages, values from standard
// input or a hidden terminal prompt, never printed, and the store's state afterwards.
// Standard input and the terminal go through processes; the token sources' precedence and
// the list and delete output run in-process (svcInProcess).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { START_TIMEOUT_MS, runSvc, runSvcInTerminal, serverEnv, svcInProcess } from '../support/cli';

const VALUE = `canary-${randomBytes(8).toString('hex')}`;

describe('svc secret and tokens against a server', () => {
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
    const wrong = await svcInProcess(['server', 'status'], { env: { ...env, SVC_SERVER_TOKEN: 'x'.repeat(40) } });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /did not accept the token in SVC_SERVER_TOKEN/);
    assert.ok(!wrong.stderr.includes('x'.repeat(40)), 'the token is never printed');

    fs.writeFileSync(path.join(dir, 'admin.token'), `  ${server.adminToken}\n`);
    fs.writeFileSync(path.join(dir, 'user.token'), server.userToken);
    // A file wins over the variable, the option over the file variable.
    const fromFile = await svcInProcess(['server', 'status'], { env: { ...env, SVC_SERVER_TOKEN: 'y'.repeat(40), SVC_SERVER_TOKEN_FILE: path.join(dir, 'admin.token') } });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const fromOption = await svcInProcess(['server', 'status', '--token-file', path.join(dir, 'admin.token')], { env: { ...env, SVC_SERVER_TOKEN_FILE: path.join(dir, 'user.token') } });
    assert.equal(fromOption.code, 0, fromOption.stderr);
    const user = await svcInProcess(['server', 'status', '--token-file', path.join(dir, 'user.token')], { env: { SVC_SERVER_URL: server.url } });
    assert.equal(user.code, 1);
    assert.match(user.stderr, /^error: .*admin.*user/m);
    assert.equal(server.audit({ type: 'auth', reason: 'admin_required' }).length >= 1, true);
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
    const badKey = await svcInProcess(['secret', 'put', '../x'], { env, stdin: 'v' });
    assert.equal(badKey.code, 1);
    assert.match(badKey.stderr, /A–Z a–z 0–9/);
    assert.ok((await svcInProcess(['secret', 'put', 'solo'], { env, stdin: 'v' })).code === 0);
    const listed = await svcInProcess(['secret', 'list'], { env });
    assert.deepEqual([listed.code, listed.stdout], [0, 'solo\nteam/api\n'], listed.stderr);
    const prefixed = await svcInProcess(['secret', 'list', '--prefix', 'team/', '--json'], { env });
    assert.deepEqual(JSON.parse(prefixed.stdout), ['team/api']);
    assert.ok(!listed.stdout.includes(VALUE) && !prefixed.stdout.includes(VALUE), 'values are never listed');
    assert.equal((await svcInProcess(['secret', 'delete', 'solo'], { env })).code, 0);
    const deleted = await svcInProcess(['secret', 'delete', 'team/api'], { env });
    assert.deepEqual([deleted.code, deleted.stdout], [0, "Deleted secret 'team/api'\n"]);
    assert.deepEqual((await server.request('GET', '/v1/secrets')).json.keys, []);
    assert.equal((await svcInProcess(['secret', 'delete', 'team/api'], { env })).code, 1);
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
});
