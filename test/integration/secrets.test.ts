// The secret store against the real server: values go in and never come out (not in
// responses, the sealed files or the log), survive a restart with the same key, a wrong
// key stops startup clearly, and no configured key answers no_secret_store.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runServerBinary, startServer, tempDir, type TestServer } from '../harness';

const CANARY = 'canary-value-5f1e9a2b7c';

test('a stored value never comes back out and survives a restart with the same key', async () => {
  const home = tempDir();
  const key = randomBytes(32).toString('base64');
  const server = await startServer({ home, env: { SVC_SECRET_KEY: key } });
  let adminToken = server.adminToken;
  let userToken = server.userToken;
  try {
    const put = await server.request('POST', '/v1/secrets', { body: { key: 'billing/api_key', value: CANARY } });
    assert.equal(put.status, 200);
    assert.deepEqual(put.json, { key: 'billing/api_key' });
    const list = await server.request('GET', '/v1/secrets');
    assert.deepEqual(list.json, { keys: ['billing/api_key'] });
    assert.equal((await server.request('GET', '/v1/secrets?prefix=other')).json.keys.length, 0);
    const blueprint = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: billing\ntypecheck: off\nsecrets: {API_KEY: {store: billing/api_key}}\n' } });
    assert.equal(blueprint.status, 200, blueprint.text);
    assert.equal(server.audit({ type: 'admin', event: 'secret_put' })[0].key, 'billing/api_key');
    assert.equal((await server.request('POST', '/v1/secrets', { body: { key: '../escape', value: 'x' } })).json.error, 'invalid_key');
    assert.equal((await server.request('POST', '/v1/secrets', { body: { key: 'empty', value: '' } })).json.error, 'invalid_value');
    adminToken = server.adminToken;
    userToken = server.userToken;
  } finally {
    await server.stop();
  }
  for (const line of server.lines()) assert.ok(!line.includes(CANARY), 'the value reached the log');
  const secretDir = path.join(home, 'server', 'secrets');
  for (const file of fs.readdirSync(secretDir)) {
    assert.ok(!fs.readFileSync(path.join(secretDir, file)).includes(Buffer.from(CANARY)), `${file} holds the value in clear`);
  }

  const again = await startServer({ home, env: { SVC_SECRET_KEY: key }, adminToken, userToken });
  try {
    assert.deepEqual((await again.request('GET', '/v1/secrets')).json, { keys: ['billing/api_key'] });
    const deleted = await again.request('DELETE', '/v1/secrets/billing%2Fapi_key');
    assert.deepEqual(deleted.json, { key: 'billing/api_key' });
    assert.equal(again.audit({ type: 'admin', event: 'secret_deleted' })[0].key, 'billing/api_key');
    assert.equal((await again.request('DELETE', '/v1/secrets/billing/api_key')).status, 404);
  } finally {
    await again.stop();
  }

  const wrongKey = await runServerBinary([], { SVC_SECRET_KEY: randomBytes(32).toString('base64'), SVC_SERVER_TOKEN: adminToken, SVC_PORT: '0', HOME: home }, home);
  assert.equal(wrongKey.code, 1);
  assert.match(wrongKey.stderr, /does not match the stored secrets/);
});

test('no response, audit line or log line carries a value; keys with slashes list by prefix and delete percent-encoded or not', async () => {
  const server = await startServer({ env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') } });
  const bodies: string[] = [];
  try {
    for (const key of ['team/a', 'team/b', 'other']) {
      const reply = await server.request('POST', '/v1/secrets', { body: { key, value: `${CANARY}-${key}` } });
      assert.equal(reply.status, 200);
      bodies.push(reply.text);
    }
    const listed = await server.request('GET', '/v1/secrets?prefix=team%2F');
    assert.deepEqual(listed.json, { keys: ['team/a', 'team/b'] });
    bodies.push(listed.text);
    const reserved = await server.request('POST', '/v1/secrets', { body: { key: 'mcp_oauth/x', value: CANARY } });
    assert.equal(reserved.status, 400);
    assert.equal(reserved.json.error, 'invalid_key');
    bodies.push(reserved.text);
    const plain = await server.request('DELETE', '/v1/secrets/team/a');
    assert.deepEqual(plain.json, { key: 'team/a' });
    const missing = await server.request('DELETE', '/v1/secrets/team%2Fa');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error, 'not_found');
    bodies.push(plain.text, missing.text);
    const failed = server.audit({ type: 'admin', event: 'secret_deleted', status: '404' })[0];
    assert.equal(failed.key, 'team/a');
    assert.equal(failed.outcome, 'error');
    assert.equal(server.audit({ type: 'admin', event: 'secret_put', key: 'mcp_oauth/x' })[0].status, '400');
  } finally {
    await server.stop();
  }
  for (const text of bodies) assert.ok(!text.includes(CANARY), `a response carried the value: ${text}`);
  for (const line of server.lines()) assert.ok(!line.includes(CANARY), 'the value reached the audit trail or the log');
  assert.ok(!server.stderr().includes(CANARY));
});

describe('without a store key', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ runners: 1 });
  });
  after(async () => {
    await server?.stop();
  });

  test('the secret endpoints answer 503 no_secret_store', async () => {
    const reply = await server.request('POST', '/v1/secrets', { body: { key: 'k', value: 'v' } });
    assert.equal(reply.status, 503);
    assert.equal(reply.json.error, 'no_secret_store');
    const blueprint = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: s\ntypecheck: off\nsecrets: {K: {store: k}}\n' } });
    assert.equal(blueprint.json.error, 'unresolved_secret');
  });

  test('listing and deleting also answer 503 no_secret_store', async () => {
    const list = await server.request('GET', '/v1/secrets');
    assert.equal(list.status, 503);
    assert.match(list.json.message, /no secret store is configured on this server/);
    const removed = await server.request('DELETE', '/v1/secrets/k');
    assert.equal(removed.status, 503);
    assert.equal(server.audit({ type: 'admin', event: 'secret_deleted' })[0].status, '503');
  });
});
