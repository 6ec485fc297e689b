// `svc run --remote` against a real server: one-off runs under a registered Blueprint and
// session runs with an idempotency key; result on stdout, console lines on stderr, exit 0/1/2/3.
// The one-off runs go through processes; the session and usage checks run in-process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../harness';
import { START_TIMEOUT_MS, runSvc, serverEnv, svcInProcess, writeRunPrograms } from '../support/cli';

const dir = writeRunPrograms();

describe('svc run --remote', () => {
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await startServer({ timeoutMs: START_TIMEOUT_MS });
    env = serverEnv(server, server.userToken);
    fs.writeFileSync(path.join(dir, 'count.ts'), 'import * as s from "svc:session";\nexport function main() {\n  const n = (s.get("n") ?? 0) + 1;\n  s.set("n", n);\n  console.log("run " + n);\n  return n;\n}\n');
    const registered = await server.request('POST', '/v1/blueprints', {
      body: { yaml: 'name: counter\nvariables:\n  who: {required: true}\npermissions:\n  main:\n    - {capability: session.read, action: allow}\n    - {capability: session.write, action: allow}\n' },
    });
    assert.equal(registered.status, 200, registered.text);
  });
  after(async () => server.stop());

  test('a one-off run under a registered Blueprint prints the result and its console lines; the server audited it', async () => {
    const run = await runSvc(['run', 'count.ts', '--remote', '--blueprint', 'counter', '--var', 'who=ops'], { cwd: dir, env });
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, '1\n', 'run 1\n']);
    const finished = server.audit({ type: 'execution', event: 'finished', blueprint: 'counter' });
    assert.equal(finished.length, 1);
    assert.equal(finished[0].outcome, 'ok');
    const unknown = await runSvc(['run', 'count.ts', '--remote', '--blueprint', 'nope'], { cwd: dir, env });
    assert.equal(unknown.code, 3);
    assert.match(unknown.stderr, /nope/);
    const missingVar = await runSvc(['run', 'count.ts', '--remote', '--blueprint', 'counter'], { cwd: dir, env });
    assert.equal(missingVar.code, 3);
    assert.match(missingVar.stderr, /required variable 'who'/);
  });

  test('--session runs inside an open session; the same --idempotency-key returns the recorded result without running again', async () => {
    const session = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'counter', variables: { who: 'ops' } } });
    const id = session.json.session_id;
    const first = await svcInProcess(['run', 'count.ts', '--remote', '--session', id, '--idempotency-key', 'step-1'], { cwd: dir, env });
    assert.deepEqual([first.code, first.stdout], [0, '1\n'], first.stderr);
    const retried = await svcInProcess(['run', 'count.ts', '--remote', '--session', id, '--idempotency-key', 'step-1'], { cwd: dir, env });
    assert.deepEqual([retried.code, retried.stdout], [0, '1\n'], retried.stderr);
    const next = await svcInProcess(['run', 'count.ts', '--remote', '--session', id], { cwd: dir, env });
    assert.deepEqual([next.code, next.stdout], [0, '2\n'], next.stderr);
    // The same key with other code: 409, and the CLI shows the server's `detail`.
    const conflict = await svcInProcess(['run', 'throws.ts', '--remote', '--session', id, '--idempotency-key', 'step-1'], { cwd: dir, env });
    assert.equal(conflict.code, 3);
    assert.match(conflict.stderr, /HTTP 409\): idempotency_conflict: \S.*/);
    const gone = await svcInProcess(['run', 'count.ts', '--remote', '--session', 'no-such-session'], { cwd: dir, env });
    assert.equal(gone.code, 3);
    assert.match(gone.stderr, /HTTP 404/);
  });

  test('a failing remote program exits 1; usage and unreachable servers exit 2 and 3', async () => {
    const thrown = await runSvc(['run', 'throws.ts', '--remote', '--blueprint', 'counter', '--var', 'who=x'], { cwd: dir, env });
    assert.equal(thrown.code, 1);
    assert.match(thrown.stderr, /^before the throw\nerror: Error: the widget is missing/);
    assert.equal((await svcInProcess(['run', 'hello.ts', '--remote'], { cwd: dir, env })).code, 2);
    assert.equal((await svcInProcess(['run', 'hello.ts', '--remote', '--blueprint', 'counter', '--allow-localhost'], { cwd: dir, env })).code, 2);
    const closed = await svcInProcess(['run', 'hello.ts', '--remote', '--blueprint', 'counter'], { cwd: dir, env: { ...env, SVC_SERVER_URL: 'http://127.0.0.1:9' } });
    assert.equal(closed.code, 3);
    assert.match(closed.stderr, /no server at http:\/\/127\.0\.0\.1:9/);
  });
});
