// Approvals through the MCP session that started the run: a client that declared the
// `elicitation` capability is asked (elicitation/create, schema {approve, reason?}) while
// its tool call waits; its answer settles the approval (decided_by its token, via mcp). A
// REST answer while the question is open settles it first, and the client's late answer is
// ignored. A client without the capability is never asked (the approval waits for REST).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from '../harness';
import { eventually } from '../support/wait';

type ElicitHandler = (request: { params: { message: string; requestedSchema: unknown } }) => Promise<ElicitResult>;

describe('approvals through MCP elicitation', () => {
  let server: TestServer;
  let far: http.Server;
  let port = 0;
  const received: string[] = [];
  before(async () => {
    far = http.createServer((req, res) => {
      received.push(req.url ?? '');
      res.end(`sent ${req.url}`);
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    port = (far.address() as AddressInfo).port;
    server = await startServer({ args: ['--allow-localhost'] });
    const yaml = 'name: gated\nallow_insecure_http: true\ndefault: allow\npermissions:\n  main:\n    - capability: http.post\n      action: ask-human\n';
    assert.ok((await server.request('POST', '/v1/blueprints', { body: { yaml } })).status < 300);
  });
  after(async () => {
    await server.stop();
    far.closeAllConnections();
    far.close();
  });

  async function connect(onElicit?: ElicitHandler): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/gated`), { requestInit: { headers: { authorization: `Bearer ${server.userToken}` } } });
    const client = new Client({ name: 'svc-test', version: '0.0.1' }, { capabilities: onElicit ? { elicitation: {} } : {} });
    if (onElicit) client.setRequestHandler(ElicitRequestSchema, onElicit as never);
    await client.connect(transport);
    return client;
  }

  const program = (path: string) => `export async function main() { try { return await (await fetch("http://127.0.0.1:${port}${path}", { method: "POST", body: "x" })).text(); } catch (e: any) { return e.cause.source + ": " + e.cause.message; } }`;
  const execute = (client: Client, path: string) => client.callTool({ name: 'svc__typescript__execute', arguments: { code: program(path) } }, undefined, { timeout: 600_000 });
  const resultOf = (reply: Awaited<ReturnType<typeof execute>>) => (reply.structuredContent as { result: string }).result;

  test("the client's approval answers the elicitation: the call goes through, decided_by is the session's token, via mcp", async () => {
    const asked: Array<{ message: string; requestedSchema: any }> = [];
    const client = await connect(async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { approve: true } };
    });
    try {
      const reply = await execute(client, '/mcp-approved');
      assert.equal(resultOf(reply), 'sent /mcp-approved');
      assert.equal(asked.length, 1);
      assert.match(asked[0].message, /http\.post to 127\.0\.0\.1\/mcp-approved/);
      assert.deepEqual(asked[0].requestedSchema.required, ['approve']);
      assert.equal(asked[0].requestedSchema.properties.approve.type, 'boolean');
      assert.equal(asked[0].requestedSchema.properties.reason.type, 'string');
      const [approval] = (await server.request('GET', '/v1/approvals?state=approved')).json.approvals;
      assert.equal(approval.decided_by, 'harness');
      const [record] = server.audit({ type: 'approval', event: 'approved', approval_id: approval.approval_id });
      assert.equal(record.via, 'mcp');
    } finally {
      await client.close();
    }
  });

  test("the client's denial and reason reach the program", async () => {
    const client = await connect(async () => ({ action: 'accept', content: { approve: false, reason: 'not from this laptop' } }));
    try {
      assert.match(resultOf(await execute(client, '/mcp-denied')), /^human: .*a person denied http\.post to 127\.0\.0\.1\/mcp-denied \(caller main\): not from this laptop/);
    } finally {
      await client.close();
    }
  });

  test('a REST answer while the question is open settles it; the late elicitation answer is ignored', async () => {
    let answer!: (result: ElicitResult) => void;
    let questions = 0;
    const client = await connect(
      () =>
        new Promise<ElicitResult>((resolve) => {
          questions++;
          answer = resolve;
        }),
    );
    try {
      const running = execute(client, '/rest-first');
      const id = await eventually('the approval', async () => (await server.request('GET', '/v1/approvals?blueprint=gated')).json.approvals[0]?.approval_id as string | undefined);
      await eventually('the question to the client', () => questions === 1);
      const approved = await server.request('POST', `/v1/approvals/${id}`, { body: { decision: 'approve' } });
      assert.equal(approved.status, 200, approved.text);
      assert.equal(resultOf(await running), 'sent /rest-first');
      answer({ action: 'accept', content: { approve: false, reason: 'too late' } });
      const after = await server.request('GET', `/v1/approvals/${id}`);
      assert.equal(after.json.state, 'approved');
      assert.equal(after.json.decided_by, 'SVC_SERVER_TOKEN');
      assert.deepEqual(server.audit({ type: 'approval', approval_id: id }).map((r) => r.event), ['created', 'approved']);
    } finally {
      await client.close();
    }
  });

  test('a client without the elicitation capability is not asked: the approval waits for a REST answer', async () => {
    const client = await connect();
    try {
      received.length = 0;
      const running = execute(client, '/no-elicitation');
      const id = await eventually('the approval', async () => (await server.request('GET', '/v1/approvals?blueprint=gated')).json.approvals[0]?.approval_id as string | undefined);
      assert.deepEqual(received, []);
      await server.request('POST', `/v1/approvals/${id}`, { body: { decision: 'approve' } });
      assert.equal(resultOf(await running), 'sent /no-elicitation');
    } finally {
      await client.close();
    }
  });
});
