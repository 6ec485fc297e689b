// A run uses exactly one Blueprint version, the one in force when it started: a Blueprint
// replaced (PUT) while runs are parked on a far end does not change what those runs' later
// calls send (auth_proxy's secret comes from the old version), while a run started after the
// replacement uses the new version. One-off, session and MCP runs alike.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, type TestServer } from '../harness';

/** `/park` answers only when `release()` is called; `/record` records the Authorization header it got. */
async function gatedFarEnd() {
  const parked: http.ServerResponse[] = [];
  const seen: string[] = [];
  let arrivals: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    if (req.url === '/park') {
      parked.push(res);
      arrivals.forEach((wake) => wake());
      arrivals = [];
      return;
    }
    seen.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(req.headers.authorization ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Resolves once `count` runs wait on `/park`. */
    parkedCount: async (count: number) => {
      while (parked.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
    },
    release: () => parked.splice(0).forEach((res) => res.writeHead(200).end('go')),
    close: () => server.close(),
  };
}

const blueprintYaml = (storeKey: string) => `name: tenant
allow_insecure_http: true
secrets: {API: {store: ${storeKey}}}
auth_proxy:
  - host: 127.0.0.1
    allow_insecure_http: true
    auth: {bearer: API}
default: allow
`;

let server: TestServer;
let far: Awaited<ReturnType<typeof gatedFarEnd>>;
const first = `first-${randomBytes(6).toString('hex')}`;
const second = `second-${randomBytes(6).toString('hex')}`;

before(async () => {
  far = await gatedFarEnd();
  server = await startServer({ runners: 3, args: ['--allow-localhost'], env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') } });
  for (const [key, value] of [['k1', first], ['k2', second]]) {
    const stored = await server.request('POST', '/v1/secrets', { body: { key, value } });
    assert.ok(stored.status < 300, stored.text);
  }
  const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: blueprintYaml('k1') } });
  assert.equal(registered.status, 200, registered.text);
});
after(async () => {
  await server?.stop();
  far?.close();
});

test('runs parked across a Blueprint replacement keep the version they started with; a new run uses the new one', async () => {
  const program = `import * as http from "svc:http";\nexport function main() { http.get("http://127.0.0.1:${far.port}/park"); return http.get("http://127.0.0.1:${far.port}/record").body; }`;
  const opened = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'tenant' } });
  assert.equal(opened.status, 200, opened.text);
  const oneOff = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'tenant', code: program } });
  const inSession = server.request('POST', `/v1/sessions/${opened.json.session_id}/execute`, { token: server.userToken, body: { code: program } });
  const mcp = new Client({ name: 'svc-test', version: '0.0.1' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/tenant`), { requestInit: { headers: { authorization: `Bearer ${server.userToken}` } } }));
  const viaMcp = mcp.callTool({ name: 'svc__typescript__execute', arguments: { code: program } });
  await far.parkedCount(3);

  const replaced = await server.request('PUT', '/v1/blueprints/tenant', { body: { yaml: blueprintYaml('k2') } });
  assert.equal(replaced.status, 200, replaced.text);
  far.release();

  for (const reply of [await oneOff, await inSession]) {
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
    assert.equal(reply.json.result, `Bearer ${first}`);
  }
  const mcpRun = (await viaMcp).structuredContent as { result: string; error: unknown };
  assert.equal(mcpRun.error, null, JSON.stringify(mcpRun.error));
  assert.equal(mcpRun.result, `Bearer ${first}`);
  await mcp.close();

  const later = server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'tenant', code: program } });
  await far.parkedCount(1);
  far.release();
  const reply = await later;
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  assert.equal(reply.json.result, `Bearer ${second}`);
});
