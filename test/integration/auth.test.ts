// Authentication and roles against the real server: 401/403 bodies and headers, auth
// audit records without the token, the public /healthz, admin-only /v1/status.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newToken, startServer, type TestServer } from '../harness';

describe('authentication', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ runners: 1 });
  });
  after(async () => {
    await server.stop();
  });

  test('/healthz answers 200 without a token', async () => {
    const reply = await server.request('GET', '/healthz', { token: null });
    assert.equal(reply.status, 200);
  });

  test('a missing token gets 401 with WWW-Authenticate: Bearer and an unauthorized body', async () => {
    const reply = await server.request('GET', '/v1/status', { token: null });
    assert.equal(reply.status, 401);
    assert.equal(reply.headers.get('www-authenticate'), 'Bearer');
    assert.equal(reply.json.error, 'unauthorized');
    assert.match(reply.json.message, /Authorization: Bearer/);
  });

  test('an unknown token gets 401 and an auth audit record without the token', async () => {
    const wrong = newToken();
    const reply = await server.request('GET', '/v1/status', { token: wrong });
    assert.equal(reply.status, 401);
    const records = server.audit({ type: 'auth', reason: 'unknown_token' });
    assert.ok(records.length >= 1);
    assert.equal(records.at(-1)!.route, '/v1/status');
    assert.match(records.at(-1)!.remote_address, /^127\.0\.0\.1:\d+$/);
    assert.equal(records.at(-1)!.event, 'refused');
    for (const line of server.lines()) assert.ok(!line.includes(wrong), 'token leaked into a log line');
  });

  test('a missing token is audited as missing_token', async () => {
    await server.request('GET', '/v1/blueprints', { token: null });
    assert.ok(server.audit({ type: 'auth', reason: 'missing_token', route: '/v1/blueprints' }).length >= 1);
  });

  test('two Authorization headers count as no token', async () => {
    const response = await fetch(`${server.url}/v1/status`, {
      headers: [
        ['authorization', `Bearer ${server.adminToken}`],
        ['authorization', `Bearer ${server.adminToken}`],
      ],
    });
    assert.equal(response.status, 401);
  });

  test('a user token on an admin route gets 403 naming both roles', async () => {
    const reply = await server.request('GET', '/v1/status', { token: server.userToken });
    assert.equal(reply.status, 403);
    assert.equal(reply.headers.get('www-authenticate'), null);
    assert.equal(reply.json.error, 'forbidden');
    assert.match(reply.json.message, /admin/);
    assert.match(reply.json.message, /user/);
    assert.ok(server.audit({ type: 'auth', reason: 'admin_required', route: '/v1/status' }).length >= 1);
    for (const line of server.lines()) assert.ok(!line.includes(server.userToken) && !line.includes(server.adminToken));
  });

  test('/v1/status with the admin token reports address, pid, sessions and blueprints', async () => {
    const reply = await server.request('GET', '/v1/status');
    assert.equal(reply.status, 200);
    assert.equal(reply.json.status, 'running');
    assert.equal(reply.json.bind_addr, `127.0.0.1:${server.port}`);
    assert.equal(reply.json.pid, server.child.pid);
    assert.equal(typeof reply.json.active_sessions, 'number');
    assert.ok(Array.isArray(reply.json.blueprints));
  });

  test('a wrong method answers 401 without a token and 405 with one; unknown paths 404', async () => {
    assert.equal((await server.request('DELETE', '/v1/status', { token: null })).status, 401);
    assert.equal((await server.request('DELETE', '/v1/status')).status, 405);
    assert.equal((await server.request('GET', '/v1/no-such-thing', { token: null })).status, 404);
    assert.equal((await server.request('GET', '/v1/no-such-thing')).status, 404);
  });
});

describe('unauthenticated mode', () => {
  test('serves without tokens, warns in the log, and audits principal unauthenticated', async () => {
    const server = await startServer({ runners: 1, tokens: false, args: ['--allow-unauthenticated'] });
    try {
      const reply = await server.request('GET', '/v1/status', { token: null });
      assert.equal(reply.status, 200);
      assert.ok(server.logs({ level: 'warn', target: 'svc_server::auth' }).length >= 1);
      const started = server.audit({ type: 'server', event: 'started' })[0];
      assert.equal(started.allow_unauthenticated, 'true');
    } finally {
      await server.stop();
    }
  });
});
