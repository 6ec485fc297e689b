// `network.hosts` end to end: a program calls a real-looking public name over HTTPS through
// svc:http, and a loopback stand-in with a test-CA certificate for that name answers it. The
// entry replaces DNS only: the address still passes the outbound block.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../harness';
import { startStandIn, testCa, type StandIn } from '../support/stand-in';

const HOST = 'api.example-service.test';
const FILE_HOST = 'file.example-service.test';
const ENV_HOST = 'env.example-service.test';
// The shared machine runs at a load of 20+.
const START_MS = 60_000;

describe('network.hosts', () => {
  let api: StandIn;
  before(async () => {
    api = await startStandIn([HOST, FILE_HOST, ENV_HOST], (req) => ({ status: 200, json: { host: req.host, path: req.path, method: req.method } }));
  });
  after(() => api.close());

  const program = (port: number) =>
    `import * as http from "svc:http";\nexport function main() { try { const r = http.get("https://${HOST}:${port}/v1/ping?x=1"); return [r.status, r.json()]; } catch (e) { return String(e.message); } }`;

  test('an entry from the flag, the config file or SVC_ADD_HOSTS sends the real host name to the stand-in, TLS verified against the test CA', async () => {
    // One server takes an entry from each source (they merge); each name reaching the
    // stand-in proves its source. That settings_hash covers the entries is a unit test's.
    const server = await startServer({
      runners: 1,
      args: ['--allow-localhost', '--add-host', `${HOST}=127.0.0.1`],
      config: { network: { hosts: { [FILE_HOST]: '127.0.0.1' } } },
      env: { NODE_EXTRA_CA_CERTS: testCa().certFile, SVC_ADD_HOSTS: `other.test=127.0.0.9, ${ENV_HOST}=127.0.0.1` },
      timeoutMs: START_MS,
    });
    try {
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\ntypecheck: off\n' } });
      const hosts = [HOST, FILE_HOST, ENV_HOST];
      const code = `import * as http from "svc:http";\nexport function main() { return ${JSON.stringify(hosts)}.map((host) => { try { const r = http.get("https://" + host + ":${api.port}/v1/ping?x=1"); return [r.status, r.json()]; } catch (e) { return String(e.message); } }); }`;
      const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(JSON.parse(reply.json.result), hosts.map((host) => [200, { host, path: '/v1/ping?x=1', method: 'GET' }]));
      assert.deepEqual(api.requests.slice(-3).map((r) => r.host), hosts);
    } finally {
      await server.stop();
    }
  });

  test('without allow_localhost the loopback entry is blocked: nothing is sent, an egress_guard denial is recorded', async () => {
    const server = await startServer({ runners: 1,  args: ['--add-host', `${HOST}=127.0.0.1`], env: { NODE_EXTRA_CA_CERTS: testCa().certFile }, timeoutMs: START_MS });
    try {
      await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\ndefault: allow\ntypecheck: off\n' } });
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
