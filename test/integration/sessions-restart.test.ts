// Sessions across a restart of the real server: records and per-session files come back
// (`found`), orphans are swept, vanished areas are `lost`, and harness secrets must be rebound.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { registerBlueprint, openSession, execute, sessionDir, READ_NOTE } from '../support/sessions';
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
const GUARDED = `name: guarded
default: allow
secrets:
  USER_TOKEN:
    harness: {required: true}
vfs: per_session
`;

// One restart for every test: the first server opens the sessions and stops; the home is
// changed as a crash or an operator would leave it; the second server starts on it.
describe('restart with open sessions', () => {
  let home: string;
  let server: TestServer;
  let notes: string;
  let guarded: string;
  let vanished: string;
  let note: string;
  let orphan: string;
  before(async () => {
    home = tempDir();
    const first = await startServer({ home, runners: 1 });
    try {
      await registerBlueprint(first, NOTES);
      await registerBlueprint(first, GUARDED);
      notes = await openSession(first, { blueprint: 'notes', variables: { team: 'red' } });
      guarded = await openSession(first, { blueprint: 'guarded', secrets: { USER_TOKEN: 'first-secret-8c1f' } });
      vanished = await openSession(first, { blueprint: 'notes', variables: { team: 'red' } });
      // Guest `/teams/red/note.txt`: the per-session directory is the program's `/`.
      note = path.join(sessionDir(first, notes), 'teams', 'red', 'note.txt');
      fs.mkdirSync(path.dirname(note), { recursive: true });
      fs.writeFileSync(note, 'remember me');
      assert.equal((await execute(first, guarded, 'export function main() { return 1; }')).status, 200);
    } finally {
      await first.stop();
    }
    orphan = path.join(home, 'server', 'vfs', 'sessions', randomUUID());
    fs.mkdirSync(orphan, { recursive: true });
    fs.writeFileSync(path.join(orphan, 'left.txt'), 'x');
    fs.rmSync(sessionDir(first, vanished), { recursive: true });
    server = await startServer({ home, runners: 1, adminToken: first.adminToken, userToken: first.userToken });
  });
  after(async () => {
    await server?.stop();
  });

  test('sessions and files survive, orphans are swept, required secrets answer 409 until rebind', async () => {
    assert.equal(server.audit({ type: 'session', event: 'found', session_id: notes })[0]?.blueprint, 'notes');
    assert.equal(server.audit({ type: 'session', event: 'found', session_id: guarded }).length, 1);
    assert.equal(fs.existsSync(orphan), false, 'the orphan per-session directory is swept');

    assert.equal(fs.readFileSync(note, 'utf8'), 'remember me');

    const refused = await execute(server, guarded, 'export function main() { return 2; }');
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.error, 'session_requires_secrets');
    assert.deepEqual(refused.json.required, ['USER_TOKEN']);
    assert.equal(refused.json.session_id, guarded);

    const rebind = await server.request('POST', `/v1/sessions/${guarded}/rebind`, { token: server.userToken, body: { secrets: { USER_TOKEN: 'rebound-secret-5d2e' } } });
    assert.equal(rebind.status, 204, rebind.text);
    assert.equal(server.audit({ type: 'session', event: 'rebound', session_id: guarded }).length, 1);
    const ran = await execute(server, guarded, 'export function main() { return 2; }');
    assert.equal(ran.status, 200);
    assert.equal(ran.json.result, '2');
    assert.ok(!server.lines().some((line) => line.includes('first-secret-8c1f') || line.includes('rebound-secret-5d2e')), 'secret values never reach the log');

    // The program sees its per-session files again, at the recorded cwd.
    const read = await execute(server, notes, READ_NOTE);
    assert.equal(read.json.result, 'remember me', read.text);
  });

  test('a session whose per-session directory vanished is lost at restart', async () => {
    assert.equal(server.audit({ type: 'session', event: 'lost', session_id: vanished })[0]?.reason, 'workspace_missing');
    assert.equal((await execute(server, vanished, READ_NOTE)).status, 404);
    assert.equal(fs.existsSync(path.join(home, 'server', 'sessions', `${vanished}.json`)), false);
  });
});
