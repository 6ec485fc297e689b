// `svc session open|run|last-run|close` against a real server (state kept across runs, an
// idempotent retry, the full console in last-run, a closed session refused), and `svc
// docs` for standard-library modules and built-ins (no Package store needed). A session run
// and a docs lookup run as processes; the other verbs in-process (svcInProcess).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../harness';
import { runSvc, serverEnv, START_TIMEOUT_MS, svcInProcess } from '../support/cli';

describe('svc session and svc docs', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startServer({ timeoutMs: START_TIMEOUT_MS });
    const yaml = 'name: notes\nvariables: {who: {required: true}}\npermissions:\n  main:\n    - {capability: session.read, action: allow}\n    - {capability: session.write, action: allow}\n';
    assert.ok((await server.request('POST', '/v1/blueprints', { body: { yaml } })).status < 300);
    dir = tempDir();
    fs.writeFileSync(path.join(dir, 'count.ts'), 'import * as s from "svc:session";\nexport function main() {\n  const n = (s.get<number>("n") ?? 0) + 1;\n  s.set("n", n);\n  console.log("run " + n);\n  return n;\n}\n');
  });
  after(async () => server?.stop());

  test('open, run twice (state kept), retry with a key, last-run, close', async () => {
    const env = serverEnv(server, server.userToken);
    const missing = await svcInProcess(['session', 'open', '--blueprint', 'notes'], { env });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /HTTP 400/);
    const opened = await svcInProcess(['session', 'open', '--blueprint', 'notes', '--var', 'who=ops'], { env });
    assert.equal(opened.code, 0, opened.stderr);
    const id = opened.stdout.trim();
    assert.match(id, /^[0-9a-f-]{36}$/);

    const first = await runSvc(['session', 'run', id, 'count.ts', '--idempotency-key', 'k1'], { cwd: dir, env });
    assert.deepEqual([first.code, first.stdout, first.stderr], [0, '1\n', 'run 1\n']);
    const second = await svcInProcess(['session', 'run', id, 'count.ts'], { cwd: dir, env });
    assert.deepEqual([second.code, second.stdout], [0, '2\n'], second.stderr);
    const retried = await svcInProcess(['session', 'run', id, 'count.ts', '--idempotency-key', 'k1'], { cwd: dir, env });
    assert.deepEqual([retried.code, retried.stdout], [0, '1\n'], 'the recorded result, nothing ran');

    const last = await svcInProcess(['session', 'last-run', id], { env });
    assert.equal(last.code, 0, last.stderr);
    const record = JSON.parse(last.stdout);
    assert.equal(record.result, '2');
    assert.deepEqual(record.console, ['run 2']);

    const closed = await svcInProcess(['session', 'close', id], { env });
    assert.deepEqual([closed.code, closed.stdout], [0, `Closed session ${id}\n`]);
    const again = await svcInProcess(['session', 'close', id], { env });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /unknown/);
    const gone = await svcInProcess(['session', 'run', id, 'count.ts'], { cwd: dir, env });
    assert.equal(gone.code, 3);
  });

  test('svc docs prints standard-library modules and built-ins', async () => {
    const session = await runSvc(['docs', 'svc:session']);
    assert.equal(session.code, 0, session.stderr);
    assert.match(session.stdout, /^svc:session — /);
    assert.match(session.stdout, /declare module "svc:session"/);
    const short = await svcInProcess(['docs', 'http']);
    assert.match(short.stdout, /declare module "svc:http"/);
    const builtin = await svcInProcess(['docs', 'crypto.subtle.digest']);
    assert.equal(builtin.code, 0, builtin.stderr);
    assert.match(builtin.stdout, /a built-in/);
    assert.match(builtin.stdout, /digest\(/);
    const fetchDocs = await svcInProcess(['docs', 'fetch']);
    assert.match(fetchDocs.stdout, /function fetch\(/);
    const unknown = await svcInProcess(['docs', 'zorp']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /not a standard-library module, a built-in or a Package name/);
    assert.match(unknown.stderr, /svc:fs/);
  });
});
