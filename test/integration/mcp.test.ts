// The MCP endpoint with the official SDK client against the real server: the eight tools,
// execute and last-run, bindings through headers and _meta, the Host check, DELETE, a
// restart that keeps the session, files tools, and REST sharing the same session.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, type TestServer } from '../harness';

const NOTES = `name: notes
vfs: per_session
variables: {team: {required: true}}
secrets: {USER_TOKEN: {harness: {}}}
permissions:
  main:
    - {capability: fs.read, filter: 'not (path glob "/private/*")', action: allow}
    - {capability: fs.write, action: allow}
    - {capability: fs.list, action: allow}
    - {capability: fs.stat, action: allow}
    - {capability: fs.mkdir, action: allow}
    - {capability: session.read, action: allow}
    - {capability: session.write, action: allow}
`;
const GUARDED = 'name: guarded\nvfs: ephemeral\nsecrets: {USER_TOKEN: {harness: {required: true}}}\n';

async function connect(server: TestServer, blueprint: string, options: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/${blueprint}`), {
    requestInit: { headers: { authorization: `Bearer ${server.userToken}`, ...(options.headers ?? {}) } },
  });
  const client = new Client({ name: 'svc-test', version: '0.0.1' });
  if (options.meta) {
    // _meta rides on the initialize request.
    const original = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      const m = message as { method?: string; params?: Record<string, unknown> };
      if (m.method === 'initialize') m.params = { ...(m.params ?? {}), _meta: options.meta };
      return original(message, sendOptions);
    };
  }
  await client.connect(transport);
  return { client, transport };
}

function postWithHost(url: string, host: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { host, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('MCP endpoint', () => {
  let server: TestServer;
  before(async () => {
    // svc.internal is an allowed Host besides the server's own (the mcp_allowed_hosts test).
    server = await startServer({ runners: 1, args: ['--mcp-allowed-host', 'svc.internal'] });
    for (const yaml of [NOTES, GUARDED, 'name: other\n']) assert.equal((await server.request('POST', '/v1/blueprints', { body: { yaml } })).status, 200);
  });
  after(async () => server.stop());

  test('tools/list has exactly the eight tools, each described, with valid names', async () => {
    const { client } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'svc__files__list', 'svc__files__read', 'svc__typescript__builtins__docs', 'svc__typescript__builtins__list',
      'svc__typescript__execute', 'svc__typescript__last_run', 'svc__typescript__packages__docs', 'svc__typescript__packages__search',
    ]);
    for (const tool of tools) {
      assert.match(tool.name, /^[A-Za-z0-9_-]{1,64}$/);
      assert.ok((tool.description ?? '').length > 20, tool.name);
    }
    assert.match(tools.find((t) => t.name === 'svc__typescript__execute')!.description!, /svc__typescript__packages__search/);
    await client.close();
  });

  test('execute returns the structured result (isError only when the run ended with an error); last_run has the full console; REST sees the same session', async () => {
    const { client, transport } = await connect(server, 'notes', { meta: { variables: { team: 'red' } } });
    const run = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'import * as fs from "svc:fs";\nimport * as s from "svc:session";\nexport function main() { console.log("hi"); fs.writeText("/n.txt", "mcp"); s.set("k", 1); return 42; }' } });
    const structured = run.structuredContent as { result: string; console: string[]; error: unknown; execution_id: string };
    assert.equal(structured.result, '42');
    assert.deepEqual(structured.console, []);
    assert.equal(run.isError, undefined);
    const last = await client.callTool({ name: 'svc__typescript__last_run', arguments: {} });
    assert.deepEqual((last.structuredContent as { console: string[] }).console, ['hi']);
    const audit = server.audit({ type: 'execution', event: 'finished', execution_id: structured.execution_id })[0];
    assert.equal(audit.entry_point, 'mcp');
    const rest = await server.request('POST', `/v1/sessions/${transport.sessionId}/execute`, { token: server.userToken, body: { code: 'import * as fs from "svc:fs";\nimport * as s from "svc:session";\nexport function main() { return fs.readText("/n.txt") + s.get("k"); }' } });
    assert.equal(rest.json.result, 'mcp1');
    const failed = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'export function main() { throw new Error("x"); }' } });
    assert.equal((failed.structuredContent as { error: { kind: string } }).error.kind, 'runtime_error');
    assert.equal(failed.isError, true, 'a run that ended with an error says so in isError (MCP clients read it)');
    assert.match((failed.content as Array<{ text: string }>)[0].text, /runtime_error/);
    const refused = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'export function main() { return nope(); }' } });
    assert.equal((refused.structuredContent as { error: { kind: string } }).error.kind, 'compile_error');
    assert.equal(refused.isError, true, 'a compile_error is an error too');
    await client.close();
  });

  test('a missing required variable is HTTP 400 and no session; required harness secrets come through svc-secrets', async () => {
    const missing = await fetch(`${server.url}/mcp/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    assert.equal(missing.status, 400);
    assert.match(await missing.text(), /team/);
    const withSecret = await connect(server, 'guarded', { headers: { 'svc-secrets': Buffer.from(JSON.stringify({ USER_TOKEN: 'tok' })).toString('base64url') } });
    await withSecret.client.close();
    await assert.rejects(connect(server, 'guarded'), /400|USER_TOKEN/);
  });

  test('a Host header that is not allowed gets 403 plain text', async () => {
    // fetch cannot set Host, so this goes through node:http.
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${server.url}/mcp/notes`, { method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    assert.equal(status, 403);
    assert.match(text, /Host header is not allowed/);
  });

  test('a body over 2 MiB is 413, a body that is not JSON is a JSON-RPC parse error, GET and PUT are 405; none opens a session', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const sessionsBefore = server.audit({ type: 'session', event: 'created' }).length;
    const large = await server.request('POST', '/mcp/notes', { token: server.userToken, headers, rawBody: `"${'x'.repeat(2 * 1024 * 1024)}"` });
    assert.equal(large.status, 413);
    assert.match(large.text, /larger than 2 MiB/);
    const garbled = await server.request('POST', '/mcp/notes', { token: server.userToken, headers, rawBody: '{"jsonrpc": "2.0", "method": "initialize"' });
    assert.equal(garbled.status, 400);
    assert.deepEqual(garbled.json, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON' }, id: null });
    const noInit = await server.request('POST', '/mcp/notes', { token: server.userToken, headers, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    assert.equal(noInit.status, 400);
    assert.match(noInit.text, /start with initialize/);
    const get = await server.request('GET', '/mcp/notes', { token: server.userToken });
    assert.equal(get.status, 405);
    assert.match(get.text, /GET is not supported/);
    assert.equal((await server.request('PUT', '/mcp/notes', { token: server.userToken, headers, body: {} })).status, 405);
    assert.equal(server.audit({ type: 'session', event: 'created' }).length, sessionsBefore);
  });

  test('DELETE ends the session (204) and later requests with its id are 404; an unknown id is 404', async () => {
    const { client, transport } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const id = transport.sessionId!;
    const headers = { 'mcp-session-id': id };
    assert.equal((await server.request('DELETE', '/mcp/notes', { token: server.userToken, headers })).status, 204);
    assert.equal((await server.request('DELETE', '/mcp/notes', { token: server.userToken, headers })).status, 404);
    assert.equal((await server.request('POST', '/mcp/notes', { token: server.userToken, headers, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).status, 404);
    assert.equal((await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken })).status, 404);
    await client.close().catch(() => undefined);
  });

  test('files tools: read windows with paging, list a nested tree, a denied path is an isError result', async () => {
    const { client } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const setup = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'import * as fs from "svc:fs";\nexport function main() { fs.mkdir("/a/b", true); fs.mkdir("/private"); fs.writeText("/private/s.txt", "s"); fs.writeText("/a/b/big.txt", Array.from({ length: 5000 }, (_, i) => "line " + (i + 1)).join("\\n")); }' } });
    assert.equal((setup.structuredContent as { error: unknown }).error, null, JSON.stringify(setup.structuredContent));
    const first = await client.callTool({ name: 'svc__files__read', arguments: { path: '/a/b/big.txt', offset: 4990, limit: 20 } });
    assert.deepEqual(first.structuredContent, {
      path: '/a/b/big.txt',
      content: Array.from({ length: 11 }, (_, i) => `line ${4990 + i}`).join('\n'),
      line_start: 4990,
      line_end: 5000,
      returned_lines: 11,
      has_more: false,
      next_offset: null,
      truncated_lines: 0,
      bytes: Buffer.byteLength(Array.from({ length: 5000 }, (_, i) => 'line ' + (i + 1)).join('\n')),
    });
    const paged = await client.callTool({ name: 'svc__files__read', arguments: { path: 'a/b/big.txt' } });
    const p = paged.structuredContent as { line_start: number; line_end: number; returned_lines: number; has_more: boolean; next_offset: number };
    assert.deepEqual([p.line_start, p.line_end, p.returned_lines, p.has_more, p.next_offset], [1, 2000, 2000, true, 2001]);
    // Some clients send every argument as a string; the tools accept them.
    const stringly = await client.callTool({ name: 'svc__files__read', arguments: { path: '/a/b/big.txt', offset: '2', limit: '1' } });
    assert.equal((stringly.structuredContent as { content: string }).content, 'line 2');
    const listed = await client.callTool({ name: 'svc__files__list', arguments: { path: '/', recursive: true } });
    assert.deepEqual(listed.structuredContent, {
      path: '/',
      entries: [
        { path: '/a', kind: 'directory', bytes: 0 },
        { path: '/a/b', kind: 'directory', bytes: 0 },
        { path: '/a/b/big.txt', kind: 'file', bytes: (first.structuredContent as { bytes: number }).bytes },
        { path: '/private', kind: 'directory', bytes: 0 },
        { path: '/private/s.txt', kind: 'file', bytes: 1 },
      ],
      count: 5,
      truncated: false,
    });
    const top = await client.callTool({ name: 'svc__files__list', arguments: {} });
    assert.deepEqual((top.structuredContent as { entries: Array<{ path: string }> }).entries.map((e) => e.path), ['/a', '/private']);
    const missing = await client.callTool({ name: 'svc__files__read', arguments: { path: '/nope.txt' } });
    assert.equal(missing.isError, true);
    assert.deepEqual((missing.structuredContent as { error: { kind: string } }).error.kind, 'file_error');
    assert.match((missing.structuredContent as { error: { message: string } }).error.message, /^\/nope\.txt: /);
    const directory = await client.callTool({ name: 'svc__files__read', arguments: { path: '/a' } });
    assert.equal((directory.structuredContent as { error: { kind: string } }).error.kind, 'file_error');
    const denied = await client.callTool({ name: 'svc__files__read', arguments: { path: '/private/s.txt' } });
    assert.equal(denied.isError, true);
    const deniedError = (denied.structuredContent as { error: { kind: string; message: string } }).error;
    assert.equal(deniedError.kind, 'permission_denied');
    assert.match(deniedError.message, /^permission denied: caller=main capability=fs\.read: /);
    const decision = server.audit({ type: 'decision', decision: 'deny', capability: 'fs.read' }).at(-1)!;
    assert.equal(decision.execution_id, undefined);
    await client.close();
  });

  test('last_run before any run is an isError result with kind no_previous_run; after a run it names the execution', async () => {
    const { client } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const none = await client.callTool({ name: 'svc__typescript__last_run', arguments: {} });
    assert.equal(none.isError, true);
    const error = (none.structuredContent as { error: { kind: string; message: string } }).error;
    assert.equal(error.kind, 'no_previous_run');
    assert.ok(error.message.length > 10);
    const run = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'export function main() { console.log("x"); return 1; }' } });
    const last = await client.callTool({ name: 'svc__typescript__last_run', arguments: {} });
    assert.equal(last.isError, undefined);
    assert.deepEqual(last.structuredContent, { result: '1', console: ['x'], error: null, execution_id: (run.structuredContent as { execution_id: string }).execution_id });
    await client.close();
  });

  test('every tool refuses undeclared or mistyped arguments as invalid_arguments, and nothing runs', async () => {
    const { client } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const before = server.audit({ type: 'execution', event: 'started' }).length;
    const extra = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'export function main() { return 1; }', blueprint: 'other' } });
    assert.equal(extra.isError, true);
    const e = (extra.structuredContent as { error: { kind: string; message: string } }).error;
    assert.equal(e.kind, 'invalid_arguments');
    assert.match(e.message, /blueprint/);
    assert.equal(server.audit({ type: 'execution', event: 'started' }).length, before);
    for (const [name, args] of [
      ['svc__typescript__last_run', { verbose: true }],
      ['svc__typescript__packages__search', { query: 'fs', limit: 3 }],
      ['svc__typescript__packages__docs', {}],
      ['svc__typescript__builtins__list', { x: 1 }],
      ['svc__typescript__builtins__docs', { names: [] }],
      ['svc__files__read', { path: '/a', offset: 0 }],
      ['svc__files__read', { path: '/a', limit: 'many' }],
      ['svc__files__list', { path: '/', deep: true }],
      ['svc__typescript__execute', { code: 42 }],
    ] as Array<[string, Record<string, unknown>]>) {
      const answer = await client.callTool({ name, arguments: args });
      assert.equal(answer.isError, true, name);
      assert.equal((answer.structuredContent as { error: { kind: string } }).error.kind, 'invalid_arguments', `${name} ${JSON.stringify(args)}`);
    }
    // A single string for names becomes a one-element list.
    const docs = await client.callTool({ name: 'svc__typescript__builtins__docs', arguments: { names: 'Math.max' } });
    assert.equal(docs.isError, undefined);
    assert.equal((docs.structuredContent as { results: Array<{ name: string }> }).results[0].name, 'Math.max');
    await assert.rejects(client.callTool({ name: 'svc__nope', arguments: {} }), /svc__nope/);
    await client.close();
  });

  test('tools declare closed input schemas and the read-only ones say so', async () => {
    const { client } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const { tools } = await client.listTools();
    for (const tool of tools) assert.equal((tool.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, tool.name);
    // Everything but execute only reads.
    assert.deepEqual(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name), ['svc__typescript__execute']);
    await client.close();
  });

  test('mcp_allowed_hosts admits a configured Host; a session id minted under one Blueprint is unknown under another', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const admitted = await postWithHost(`${server.url}/mcp/notes`, 'svc.internal:8128', server.userToken, init, { 'svc-variables': 'team=blue' });
    assert.equal(admitted.status, 200, admitted.text);
    const refused = await postWithHost(`${server.url}/mcp/notes`, 'elsewhere.internal', server.userToken, init);
    assert.equal(refused.status, 403);
    const { transport, client } = await connect(server, 'notes', { headers: { 'svc-variables': 'team=blue' } });
    const crossed = await server.request('POST', '/mcp/other', { token: server.userToken, headers: { 'mcp-session-id': transport.sessionId!, accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
    assert.equal(crossed.status, 404);
    await client.close();
  });
});

test('an MCP session survives a restart: the same id keeps working and its file is still there', async () => {
  const first = await startServer({ runners: 1 });
  // Unchecked (typecheck: off strips the types alone): the test is about the session, and
  // each of the two servers would load a type checker for its one program (about 1 CPU-s).
  await first.request('POST', '/v1/blueprints', { body: { yaml: `${NOTES}typecheck: off\n` } });
  const { client, transport } = await connect(first, 'notes', { headers: { 'svc-variables': 'team=blue' } });
  await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("/keep.txt", "kept"); }' } });
  const id = transport.sessionId!;
  await first.stop();
  const second = await startServer({ runners: 1, home: first.home, adminToken: first.adminToken, userToken: first.userToken });
  try {
    const reply = await fetch(`${second.url}/mcp/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${second.userToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'svc__typescript__execute', arguments: { code: 'import * as fs from "svc:fs";\nexport function main() { return fs.readText("/keep.txt"); }' } } }),
    });
    assert.equal(reply.status, 200, await reply.clone().text());
    const body = (await reply.json()) as { result: { structuredContent: { result: string } } };
    assert.equal(body.result.structuredContent.result, 'kept');
  } finally {
    await second.stop();
  }
});
