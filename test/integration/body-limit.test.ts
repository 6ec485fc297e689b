// A body over 2 MiB gets a readable 413 even while the client is still writing it: with a
// Content-Length, chunked, sent slowly, and then the server keeps serving.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type TestServer } from '../harness';

interface Outcome {
  status: number;
  body: string;
  writeError: string | null;
}

/** Sends `total` bytes in 64 KiB pieces, waiting for drain (and `pauseMs` between pieces). */
function upload(server: TestServer, route: string, total: number, options: { chunked?: boolean; pauseMs?: number; token?: string } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', authorization: `Bearer ${options.token ?? server.userToken}` };
    if (!options.chunked) headers['content-length'] = total;
    const req = http.request(`${server.url}${route}`, { method: 'POST', headers });
    let writeError: string | null = null;
    req.on('error', (error) => reject(error));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, writeError }));
      res.on('error', reject);
    });
    const piece = Buffer.alloc(64 * 1024, 0x20);
    piece.write('{"code":"');
    let sent = 0;
    const pump = async () => {
      try {
        while (sent < total && !req.destroyed) {
          const size = Math.min(piece.length, total - sent);
          sent += size;
          if (!req.write(piece.subarray(0, size))) await new Promise((r) => req.once('drain', r));
          if (options.pauseMs) await sleep(options.pauseMs);
        }
        req.end();
      } catch (error) {
        writeError = (error as Error).message;
      }
    };
    void pump();
  });
}

describe('request bodies over 2 MiB', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ runners: 1, timeoutMs: 60_000 });
  });
  after(async () => {
    await server.stop();
  });

  test('a declared Content-Length over the limit: 413 with a plain-text reason', async () => {
    const outcome = await upload(server, '/v1/execute', 12 * 1024 * 1024);
    assert.equal(outcome.status, 413);
    assert.equal(outcome.writeError, null);
    assert.match(outcome.body, /larger than 2 MiB/);
  });

  test('a chunked body that passes the limit while streaming: 413, not a reset', async () => {
    const outcome = await upload(server, '/v1/sessions', 6 * 1024 * 1024, { chunked: true });
    assert.equal(outcome.status, 413);
    assert.match(outcome.body, /larger than 2 MiB/);
  });

  test('a slow writer still reads the 413 (the rest of its body is read and dropped)', async () => {
    const outcome = await upload(server, '/v1/blueprints', 3 * 1024 * 1024, { pauseMs: 15, token: server.adminToken });
    assert.equal(outcome.status, 413);
    assert.match(outcome.body, /larger than 2 MiB/);
  });

  test('an unauthenticated oversized body is refused as 401 first; the server keeps serving', async () => {
    const outcome = await upload(server, '/v1/execute', 4 * 1024 * 1024, { token: 'not-a-token-but-long-enough-000000000' });
    assert.equal(outcome.status, 401);
    const status = await server.request('GET', '/v1/status');
    assert.equal(status.status, 200);
  });

  test('a body just under the limit is read and validated as usual', async () => {
    const code = 'x'.repeat(2 * 1024 * 1024 - 64);
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'nope', code } });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.error.kind, 'blueprint_not_found');
  });
});
