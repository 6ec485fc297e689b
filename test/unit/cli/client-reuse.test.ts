// The CLI's server client over Node's kept-alive global agent: a request that meets a reused
// connection the server dropped unanswered (as a server closes an idle one past its timeout,
// which a stalled process may still pick) is sent again on a fresh one, whatever its method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { ServerClient } from '../../../src/cli/client';

test('a POST on a reused connection that the server drops unanswered is sent again on a fresh one', async () => {
  const seen = new Map<Socket, number>();
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const count = (seen.get(req.socket) ?? 0) + 1;
    seen.set(req.socket, count);
    // Every connection's second request finds it closed.
    if (count === 2) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ name: `stored ${bodies.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const io = { env: { SVC_SERVER_TOKEN: 't'.repeat(32) }, cwd: process.cwd(), stdout: () => {}, stderr: () => {}, stdin: Readable.from([]) };
  const client = ServerClient.from({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, io);
  try {
    assert.equal((await client.request('POST', '/v1/blueprints', { body: { yaml: 'name: first\n' } })).json.name, 'stored 1');
    const second = await client.request('POST', '/v1/blueprints', { body: { yaml: 'name: second\n' } });
    assert.equal(second.status, 201);
    assert.equal(second.json.name, 'stored 2');
    assert.deepEqual(bodies.map((body) => JSON.parse(body).yaml), ['name: first\n', 'name: second\n'], 'each body was handled once');
    assert.equal(seen.size, 2, 'the second POST went over a second connection');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
