// Sessions against the real server: the lifecycle with per-session files, ephemeral and
// `vfs: none` areas, binding errors, idle expiry, restart recovery and the status count.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { registerBlueprint, openSession, execute, sessionDir, WRITE_NOTE, READ_NOTE } from '../support/sessions';
import { startServer, tempDir, type TestServer } from '../harness';

const NOTES = `name: notes
default: allow
variables:
  team: {required: true}
  region: {default: eu}
vfs:
  mode: per_session
  cwd: /teams/\${vars.team}
`;
const SCRATCH = 'name: scratch\ndefault: allow\nvfs: ephemeral\n';
const NOFILES = 'name: nofiles\ndefault: allow\nvfs: none\n';
const GUARDED = `name: guarded
default: allow
secrets:
  USER_TOKEN:
    harness: {required: true}
vfs: per_session
`;






// One server for every test: ephemeral areas go to a directory of the test's own, which
// the on-disk test reads.
const ephemeralDir = tempDir();
let server: TestServer;
before(async () => {
  server = await startServer({ runners: 1, config: { vfs_ephemeral_dir: ephemeralDir } });
  for (const yaml of [NOTES, SCRATCH, NOFILES, GUARDED]) await registerBlueprint(server, yaml);
});
after(async () => {
  await server?.stop();
});

describe('session lifecycle', () => {
  test('create, write a per-session file, read it back, last-run, delete 204, then execute and delete 404', async () => {
    const id = await openSession(server, { blueprint: 'notes', variables: { team: 'blue' } });
    const created = server.audit({ type: 'session', event: 'created', session_id: id });
    assert.equal(created.length, 1);
    assert.equal(created[0].blueprint, 'notes');
    assert.equal(created[0].file_area_mode, 'per_session');
    assert.equal(created[0].principal, 'harness');

    const wrote = await execute(server, id, WRITE_NOTE);
    assert.equal(wrote.status, 200, wrote.text);
    assert.equal(wrote.json.error, null, wrote.text);
    assert.equal(wrote.json.result, '/teams/blue');
    assert.deepEqual(wrote.json.console, []);
    assert.equal(wrote.headers.get('mcp-session-id'), id);
    const read = await execute(server, id, READ_NOTE);
    assert.equal(read.json.result, 'remember me', read.text);

    const lastRunBefore = await execute(server, id, WRITE_NOTE);
    assert.equal(lastRunBefore.json.error, null);
    const lastRun = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken });
    assert.equal(lastRun.status, 200);
    assert.deepEqual(lastRun.json, { result: '/teams/blue', console: ['wrote'], error: null });

    const runs = server.audit({ type: 'execution', event: 'finished', session_id: id });
    assert.equal(runs.length, 3);
    assert.ok(runs.every((r) => r.entry_point === 'session'));

    assert.ok(fs.existsSync(sessionDir(server, id)));
    const deleted = await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken });
    assert.equal(deleted.status, 204);
    assert.equal(fs.existsSync(sessionDir(server, id)), false, 'per-session files are deleted');
    assert.equal(server.audit({ type: 'session', event: 'deleted', session_id: id })[0]?.reason, 'disconnect');

    const gone = await execute(server, id, READ_NOTE);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.error, 'unknown session');
    assert.equal(gone.json.session_id, id);
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: gone.json.execution_id });
    assert.equal(finished[0]?.error_class, 'unknown_session');
    const deletedAgain = await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken });
    assert.equal(deletedAgain.status, 404);
    assert.equal(deletedAgain.text, '');
  });

  test('without files: execute, last-run with the full console, delete, then 404s', async () => {
    const id = await openSession(server, { blueprint: 'scratch' });
    const ran = await execute(server, id, 'export function main() { console.log("step", 1); return { ok: true }; }');
    assert.equal(ran.status, 200);
    assert.deepEqual({ result: ran.json.result, console: ran.json.console, error: ran.json.error }, { result: '{"ok":true}', console: [], error: null });
    const lastRun = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken });
    assert.deepEqual(lastRun.json, { result: '{"ok":true}', console: ['step 1'], error: null });
    assert.equal((await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken })).status, 204);
    assert.equal((await execute(server, id, 'export function main() {}')).status, 404);
    assert.equal((await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken })).status, 404);
    assert.equal((await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken })).status, 404);
  });

  test('last-run is 404 with an empty body before any run and for an unknown session', async () => {
    const id = await openSession(server, { blueprint: 'scratch' });
    for (const target of [id, randomUUID()]) {
      const reply = await server.request('GET', `/v1/sessions/${target}/last-run`, { token: server.userToken });
      assert.equal(reply.status, 404);
      assert.equal(reply.text, '');
    }
  });

  test('ephemeral files vanish between executes of one session', async () => {
    const id = await openSession(server, { blueprint: 'scratch' });
    const wrote = await execute(server, id, WRITE_NOTE);
    assert.equal(wrote.json.error, null, wrote.text);
    const read = await execute(server, id, READ_NOTE);
    assert.equal(read.json.error, null, read.text);
    assert.equal(read.json.result, null);
  });

  test('vfs: none refuses file access inside the execute result', async () => {
    const id = await openSession(server, { blueprint: 'nofiles' });
    const reply = await execute(server, id, WRITE_NOTE);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.result, null);
    assert.notEqual(reply.json.error, null);
    assert.notEqual(reply.json.error.kind, 'compile_error', 'svc:fs is importable; its calls fail');
  });

  test('a one-off run is readable through last-run only; executing or rebinding with its id is 404', async () => {
    const oneOff = await server.request('POST', '/v1/execute', {
      token: server.userToken,
      body: { blueprint: 'scratch', code: 'export function main() { console.log("one-off line"); return "done"; }' },
    });
    const id = oneOff.json.session_id;
    const lastRun = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken });
    assert.equal(lastRun.status, 200);
    assert.deepEqual(lastRun.json, { result: 'done', console: ['one-off line'], error: null });
    assert.equal((await execute(server, id, READ_NOTE)).status, 404);
    assert.equal((await server.request('POST', `/v1/sessions/${id}/rebind`, { token: server.userToken, body: { secrets: {} } })).status, 404);
    assert.equal(server.audit({ type: 'session', session_id: id }).length, 0, 'throw-away sessions write no session records');
  });

  test('binding errors answer the documented statuses and name the offender', async () => {
    const cases: Array<[Record<string, unknown>, number, RegExp | string]> = [
      [{ blueprint: 'missing' }, 404, 'unknown blueprint'],
      [{ blueprint: 'notes', variables: { team: 'blue', extra: 'x' } }, 400, /^invalid variables: .*'extra'/],
      [{ blueprint: 'notes', variables: { region: 'us' } }, 400, /^invalid variables: .*'team'/],
      [{ blueprint: 'notes', variables: { team: '' } }, 400, /^invalid variables: .*'team'/],
      [{ blueprint: 'notes', variables: { team: '..' } }, 400, /^invalid vfs config: .*team/],
      [{ blueprint: 'notes', variables: { team: 'a/b' } }, 400, /^invalid vfs config: .*team/],
      [{ blueprint: 'guarded' }, 400, /^invalid secrets: .*'USER_TOKEN'/],
      [{ blueprint: 'guarded', secrets: { USER_TOKEN: '' } }, 400, /^invalid secrets: .*'USER_TOKEN'/],
      [{ blueprint: 'guarded', secrets: { USER_TOKEN: 't', OTHER: 'x' } }, 400, /^invalid secrets: .*'OTHER'/],
    ];
    for (const [body, status, expected] of cases) {
      const reply = await server.request('POST', '/v1/sessions', { token: server.userToken, body });
      assert.equal(reply.status, status, `${JSON.stringify(body)} → ${reply.text}`);
      if (typeof expected === 'string') assert.equal(reply.json.error, expected);
      else assert.match(reply.json.error, expected);
    }
    const unknown = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'missing' } });
    assert.equal(unknown.json.name, 'missing');
    assert.equal(typeof unknown.json.message, 'string');
  });

  test('/v1/status counts open sessions', async () => {
    const before = (await server.request('GET', '/v1/status')).json.active_sessions;
    const id = await openSession(server, { blueprint: 'scratch' });
    assert.equal((await server.request('GET', '/v1/status')).json.active_sessions, before + 1);
    await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken });
    assert.equal((await server.request('GET', '/v1/status')).json.active_sessions, before);
  });

  test('deleting a Blueprint evicts its sessions', async () => {
    await registerBlueprint(server, 'name: doomed\ndefault: allow\nvfs: per_session\n');
    const id = await openSession(server, { blueprint: 'doomed' });
    const deleted = await server.request('DELETE', '/v1/blueprints/doomed');
    assert.ok(deleted.status < 300, deleted.text);
    const evicted = server.audit({ type: 'session', event: 'evicted', session_id: id });
    assert.equal(evicted[0]?.reason, 'blueprint_deleted');
    assert.equal(evicted[0]?.blueprint, 'doomed');
    assert.equal((await execute(server, id, READ_NOTE)).status, 404);
    assert.equal(fs.existsSync(sessionDir(server, id)), false);
  });
});

describe('ephemeral file areas on disk', () => {
  test('every run\'s directory is gone after it: one that wrote files, one that touched none, and one-off runs', async () => {
    // The server's private directory: svc-ephemeral-<pid>-<random>, made on first use.
    const roots = () => fs.readdirSync(ephemeralDir).filter((name) => name.startsWith(`svc-ephemeral-${server.child.pid}-`));
    const leftovers = () => roots().flatMap((name) => fs.readdirSync(path.join(ephemeralDir, name)));
    const id = await openSession(server, { blueprint: 'scratch' });
    const wrote = await execute(server, id, WRITE_NOTE);
    assert.equal(wrote.json.error, null, wrote.text);
    assert.equal(roots().length, 1, 'the server keeps its ephemeral areas under vfs_ephemeral_dir');
    assert.deepEqual(leftovers(), []);
    assert.equal((await execute(server, id, 'export function main() { return 1; }')).json.result, '1');
    assert.deepEqual(leftovers(), []);
    const oneOff = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'scratch', code: WRITE_NOTE } });
    assert.equal(oneOff.json.error, null, oneOff.text);
    assert.deepEqual(leftovers(), []);
  });
});
