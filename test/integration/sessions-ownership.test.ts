// A session belongs to the token that opened it: another user token gets exactly the
// unknown-session answer on every session route (REST and MCP), admin tokens may act on
// any session, the audit names the token that made each request, and ownership survives
// a restart (a record written before owners existed answers admin tokens only).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerBlueprint, WRITE_NOTE, READ_NOTE } from '../support/sessions';
import { newToken, startServer, tempDir, type Reply, type TestServer } from '../harness';

const NOTES = `name: notes
default: allow
secrets:
  USER_TOKEN:
    harness: {required: true}
vfs: per_session
`;

/** A second user token (`intruder`) next to the harness's `harness` token. */
function intruderConfig(home: string, token: string) {
  const file = path.join(home, 'intruder.token');
  fs.writeFileSync(file, `${token}\n`);
  return { api_tokens: [{ name: 'intruder', role: 'user', token_file: file }] };
}

async function startWithIntruder(reuse?: { home: string; adminToken: string; userToken: string; intruderToken: string }) {
  const home = reuse?.home ?? tempDir();
  const intruderToken = reuse?.intruderToken ?? newToken();
  const server = await startServer({ home, runners: 1, config: intruderConfig(home, intruderToken), ...(reuse ? { adminToken: reuse.adminToken, userToken: reuse.userToken } : {}) });
  return { server, intruderToken };
}

/** A body without its per-request execution id, to compare two refusals. */
function withoutExecutionId(reply: Reply): Record<string, unknown> {
  const { execution_id: _ignored, ...rest } = reply.json as Record<string, unknown>;
  return rest;
}

async function open(server: TestServer): Promise<string> {
  const reply = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'notes', secrets: { USER_TOKEN: 'owner-secret' } } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.session_id;
}

// The HTTP and MCP checks share one server: each opens its own sessions.
let server: TestServer;
let intruder: string;
before(async () => {
  ({ server, intruderToken: intruder } = await startWithIntruder());
  await registerBlueprint(server, NOTES);
});
after(async () => {
  await server?.stop();
});

describe('session ownership over HTTP', () => {
  test('another user token gets the unknown-session answer on execute, rebind, last-run and delete; nothing changes', async () => {
    const id = await open(server);
    const wrote = await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code: WRITE_NOTE } });
    assert.equal(wrote.json.error, null, wrote.text);
    const unknown = randomUUID();

    const foreignRun = await server.request('POST', `/v1/sessions/${id}/execute`, { token: intruder, body: { code: READ_NOTE } });
    const unknownRun = await server.request('POST', `/v1/sessions/${unknown}/execute`, { token: intruder, body: { code: READ_NOTE } });
    assert.equal(foreignRun.status, 404);
    assert.deepEqual(withoutExecutionId(foreignRun), { error: 'unknown session', session_id: id });
    assert.deepEqual(Object.keys(foreignRun.json).sort(), Object.keys(unknownRun.json).sort());
    assert.deepEqual(withoutExecutionId(unknownRun), { error: 'unknown session', session_id: unknown });

    const foreignRebind = await server.request('POST', `/v1/sessions/${id}/rebind`, { token: intruder, body: { secrets: { USER_TOKEN: 'stolen' } } });
    assert.equal(foreignRebind.status, 404);
    assert.deepEqual(foreignRebind.json, { error: 'unknown session', session_id: id });

    const foreignLastRun = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: intruder });
    assert.deepEqual([foreignLastRun.status, foreignLastRun.text], [404, '']);
    const foreignDelete = await server.request('DELETE', `/v1/sessions/${id}`, { token: intruder });
    assert.deepEqual([foreignDelete.status, foreignDelete.text], [404, '']);

    // The intruder's refused execute is audited under its own name, never the owner's.
    const refused = server.audit({ type: 'execution', event: 'finished', execution_id: foreignRun.json.execution_id });
    assert.equal(refused.length, 1);
    assert.equal(refused[0].principal, 'intruder');
    assert.equal(refused[0].error_class, 'unknown_session');
    assert.equal(refused[0].blueprint, '', 'the refusal does not reveal the session\'s Blueprint');
    assert.equal(server.audit({ type: 'session', event: 'rebound', session_id: id }).length, 0);
    assert.equal(server.audit({ type: 'session', event: 'deleted', session_id: id }).length, 0);

    // The owner's session is untouched: its file, its last run, its secrets.
    const read = await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code: READ_NOTE } });
    assert.equal(read.json.result, 'remember me', read.text);
    const lastRun = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken });
    assert.equal(lastRun.json.result, 'remember me');
  });

  test('an idempotency key replayed by another token returns nothing of the owner\'s run', async () => {
    const id = await open(server);
    const key = { 'Idempotency-Key': 'k-1' };
    const first = await server.request('POST', `/v1/sessions/${id}/execute`, { token: server.userToken, body: { code: 'export function main() { return "owner data"; }' }, headers: key });
    assert.equal(first.json.result, 'owner data');
    const replay = await server.request('POST', `/v1/sessions/${id}/execute`, { token: intruder, body: { code: 'export function main() { return "owner data"; }' }, headers: key });
    assert.equal(replay.status, 404);
    assert.deepEqual(withoutExecutionId(replay), { error: 'unknown session', session_id: id });
    assert.notEqual(replay.json.execution_id, first.json.execution_id);
    assert.equal(replay.text.includes('owner data'), false);
  });

  test('admin tokens may act on any session, and the audit names the admin', async () => {
    const id = await open(server);
    const run = await server.request('POST', `/v1/sessions/${id}/execute`, { body: { code: 'export function main() { return 7; }' } });
    assert.equal(run.json.result, '7', run.text);
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: run.json.execution_id });
    assert.equal(finished[0].principal, 'SVC_SERVER_TOKEN');
    assert.equal((await server.request('GET', `/v1/sessions/${id}/last-run`)).json.result, '7');
    assert.equal((await server.request('POST', `/v1/sessions/${id}/rebind`, { body: { secrets: { USER_TOKEN: 'rotated' } } })).status, 204);
    assert.equal(server.audit({ type: 'session', event: 'rebound', session_id: id })[0].principal, 'SVC_SERVER_TOKEN');
    assert.equal((await server.request('DELETE', `/v1/sessions/${id}`)).status, 204);
    assert.equal(server.audit({ type: 'session', event: 'deleted', session_id: id })[0].principal, 'SVC_SERVER_TOKEN');
  });

  test('a one-off run\'s last-run answers only the token that ran it (and admin)', async () => {
    const run = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'notes', secrets: { USER_TOKEN: 'x' }, code: 'export function main() { console.log("private"); return 1; }' } });
    const id = run.json.session_id;
    assert.equal(run.json.result, '1', run.text);
    const foreign = await server.request('GET', `/v1/sessions/${id}/last-run`, { token: intruder });
    assert.deepEqual([foreign.status, foreign.text], [404, '']);
    assert.deepEqual((await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken })).json.console, ['private']);
    assert.equal((await server.request('GET', `/v1/sessions/${id}/last-run`)).status, 200);
  });
});

describe('session ownership over MCP', () => {
  async function connect(token: string, sessionId?: string) {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/notes`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, 'svc-secrets': Buffer.from(JSON.stringify({ USER_TOKEN: 'mcp-secret' })).toString('base64url') } },
      ...(sessionId ? { sessionId } : {}),
    });
    const client = new Client({ name: 'svc-test', version: '0.0.1' });
    await client.connect(transport);
    return { client, transport };
  }

  function rawCall(token: string, sessionId: string, code: string) {
    return fetch(`${server.url}/mcp/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'svc__typescript__execute', arguments: { code } } }),
    });
  }

  test('another user token on an existing mcp-session-id is refused as an unknown session and runs nothing', async () => {
    const owner = await connect(server.userToken);
    const id = owner.transport.sessionId!;
    const wrote = await owner.client.callTool({ name: 'svc__typescript__execute', arguments: { code: WRITE_NOTE } });
    assert.equal(wrote.isError, undefined, JSON.stringify(wrote));
    const executionsBefore = server.audit({ type: 'execution', session_id: id }).length;

    // The official SDK client with the owner's session id but the intruder's token.
    const stolen = await connect(intruder, id);
    await assert.rejects(stolen.client.callTool({ name: 'svc__typescript__execute', arguments: { code: READ_NOTE } }), /Session not found|404/);
    await assert.rejects(stolen.client.callTool({ name: 'svc__typescript__last_run', arguments: {} }), /Session not found|404/);

    // The answer is byte for byte the one for a session id that does not exist.
    const foreign = await rawCall(intruder, id, READ_NOTE);
    const unknown = await rawCall(intruder, randomUUID(), READ_NOTE);
    assert.equal(foreign.status, 404);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await foreign.json(), await unknown.json());
    const foreignDelete = await fetch(`${server.url}/mcp/notes`, { method: 'DELETE', headers: { authorization: `Bearer ${intruder}`, 'mcp-session-id': id } });
    assert.equal(foreignDelete.status, 404);

    assert.equal(server.audit({ type: 'execution', session_id: id }).length, executionsBefore, 'the intruder ran nothing in the session');
    assert.equal(server.audit({ principal: 'intruder', session_id: id }).length, 0);
    const still = await owner.client.callTool({ name: 'svc__typescript__execute', arguments: { code: READ_NOTE } });
    assert.equal((still.structuredContent as { result: string }).result, 'remember me');
    await owner.client.close();
  });

  test('the audit names the token that made each MCP request, not the session\'s opener', async () => {
    const owner = await connect(server.userToken);
    const id = owner.transport.sessionId!;
    const reply = await rawCall(server.adminToken, id, 'export function main() { return "by admin"; }');
    assert.equal(reply.status, 200);
    const body = (await reply.json()) as { result: { structuredContent: { result: string; execution_id: string } } };
    assert.equal(body.result.structuredContent.result, 'by admin');
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: body.result.structuredContent.execution_id });
    assert.equal(finished[0].principal, 'SVC_SERVER_TOKEN');
    const mine = await owner.client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'export function main() { return 1; }' } });
    const ownRun = server.audit({ type: 'execution', event: 'finished', execution_id: (mine.structuredContent as { execution_id: string }).execution_id });
    assert.equal(ownRun[0].principal, 'harness');
    await owner.client.close();
  });
});

test('ownership survives a restart; a record written before owners existed answers admin tokens only', async () => {
  const { server: first, intruderToken } = await startWithIntruder();
  await registerBlueprint(first, NOTES);
  const owned = await open(first);
  const legacy = await open(first);
  await first.stop();
  const legacyFile = path.join(first.home, 'server', 'sessions', `${legacy}.json`);
  const record = JSON.parse(fs.readFileSync(legacyFile, 'utf8'));
  assert.equal(record.owner, 'harness');
  assert.equal(JSON.stringify(record).includes(first.userToken), false, 'the record holds the token name, never the token');
  delete record.owner;
  fs.writeFileSync(legacyFile, JSON.stringify(record));

  const { server: second } = await startWithIntruder({ home: first.home, adminToken: first.adminToken, userToken: first.userToken, intruderToken });
  try {
    const rebind = (id: string, token: string) => second.request('POST', `/v1/sessions/${id}/rebind`, { token, body: { secrets: { USER_TOKEN: 'again' } } });
    assert.equal((await rebind(owned, intruderToken)).status, 404);
    assert.equal((await rebind(owned, second.userToken)).status, 204);
    assert.equal((await rebind(legacy, second.userToken)).status, 404, 'an ownerless record is not claimed by the first user token');
    assert.equal((await rebind(legacy, intruderToken)).status, 404);
    assert.equal((await rebind(legacy, second.adminToken)).status, 204);
  } finally {
    await second.stop();
  }
});
