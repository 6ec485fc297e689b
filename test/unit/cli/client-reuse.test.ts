// The CLI's server client over Node's kept-alive global agent: a request that meets a reused
// connection the server dropped unanswered (as a server closes an idle one past its timeout,
// which a stalled process may still pick) is sent again on a fresh one, whatever its method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { ServerClient } from '../../../src/cli/client';
import { startDroppingFarEnd } from '../../support/dropping-far-end';

test('a POST on a reused connection that the server drops unanswered is sent again on a fresh one', async () => {
  const far = await startDroppingFarEnd((res, n) => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `stored ${n}` })));
  const io = { env: { SVC_SERVER_TOKEN: 't'.repeat(32) }, cwd: process.cwd(), stdout: () => {}, stderr: () => {}, stdin: Readable.from([]) };
  const client = ServerClient.from({ server: far.origin }, io);
  try {
    assert.equal((await client.request('POST', '/v1/blueprints', { body: { yaml: 'name: first\n' } })).json.name, 'stored 1');
    const second = await client.request('POST', '/v1/blueprints', { body: { yaml: 'name: second\n' } });
    assert.equal(second.status, 201);
    assert.equal(second.json.name, 'stored 2');
    assert.deepEqual(far.bodies.map((body) => JSON.parse(body).yaml), ['name: first\n', 'name: second\n'], 'each body was handled once');
    assert.equal(far.connections(), 2, 'the second POST went over a second connection');
  } finally {
    await far.close();
  }
});
