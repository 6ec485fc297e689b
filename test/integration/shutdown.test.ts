// Shutdown: SIGTERM drains in-flight requests within the grace, a second signal skips the
// wait, POST /v1/shutdown stops the server, and an idle server exits at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, type TestServer } from '../harness';

/** Starts a POST whose body arrives only when `finish` is called: an in-flight handler. */
function slowRequest(server: TestServer): { finish: () => void; response: Promise<number> } {
  const body = JSON.stringify({ yaml: 'name: slow\n' });
  const request = http.request(`${server.url}/v1/blueprints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const response = new Promise<number>((resolve, reject) => {
    request.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    request.on('error', reject);
  });
  request.write(body.slice(0, 5));
  return { finish: () => request.end(body.slice(5)), response };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('SIGTERM lets an in-flight request complete and exits 0 within grace + 2 s', async () => {
  const server = await startServer({ args: ['--shutdown-grace', '3'] });
  const slow = slowRequest(server);
  await wait(300);
  const started = Date.now();
  server.child.kill('SIGTERM');
  await wait(500);
  slow.finish();
  const status = await slow.response;
  assert.equal(status, 200, 'the in-flight registration completed');
  assert.equal(await server.exited(), 0);
  assert.ok(Date.now() - started < 5_000);
  assert.deepEqual(
    server.audit({ type: 'server' }).map((r) => r.event),
    ['started', 'stopped'],
  );
  assert.ok(server.logs({ msg: 'SIGTERM received' }).length === 1);
});

test('a second SIGTERM skips the remaining grace', async () => {
  const server = await startServer({ args: ['--shutdown-grace', '60'] });
  const slow = slowRequest(server);
  slow.response.catch(() => undefined);
  await wait(300);
  server.child.kill('SIGTERM');
  await wait(300);
  const secondAt = Date.now();
  server.child.kill('SIGTERM');
  assert.equal(await server.exited(), 0);
  assert.ok(Date.now() - secondAt < 3_000, 'exited soon after the second signal');
  assert.ok(server.logs({ cause: 'second signal' }).length === 1);
});

test('an idle server exits at once on SIGINT', async () => {
  const server = await startServer({ args: ['--shutdown-grace', '60'] });
  const started = Date.now();
  assert.equal(await server.stop('SIGINT'), 0);
  assert.ok(Date.now() - started < 3_000);
});

test('POST /v1/shutdown answers 200, audits shutdown_requested and exits 0', async () => {
  const server = await startServer();
  const denied = await server.request('POST', '/v1/shutdown', { token: server.userToken });
  assert.equal(denied.status, 403);
  const reply = await server.request('POST', '/v1/shutdown');
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json, { status: 'shutting-down' });
  assert.equal(await server.exited(), 0);
  const record = server.audit({ type: 'admin', event: 'shutdown_requested' })[0];
  assert.equal(record.principal, 'SVC_SERVER_TOKEN');
  assert.equal(record.route, '/v1/shutdown');
  assert.equal(record.status, '200');
  assert.equal(record.outcome, 'ok');
});

test('a run still going at the end of the grace is cancelled: the client gets outcome cancelled and the audit says so', async () => {
  const server = await startServer({ args: ['--shutdown-grace', '1'] });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: forever\n' } });
  assert.equal(created.status, 200);
  const running = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'forever', code: 'export function main() { for (;;) {} }' } });
  await wait(500);
  const stoppedAt = Date.now();
  server.child.kill('SIGTERM');
  const reply = await running;
  assert.equal(reply.status, 200);
  assert.equal(reply.json.error.kind, 'cancelled');
  assert.equal(await server.exited(), 0);
  assert.ok(Date.now() - stoppedAt < 1_000 + 2_500, 'within grace plus teardown');
  const finished = server.audit({ type: 'execution', event: 'finished', execution_id: reply.json.execution_id })[0];
  assert.equal(finished.outcome, 'cancelled');
  assert.ok(server.logs({ cause: 'grace elapsed' }).length === 1);
});
