// The harness's HTTP client over kept-alive connections: a request that meets a reused
// connection the far end dropped (as the server drops an idle one past its timeout, which a
// stalled test process may still pick) is sent again on a fresh one, whatever its method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendRequest } from '../../support/http-client';
import { startDroppingFarEnd } from '../../support/dropping-far-end';

test('a POST on a reused connection that the far end drops unanswered is sent again on a fresh connection', async () => {
  const far = await startDroppingFarEnd((res, n) => res.end(`answer ${n}`));
  const url = `${far.origin}/`;
  try {
    assert.equal((await sendRequest(url, 'POST', {}, 'first')).text, 'answer 1');
    const second = await sendRequest(url, 'POST', {}, 'second');
    assert.equal(second.status, 200);
    assert.equal(second.text, 'answer 2');
    assert.deepEqual(far.bodies, ['first', 'second'], 'each body was handled once');
    assert.equal(far.connections(), 2, 'the second POST went over a second connection');
  } finally {
    await far.close();
  }
});

test('a POST whose fresh connection is dropped unanswered fails (it is not sent again)', async () => {
  let received = 0;
  const server = http.createServer((req) => {
    received++;
    req.socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    await assert.rejects(sendRequest(url, 'POST', {}, 'once'), (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET');
    assert.equal(received, 1);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
