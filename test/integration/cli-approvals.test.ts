// `svc approvals list|show|approve|deny` and the TypeScript client's approval methods
// against a real server: a run parked on an ask-human call is listed, answered from the
// command line (approve with scope run; deny with a reason that reaches the program), and a
// second answer is refused with a hint.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../harness';
import { runSvc, serverEnv, svcInProcess, START_TIMEOUT_MS } from '../support/cli';
import { eventually } from '../support/wait';
import { SvcClient, type SvcResult } from '../../clients/typescript/src/index';

function value<T>(result: SvcResult<T>): T {
  if (!result.ok) assert.fail(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

describe('svc approvals and the client against a server', () => {
  let server: TestServer;
  let far: http.Server;
  let port = 0;
  let env: Record<string, string>;
  before(async () => {
    far = http.createServer((req, res) => res.end(`done ${req.url}`));
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    port = (far.address() as AddressInfo).port;
    server = await startServer({ args: ['--allow-localhost'], timeoutMs: START_TIMEOUT_MS });
    env = serverEnv(server);
    const yaml = 'name: gated\nallow_insecure_http: true\ndefault: allow\npermissions:\n  main:\n    - capability: http.post\n      action: ask-human\n';
    assert.ok((await server.request('POST', '/v1/blueprints', { body: { yaml } })).status < 300);
  });
  after(async () => {
    await server.stop();
    far.closeAllConnections();
    far.close();
  });

  const start = (path: string) =>
    server.request('POST', '/v1/execute', {
      token: server.userToken,
      body: { blueprint: 'gated', code: `export async function main() { try { return await (await fetch("http://127.0.0.1:${port}${path}", { method: "POST", body: "x" })).text(); } catch (e: any) { return e.cause.source + ": " + e.cause.message; } }` },
    });
  const pendingId = () => eventually('a pending approval', async () => (await server.request('GET', '/v1/approvals')).json.approvals[0]?.approval_id as string | undefined);

  test('list and show print the pending approval; approve lets the call through; a second answer is refused with a hint', async () => {
    const running = start('/ship');
    const id = await pendingId();
    const list = await svcInProcess(['approvals', 'list'], { env });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^${id}  pending  http\\.post 127\\.0\\.0\\.1/ship  caller=main  blueprint=gated  token=harness`, 'm'));
    const show = await svcInProcess(['approvals', 'show', id], { env });
    assert.equal(JSON.parse(show.stdout).approval_id, id);
    const approved = await runSvc(['approvals', 'approve', id, '--scope', 'run'], { env });
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, new RegExp(`Approved ${id} \\(http\\.post, caller main`));
    assert.equal((await running).json.result, 'done /ship');
    const again = await svcInProcess(['approvals', 'deny', id], { env });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already approved/);
    assert.match(again.stderr, /first answer settles an approval/);
    const none = await svcInProcess(['approvals', 'list'], { env });
    assert.match(none.stderr, /no pending approvals/);
  });

  test('deny --reason: the program gets a human denial carrying the reason', async () => {
    const running = start('/wire');
    const id = await pendingId();
    const denied = await svcInProcess(['approvals', 'deny', id, '--reason', 'wire transfers need two people'], { env });
    assert.equal(denied.code, 0, denied.stderr);
    assert.match((await running).json.result, /^human: permission denied: caller=main capability=http\.post: a person denied http\.post to 127\.0\.0\.1\/wire \(caller main\): wire transfers need two people\./);
    const listed = await svcInProcess(['approvals', 'list', '--state', 'denied', '--json'], { env });
    assert.equal(JSON.parse(listed.stdout).approvals[0].reason, 'wire transfers need two people');
  });

  test('the TypeScript client lists, reads and answers approvals; errors are values', async () => {
    const admin = new SvcClient({ baseUrl: server.url, token: server.adminToken });
    const running = start('/client');
    const id = await pendingId();
    const [listed] = value(await admin.listApprovals({ blueprint: 'gated' })).approvals;
    assert.equal(listed.approval_id, id);
    assert.equal(value(await admin.getApproval(id)).state, 'pending');
    assert.equal(value(await admin.decideApproval(id, { decision: 'approve' })).state, 'approved');
    assert.equal((await running).json.result, 'done /client');
    const second = await admin.decideApproval(id, { decision: 'deny' });
    assert.equal(second.ok, false);
    assert.deepEqual(!second.ok && second.error.kind === 'api' ? [second.error.status, second.error.code, second.error.body.state] : null, [409, 'approval_decided', 'approved']);
    const user = new SvcClient({ baseUrl: server.url, token: server.userToken });
    assert.equal((await user.listApprovals()).ok, false);
  });
});
