// Idle expiry against the real server: a session idle past its Blueprint's idle_timeout
// ends (on its next request, or by the reaper whose interval is the setting
// `session_reap_interval`), its files go and `expired` is audited.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { registerBlueprint, openSession, execute, sessionDir } from '../support/sessions';
import { eventually } from '../support/wait';
import { startServer, type TestServer } from '../harness';

/** No test here runs two programs at once: one runner process starts faster than two. */
const ONE_RUNNER = ['--runner-pool-size', '1'];

const TRIVIAL = 'export function main() { return "alive"; }';
/** The shortest idle_timeout a Blueprint accepts. */
// typecheck: off (types stripped, not checked): no program here is about types, and the server
// would load a type checker for them (about 1 CPU-s).
const BRIEF = 'name: brief\ndefault: allow\ntypecheck: off\nidle_timeout: 1s\nvfs: per_session\n';

describe('idle expiry', () => {
  // Two servers, started together: one whose reaper waits an hour, so only the request can
  // end the session, and one that sweeps every second.
  let onRequest: TestServer;
  let sweeping: TestServer;
  before(async () => {
    [onRequest, sweeping] = await Promise.all([startServer({ args: ['--session-reap-interval', '3600', ...ONE_RUNNER] }), startServer({ args: ['--session-reap-interval', '1', ...ONE_RUNNER] })]);
    await Promise.all([registerBlueprint(onRequest, BRIEF), registerBlueprint(sweeping, BRIEF)]);
  });
  after(async () => {
    await Promise.all([onRequest?.stop(), sweeping?.stop()]);
  });

  test('a request after the idle timeout finds the session ended, its files deleted and expired audited', async () => {
    const server = onRequest;
    const id = await openSession(server, { blueprint: 'brief' });
    fs.writeFileSync(path.join(sessionDir(server, id), 'note.txt'), 'left by the session');
    assert.equal((await execute(server, id, TRIVIAL)).json.result, 'alive');
    // Being idle is the feature under test: wait out the 1 s idle_timeout itself (the server
    // took its activity time before it answered, so this is past the timeout there too).
    await sleep(1_100);
    assert.equal(server.audit({ type: 'session', event: 'expired', session_id: id }).length, 0, 'nothing ended it before the request');
    assert.equal((await execute(server, id, TRIVIAL)).status, 404);
    assert.equal(fs.existsSync(sessionDir(server, id)), false);
    const expired = server.audit({ type: 'session', event: 'expired', session_id: id });
    assert.equal(expired[0]?.reason, 'idle_timeout');
    assert.equal(expired[0]?.principal, 'harness');
  });

  test('the reaper ends an idle session without any request', async () => {
    const server = sweeping;
    const id = await openSession(server, { blueprint: 'brief' });
    fs.writeFileSync(path.join(sessionDir(server, id), 'note.txt'), 'left by the session');
    assert.equal((await execute(server, id, TRIVIAL)).json.result, 'alive');
    const expired = await eventually('the expired record', () => server.audit({ type: 'session', event: 'expired', session_id: id })[0]);
    assert.equal(expired.reason, 'idle_timeout');
    assert.equal(fs.existsSync(sessionDir(server, id)), false);
    assert.equal((await execute(server, id, TRIVIAL)).status, 404);
  });
});
