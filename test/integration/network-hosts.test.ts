// `network.hosts` end to end: a program calls a real-looking public name over HTTPS through
// svc:http, and a loopback stand-in with a test-CA certificate for that name answers it. The
// entry replaces DNS only: the address still passes the outbound block.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../harness';
import { serverOptions, startStandIn, testCa, type StandIn } from '../support/stand-in';

const HOST = 'api.example-service.test';
// The shared machine runs at a load of 20+.
const START_MS = 60_000;

describe('network.hosts', () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn([HOST], (req) => ({ status: 200, json: { host: req.host, path: req.path, method: req.method } }));
  });
  after(() => api.close());

  const program = (port: number) =>
    `import * as http from "svc:http";\nexport function main() { try { const r = http.get("https://${HOST}:${port}/v1/ping?x=1"); return [r.status, r.json()]; } catch (e) { return String(e.message); } }`;

  test('a flag entry sends the real host name to the stand-in, TLS verified against the test CA', async () => {
    const server = await startServer({ runners: 1,  ...serverOptions(api), timeoutMs: START_MS });
    try {
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\n' } });
      const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: program(api.port) } });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(JSON.parse(reply.json.result), [200, { host: HOST, path: '/v1/ping?x=1', method: 'GET' }]);
      assert.equal(api.requests.at(-1)?.host, HOST);
    } finally {
      await server.stop();
    }
  });

  test('the config file and SVC_ADD_HOSTS work too, and the entry changes settings_hash', async () => {
    const plain = await startServer({ runners: 1,  args: ['--allow-localhost'], env: { NODE_EXTRA_CA_CERTS: testCa().certFile }, timeoutMs: START_MS });
    const plainHash = plain.audit({ type: 'server', event: 'started' })[0]?.settings_hash;
    await plain.stop();
    for (const options of [{ config: { network: { hosts: { [HOST]: '127.0.0.1' } } } }, { env: { SVC_ADD_HOSTS: `other.test=127.0.0.9, ${HOST}=127.0.0.1` } }]) {
      const server = await startServer({ runners: 1,  args: ['--allow-localhost'], ...options, env: { NODE_EXTRA_CA_CERTS: testCa().certFile, ...('env' in options ? options.env : {}) }, timeoutMs: START_MS });
      try {
        assert.notEqual(server.audit({ type: 'server', event: 'started' })[0]?.settings_hash, plainHash);
        await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\n' } });
        const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: program(api.port) } });
        assert.equal(JSON.parse(reply.json.result)[0], 200, reply.text);
      } finally {
        await server.stop();
      }
    }
  });

  test('without allow_localhost the loopback entry is blocked: nothing is sent, an egress_guard denial is recorded', async () => {
    const server = await startServer({ runners: 1,  args: ['--add-host', `${HOST}=127.0.0.1`], env: { NODE_EXTRA_CA_CERTS: testCa().certFile }, timeoutMs: START_MS });
    try {
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\n' } });
      const before = api.requests.length;
      const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: program(api.port) } });
      assert.match(reply.json.result, /blocked by network policy: api\.example-service\.test resolves only to loopback/);
      assert.equal(api.requests.length, before);
      assert.equal(server.audit({ type: 'decision', execution_id: reply.json.execution_id, source: 'egress_guard' }).length, 1);
    } finally {
      await server.stop();
    }
  });
});
