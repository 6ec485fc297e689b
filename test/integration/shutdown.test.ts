// Shutdown: SIGTERM drains in-flight requests within the grace, a second signal (SIGINT)
// skips the wait, POST /v1/shutdown stops an idle server without waiting, and a run still
// going when the grace ends is cancelled. Every wait is for an event (the far end received
// the program's call, the server logged the signal), never for a length of time. Each test
// ends its own server; the programs are not type-checked (no test here is about types, and
// a check would load TypeScript into each server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../harness';
import { eventually } from '../support/wait';

/** A loopback server that holds every request until `release()`; `arrived` settles on the first. */
async function heldFarEnd(): Promise<{ port: number; arrived: Promise<void>; release: () => void; close: () => void }> {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const waiting: http.ServerResponse[] = [];
  let released = false;
  const answer = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: 'released' }));
  const server = http.createServer((_req, res) => {
    if (released) return answer(res);
    waiting.push(res);
    arrive();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    arrived,
    release: () => {
      released = true;
      for (const res of waiting.splice(0)) answer(res);
    },
    close: () => server.closeAllConnections?.() ?? server.close(),
  };
}

/** Starts a server with the given grace and a Blueprint whose program waits on the far end. */
async function serverWithHeldRun(grace: number): Promise<{ server: TestServer; far: Awaited<ReturnType<typeof heldFarEnd>>; reply: Promise<Awaited<ReturnType<TestServer['request']>>> }> {
  const far = await heldFarEnd();
  const server = await startServer({ args: ['--shutdown-grace', String(grace), '--allow-localhost'] });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: held\nallow_insecure_http: true\ndefault: allow\nvfs: none\ntypecheck: off\n' } });
  assert.equal(created.status, 200, created.text);
  const code = `import * as http from "svc:http";\nexport function main() { return http.get("http://127.0.0.1:${far.port}/held").json().answer; }`;
  const reply = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'held', code } });
  reply.catch(() => undefined);
  await far.arrived;
  return { server, far, reply };
}

const logged = (server: TestServer, msg: string) => eventually(`the log line "${msg}"`, () => server.logs({ msg }).length > 0);

test('SIGTERM lets an in-flight request complete, then the server exits 0 without waiting out the grace', async () => {
  const { server, far, reply } = await serverWithHeldRun(3600);
  try {
    server.child.kill('SIGTERM');
    await logged(server, 'SIGTERM received');
    far.release();
    const answered = await reply;
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.json.error, null, answered.text);
    assert.equal(answered.json.result, 'released', 'the in-flight run completed');
    // A one-hour grace: exiting at all means the drain ended when the last handler did.
    assert.equal(await server.exited(), 0);
    assert.deepEqual(
      server.audit({ type: 'server' }).map((r) => r.event),
      ['started', 'stopped'],
    );
    assert.equal(server.logs({ msg: 'SIGTERM received' }).length, 1);
    assert.equal(server.logs({ cause: 'grace elapsed' }).length + server.logs({ cause: 'second signal' }).length, 0);
  } finally {
    far.close();
  }
});

test('a second signal, SIGINT after SIGTERM, skips the remaining grace', async () => {
  const { server, far } = await serverWithHeldRun(3600);
  try {
    server.child.kill('SIGTERM');
    await logged(server, 'SIGTERM received');
    server.child.kill('SIGINT');
    assert.equal(await server.exited(), 0);
    assert.equal(server.logs({ msg: 'SIGINT received' }).length, 1);
    assert.equal(server.logs({ cause: 'second signal' }).length, 1);
    assert.equal(server.logs({ cause: 'grace elapsed' }).length, 0);
  } finally {
    far.close();
  }
});

test('POST /v1/shutdown answers 200, audits shutdown_requested, and an idle server exits 0 without waiting for the grace', async () => {
  // With a one-hour grace, an exit at all shows nothing was waited for.
  const server = await startServer({ args: ['--shutdown-grace', '3600'] });
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
  assert.equal(server.logs({ msg: 'stopped waiting with requests still in flight; their connections are dropped' }).length, 0);
});

test('a run still going at the end of the grace is cancelled: the client gets outcome cancelled and the audit says so', async () => {
  // The program tells a far end it is running, then computes for ever: the signal comes
  // when the run is on its runner (not while it is still compiled).
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const far = http.createServer((_req, res) => {
    res.end('ok');
    arrive();
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  // Grace 0: the deadline is at once, so nothing is waited out.
  const server = await startServer({ args: ['--shutdown-grace', '0', '--allow-localhost'] });
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: forever\nallow_insecure_http: true\ndefault: allow\nvfs: none\ntypecheck: off\n' } });
    assert.equal(created.status, 200, created.text);
    const code = `import * as http from "svc:http";\nexport function main() { http.get("http://127.0.0.1:${(far.address() as AddressInfo).port}/running"); for (;;) {} }`;
    const running = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'forever', code } });
    await arrived;
    server.child.kill('SIGTERM');
    const reply = await running;
    assert.equal(reply.status, 200);
    assert.equal(reply.json.error.kind, 'cancelled', reply.json.error.message);
    assert.equal(await server.exited(), 0);
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: reply.json.execution_id })[0];
    assert.equal(finished.outcome, 'cancelled');
    assert.equal(server.logs({ cause: 'grace elapsed' }).length, 1);
  } finally {
    far.closeAllConnections();
    far.close();
  }
});
