// What a call waiting for a person costs the rest of the server, without clocks: the run's
// time limit stops while it waits (a 1 s limit, an approval that expires after 2 s: the run
// gets the expiry, not a timeout); one token's many parked calls hold no host-call slot and
// no CPU slot, so the other token's runs complete meanwhile; approvals pending at a shutdown
// are still listed, and can be answered, after the restart.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, tempDir, type TestServer } from '../harness';
import { startWithOther } from '../support/tenants';
import { GATED_BLUEPRINT } from '../support/approvals';
import { eventually } from '../support/wait';

let far: http.Server;
let port = 0;
const received: string[] = [];


before(async () => {
  far = http.createServer((req, res) => {
    received.push(req.url ?? '');
    res.end('ok');
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  port = (far.address() as AddressInfo).port;
});
after(() => {
  far.closeAllConnections();
  far.close();
});

const postCall = (path: string) => `await (await fetch("http://127.0.0.1:${port}${path}", { method: "POST", body: "x" })).text()`;

async function register(server: TestServer, yaml: string): Promise<void> {
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml } });
  assert.ok(created.status < 300, created.text);
}

async function pendingCount(server: TestServer, count: number): Promise<any[]> {
  return eventually(`${count} pending approvals`, async () => {
    const listed = (await server.request('GET', '/v1/approvals')).json.approvals as any[];
    return listed.length >= count ? listed : null;
  });
}

// Each test has its own server and mostly waits (an approval's 2 s expiry, thirty parked
// calls, a shutdown's grace): they run at once, so the file's wall is its longest test's
// rather than the sum (29 s of a full run, 3.6 CPU-s).
describe('approvals and parked calls', { concurrency: true }, () => {
  test('the time limit stops while a call waits: with a 1 s limit, an approval expiring after 2 s ends as a human denial, not a timeout', async () => {
    const server = await startServer({ args: ['--allow-localhost'], config: { max_execution_time: 1 } });
    try {
      await register(server, GATED_BLUEPRINT.replace('default: allow\n', 'default: allow\napproval_timeout: 2s\n'));
      const reply = await server.request('POST', '/v1/execute', {
        token: server.userToken,
        body: { blueprint: 'gated', code: `export async function main() { try { return ${postCall('/slow')}; } catch (e: any) { return e.cause.source + ": " + e.cause.message; } }` },
      });
      assert.equal(reply.json.error, null, reply.text);
      assert.match(reply.json.result, /^human: .*within the approval timeout of 2s/);
    } finally {
      await server.stop();
    }
  });

  test("two tokens: one token's 30 runs parked on approvals hold no host-call or CPU slot; the other token's runs complete meanwhile", async () => {
    // Eight host calls server-wide (sixteen for a token below its share): thirty parked calls holding slots would block every other call.
    const { server, other } = await startWithOther({ args: ['--allow-localhost'], config: { max_server_host_calls_in_flight: 8, max_runs_in_flight: 64 } });
    try {
      await register(server, GATED_BLUEPRINT);
      received.length = 0;
      const parked = Array.from({ length: 30 }, (_, i) =>
        server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'gated', code: `export async function main() { try { return ${postCall(`/parked/${i}`)}; } catch (e: any) { return e.cause.source; } }` } }),
      );
      const approvals = await pendingCount(server, 30);
      assert.equal(approvals.length, 30);
      assert.ok(approvals.every((a) => a.token_name === 'harness'));
      // The other token: computing runs and runs whose host calls go out, all answered while the thirty wait.
      const others = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          server.request('POST', '/v1/execute', {
            token: other,
            body: { blueprint: 'gated', code: `export async function main() { let s = 0; for (let k = 0; k < 1e5; k++) s += k; const got = await (await fetch("http://127.0.0.1:${port}/other/${i}")).text(); return s + ":" + got; }` },
          }),
        ),
      );
      for (const reply of others) {
        assert.equal(reply.json.error, null, reply.text);
        assert.equal(reply.json.result, '4999950000:ok');
      }
      assert.deepEqual(received.filter((path) => path.startsWith('/parked')), [], 'no parked call reached the far end');
      for (const approval of approvals) {
        const denied = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'deny', reason: 'not today' } });
        assert.equal(denied.status, 200, denied.text);
      }
      for (const reply of await Promise.all(parked)) assert.equal(reply.json.result, 'human', reply.text);
    } finally {
      await server.stop();
    }
  });

  test('an approval pending when the server stops is listed as pending after the restart, and can be answered', async () => {
    const home = tempDir();
    const first = await startServer({ home, args: ['--allow-localhost'], config: { shutdown_grace: 1 } });
    let approvalId: string;
    try {
      await register(first, GATED_BLUEPRINT);
      void first.request('POST', '/v1/execute', { token: first.userToken, body: { blueprint: 'gated', code: `export async function main() { return ${postCall('/across')}; }` } }).catch(() => {});
      const [approval] = await pendingCount(first, 1);
      approvalId = approval.approval_id;
    } finally {
      await first.stop();
    }
    const second = await startServer({ home, args: ['--allow-localhost'], adminToken: first.adminToken, userToken: first.userToken });
    try {
      const listed = await second.request('GET', '/v1/approvals');
      assert.deepEqual(listed.json.approvals.map((a: any) => [a.approval_id, a.state]), [[approvalId!, 'pending']]);
      const approved = await second.request('POST', `/v1/approvals/${approvalId!}`, { body: { decision: 'approve' } });
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.json.state, 'approved');
    } finally {
      await second.stop();
    }
  });
});
