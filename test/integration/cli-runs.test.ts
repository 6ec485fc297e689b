// `svc runs list|show|wait|cancel` against a real server: runs started asynchronously over
// HTTP are listed, waited for (result on stdout, exit status like `svc run`), cancelled.
// The run that must stay in flight calls a stand-in that never answers; the test knows it
// is on its runner when the stand-in has received the call.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';
import { runSvc, serverEnv, START_TIMEOUT_MS, svcInProcess } from '../support/cli';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';

const HOST = 'never.example.com';

describe('svc runs', () => {
  let server: TestServer;
  let standIn: StandIn;
  let env: Record<string, string>;

  before(async () => {
    standIn = await startStandIn([HOST], () => new Promise(() => {}));
    server = await startServer({ ...serverOptions(standIn), runners: 1, timeoutMs: START_TIMEOUT_MS });
    // typecheck: off (types stripped, not checked): these programs are about run records, not types.
    const yaml = `name: cli-runs\ntypecheck: off\npermissions:\n  main:\n    - {capability: http.get, filter: 'host == "${HOST}"', action: allow}\n`;
    assert.ok((await server.request('POST', '/v1/blueprints', { body: { yaml } })).status < 300);
    env = serverEnv(server, server.userToken);
  });
  after(async () => {
    await server?.stop();
    await standIn?.close();
  });

  const startAsync = async (code: string) => {
    const started = await server.request('POST', '/v1/execute', { token: server.userToken, headers: { Prefer: 'respond-async' }, body: { blueprint: 'cli-runs', code } });
    assert.equal(started.status, 202, started.text);
    return started.json.execution_id as string;
  };

  test('wait prints the result of a finished run; show prints the record; unknown ids fail', async () => {
    const id = await startAsync('export function main() { return 6 * 7; }');
    const waited = await runSvc(['runs', 'wait', id], { env });
    assert.deepEqual([waited.code, waited.stdout], [0, '42\n'], waited.stderr);
    const shown = await svcInProcess(['runs', 'show', id], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).result.result, '42');
    const unknown = await svcInProcess(['runs', 'show', 'not-a-run'], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no run not-a-run/);
  });

  test('list shows a running run; wait gives up at its timeout; cancel ends it; a second cancel fails', { timeout: 120_000 }, async () => {
    const id = await startAsync(`import { get } from "svc:http";\nexport function main() { get("${standIn.origin(HOST)}/hang"); return "never"; }`);
    await standIn.received(1);
    const listed = await svcInProcess(['runs', 'list', '--state', 'running'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${id}\\s+running\\s+cli-runs\\s+rest`, 'm'));

    const gaveUp = await svcInProcess(['runs', 'wait', id, '--timeout', '1'], { env });
    assert.equal(gaveUp.code, 1);
    assert.match(gaveUp.stderr, /still running after 1 s/);

    const cancelled = await runSvc(['runs', 'cancel', id], { env });
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stdout, new RegExp(`Cancelling run ${id}`));
    const ended = await svcInProcess(['runs', 'wait', id], { env });
    assert.equal(ended.code, 1);
    assert.match(ended.stderr, /error: cancelled: the run was cancelled/);
    const again = await svcInProcess(['runs', 'cancel', id], { env });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already finished/);

    const json = await svcInProcess(['runs', 'list', '--json', '--limit', '1'], { env });
    assert.equal(JSON.parse(json.stdout).runs[0].execution_id, id);
    const bad = await svcInProcess(['runs', 'list', '--limit', '0'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /limit/);
  });
});
