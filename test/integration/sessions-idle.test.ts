// Idle expiry against the real server: a session idle past its Blueprint's idle_timeout
// ends (on its next request or by the 30-second reaper), its files go and `expired` is audited.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { registerBlueprint, openSession, execute, sessionDir } from '../support/sessions';
import { startServer, type TestServer } from '../harness';

const TRIVIAL = 'export function main() { return "alive"; }';





async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('idle expiry', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
    await registerBlueprint(server, 'name: brief\ndefault: allow\nidle_timeout: 2s\nvfs: per_session\n');
  });
  after(async () => {
    await server.stop();
  });

  test('a request after the idle timeout finds the session ended, its files deleted and expired audited', async () => {
    const id = await openSession(server, { blueprint: 'brief' });
    fs.writeFileSync(path.join(sessionDir(server, id), 'note.txt'), 'left by the session');
    assert.equal((await execute(server, id, TRIVIAL)).json.result, 'alive');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal((await execute(server, id, TRIVIAL)).status, 404);
    assert.equal(fs.existsSync(sessionDir(server, id)), false);
    const expired = server.audit({ type: 'session', event: 'expired', session_id: id });
    assert.equal(expired[0]?.reason, 'idle_timeout');
    assert.equal(expired[0]?.principal, 'harness');
  });

  test('the reaper ends an idle session without any request', async () => {
    const id = await openSession(server, { blueprint: 'brief' });
    fs.writeFileSync(path.join(sessionDir(server, id), 'note.txt'), 'left by the session');
    assert.equal((await execute(server, id, TRIVIAL)).json.result, 'alive');
    // The reaper runs every 30 seconds.
    await waitFor('the expired record', () => server.audit({ type: 'session', event: 'expired', session_id: id })[0], 45_000);
    assert.equal(fs.existsSync(sessionDir(server, id)), false);
  });
});
