// svc as an MCP client: real upstream MCP servers built with
// the official SDK on loopback HTTPS; discovery, declarations from schemas, calls allowed
// and denied (nothing sent when denied), result mapping, unavailable servers and
// discovery_warnings, static headers from store and harness secrets.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, tempDir, type TestServer } from '../harness';
import { runSvc } from '../support/cli';
import { testCa } from '../support/stand-in';
import { startMcpUpstream, upstreamServerOptions, type McpUpstream, type UpstreamTool } from '../support/mcp-upstream';

const STORE_TOKEN = `store-${randomBytes(12).toString('hex')}`;
const USER_TOKEN = `harness-${randomBytes(12).toString('hex')}`;

const TRACKER_TOOLS: UpstreamTool[] = [
  {
    name: 'get_issue',
    description: 'Fetch one issue.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' }, includeComments: { type: 'boolean' } }, required: ['id'] },
    outputSchema: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, state: { type: ['string', 'null'] } }, required: ['id', 'title', 'state'] },
    call: (args) => ({ content: [{ type: 'text', text: 'ignored when structured' }], structuredContent: { id: args.id, title: 'Broken build', state: null } }),
  },
  {
    name: 'list_teams',
    description: 'List teams.',
    inputSchema: { type: 'object', properties: { first: { type: 'number' } } },
    call: (args) => ({ content: [{ type: 'text', text: JSON.stringify([{ name: 'core', first: args.first ?? null }]) }] }),
  },
  { name: 'create-issue', description: 'Create an issue.', inputSchema: { type: 'object', properties: { title: { type: 'string' }, teamId: { type: 'string' } }, required: ['title'] }, call: () => ({ content: [{ type: 'text', text: 'created ABC-2' }] }) },
  { name: 'parts', inputSchema: { type: 'object' }, call: () => ({ content: [{ type: 'text', text: 'one' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'text', text: 'two' }] }) },
  { name: 'nothing', call: () => ({ content: [] }) },
  { name: 'fail', call: () => ({ content: [{ type: 'text', text: 'boom: quota' }], isError: true }) },
  { name: 'secret_op', description: 'Denied by the Blueprint.' },
  { name: 'mixed', inputSchema: { type: 'object', properties: { where: { allOf: [{ type: 'string' }] }, mode: { type: 'string', enum: ['fast', 'slow'] }, tags: { type: 'array', items: { type: 'string' } } } } },
  { name: 'dup' },
  { name: 'dup' },
];

const PAGED_TOOLS: UpstreamTool[] = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((name) => ({ name, call: () => ({ content: [{ type: 'text', text: name }] }) }));

// Unchecked (typecheck: off strips the types alone): the runs here are about discovery, calls
// and headers, and the server (and the local run's CLI) would load a type checker for them;
// the generated declarations are asserted as text here and type-checked in typecheck.test.
function blueprint(tracker: McpUpstream, paged: McpUpstream, personal: McpUpstream, flaky: McpUpstream): string {
  return `name: mcpc
vfs: none
typecheck: off
secrets:
  PAGED_TOKEN: {store: paged_token}
  USER_TOKEN: {harness: {}}
mcp:
  tracker:
    url: ${tracker.url}
  paged:
    url: ${paged.url}
    transport: sse
    headers:
      Authorization: "Bearer \${secrets.PAGED_TOKEN}"
  personal:
    url: ${personal.url}
    headers:
      Authorization: "Bearer \${secrets.USER_TOKEN}"
  flaky:
    url: ${flaky.url}
  down:
    url: https://10.20.30.40/mcp
permissions:
  main:
    - {capability: mcp.tracker, filter: 'tool != "secret_op"', action: allow}
    - {capability: mcp.paged, action: allow}
    - {capability: mcp.personal, action: allow}
    - {capability: mcp.down, action: allow}
    - {capability: mcp.flaky, action: allow}
`;
}

describe('MCP client Packages', () => {
  let server: TestServer;
  let tracker: McpUpstream;
  let paged: McpUpstream;
  let personal: McpUpstream;
  let flaky: McpUpstream;

  before(async () => {
    tracker = await startMcpUpstream({ host: 'mcp.tracker-example.com', tools: TRACKER_TOOLS });
    paged = await startMcpUpstream({ host: 'mcp.paged-example.com', tools: PAGED_TOOLS, stateless: true, pageSize: 2, requireAuthorization: `Bearer ${STORE_TOKEN}` });
    personal = await startMcpUpstream({ host: 'api.personal-example.net', tools: [{ name: 'whoami', call: () => ({ content: [{ type: 'text', text: 'it is you' }] }) }], requireAuthorization: `Bearer ${USER_TOKEN}` });
    flaky = await startMcpUpstream({
      host: 'mcp.flaky-example.org',
      tools: [
        { name: 'forget', call: () => (setImmediate(() => flaky.forgetSessions()), { content: [{ type: 'text', text: 'forgotten' }] }) },
        { name: 'ping', call: () => ({ content: [{ type: 'text', text: 'pong' }] }) },
        { name: 'big', call: () => ({ content: [{ type: 'text', text: 'x'.repeat(400_000) }] }) },
      ],
    });
    const network = upstreamServerOptions(tracker, paged, personal, flaky);
    server = await startServer({ runners: 1, args: network.args, env: { ...network.env, SVC_SECRET_KEY: randomBytes(32).toString('base64') } });
    assert.equal((await server.request('POST', '/v1/secrets', { body: { key: 'paged_token', value: STORE_TOKEN } })).status, 200);
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: blueprint(tracker, paged, personal, flaky) } });
    assert.equal(registered.status, 200, registered.text);
  });
  after(async () => {
    await server?.stop();
    for (const u of [tracker, paged, personal, flaky]) await u?.close();
  });

  const run = (code: string, extra: Record<string, unknown> = {}) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'mcpc', code, ...extra } });

  test('docs render declarations from the tools\' JSON Schemas; search lists the servers with source mcp', async () => {
    const docs = await server.request('GET', '/v1/blueprints/mcpc/packages/docs?name=@mcp/tracker', { token: server.userToken });
    assert.equal(docs.status, 200, docs.text);
    assert.match(docs.headers.get('content-type') ?? '', /^text\/markdown/);
    const text = docs.text;
    assert.ok(text.startsWith("MCP server 'tracker' (8 tools)\n\n## Declarations\n\n```ts\n"), text);
    assert.ok(text.includes('declare module "@mcp/tracker" {'));
    assert.ok(text.includes("  /** Fetch one issue. Result typed from the tool's output schema. */\n  export function get_issue(args: { id: string; includeComments?: boolean }): { id: string; title: string; state: string | null };"), text);
    assert.ok(text.includes('  /** List teams. The server publishes no output schema: the result is unknown; inspect it before use. */\n  export function list_teams(args?: { first?: number }): unknown;'), text);
    assert.ok(text.includes('  export function nothing(args?: Record<string, unknown>): unknown;'), text);
    assert.ok(text.includes('  export function mixed(args?: { where?: unknown; mode?: "fast" | "slow"; tags?: string[] }): unknown;'), text);
    assert.ok(text.includes('    "create-issue": (args: { title: string; teamId?: string }) => unknown;'), text);
    assert.ok(text.includes('    get_issue: typeof get_issue;'));
    assert.ok(!text.includes('dup'), 'duplicate tools are dropped');
    assert.ok(text.includes('  export default tracker;\n}'));

    const search = await server.request('GET', '/v1/blueprints/mcpc/packages/search?q=', { token: server.userToken });
    const mcp = search.json.results.filter((r: { source: string }) => r.source === 'mcp');
    // REST has no session: the harness-secret server and the unreachable one are left out.
    assert.deepEqual(mcp, [
      { name: '@mcp/flaky', description: "MCP server 'flaky' (3 tools)", source: 'mcp' },
      { name: '@mcp/paged', description: "MCP server 'paged' (5 tools)", source: 'mcp' },
      { name: '@mcp/tracker', description: "MCP server 'tracker' (8 tools)", source: 'mcp' },
    ]);
    const byTool = await server.request('GET', '/v1/blueprints/mcpc/packages/search?q=get_iss', { token: server.userToken });
    assert.deepEqual(byTool.json.results.map((r: { name: string }) => r.name), ['@mcp/tracker']);

    const personalDocs = await server.request('GET', '/v1/blueprints/mcpc/packages/docs?name=@mcp/personal', { token: server.userToken });
    assert.equal(personalDocs.status, 404);
    assert.equal(personalDocs.json.error, 'unknown_package');
    assert.match(personalDocs.json.message, /harness secret USER_TOKEN/);
    const unknown = await server.request('GET', '/v1/blueprints/mcpc/packages/docs?name=@mcp/trackr', { token: server.userToken });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error, 'unknown_mcp_server');
  });

  test('calls map results: structured content, JSON text, plain text, several parts, none; isError is a catchable Error naming the tool', async () => {
    const reply = await run(`import tracker, { get_issue, list_teams } from "@mcp/tracker";
export function main() {
  let failure = "";
  try { tracker.fail(); } catch (e) { failure = e.name + "|" + e.message; }
  let bad = "";
  try { tracker.get_issue("ABC-1" as any); } catch (e) { bad = e.name + "|" + e.message; }
  return {
    issue: get_issue({ id: "ABC-1" }),
    teams: list_teams({ first: 3 }),
    teamsNoArgs: tracker.list_teams(),
    created: tracker["create-issue"]({ title: "x" }),
    parts: tracker.parts(),
    nothing: tracker.nothing(),
    failure,
    bad,
  };
}`);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.error, null, JSON.stringify(reply.json));
    assert.deepEqual(JSON.parse(reply.json.result), {
      issue: { id: 'ABC-1', title: 'Broken build', state: null },
      teams: [{ name: 'core', first: 3 }],
      teamsNoArgs: [{ name: 'core', first: null }],
      created: 'created ABC-2',
      parts: 'one\ntwo',
      nothing: null,
      failure: 'Error|@mcp/tracker.fail: boom: quota',
      bad: 'TypeError|@mcp/tracker.get_issue: args must be an object',
    });
    assert.deepEqual(reply.json.discovery_warnings, [
      "@mcp/tracker: tool 'dup' dropped: the server lists 2 tools with this name",
      `@mcp/tracker: tool 'create-issue' is not a usable identifier: call it through the default import as tracker["create-issue"](args)`,
      '@mcp/tracker: 7 tools return unknown (output schemas missing or not representable); consult the docs',
      '@mcp/tracker: 1 tool has input properties typed unknown; consult the docs',
    ]);
    const calls = tracker.calls.map((c) => c.name);
    assert.ok(calls.includes('get_issue') && calls.includes('create-issue'));
    assert.deepEqual(tracker.calls.find((c) => c.name === 'list_teams' && c.arguments.first === undefined)?.arguments, {});
  });

  test('one upstream session per run: a single initialize, and a DELETE when the run ends', async () => {
    // The catalogue is discovered (and cached) first, so what follows is the run's own.
    assert.equal((await server.request('GET', '/v1/blueprints/mcpc/packages/docs?name=@mcp/tracker', { token: server.userToken })).status, 200);
    const before = tracker.requests.length;
    const reply = await run('import t from "@mcp/tracker";\nexport function main() { t.nothing(); t.nothing(); return t.list_teams({ first: 1 }); }');
    assert.equal(reply.json.error, null, JSON.stringify(reply.json));
    // The DELETE is sent as the run ends; wait until the upstream has seen it.
    const callSessions = new Set(tracker.requests.slice(before).filter((r) => r.rpc.includes('tools/call')).map((r) => r.sessionId));
    await tracker.requested((r) => r.method === 'DELETE' && callSessions.has(r.sessionId), before);
    const seen = tracker.requests.slice(before);
    const initializes = seen.filter((r) => r.rpc.includes('initialize'));
    assert.equal(callSessions.size, 1);
    // The run opens exactly one session.
    assert.equal(initializes.length, 1);
    assert.ok(seen.some((r) => r.method === 'DELETE' && callSessions.has(r.sessionId)), JSON.stringify(seen.map((r) => [r.method, r.rpc, r.sessionId])));
  });

  test('a failed call drops the upstream session and the next call reconnects', async () => {
    const reply = await run(`import f from "@mcp/flaky";
export function main() {
  f.forget();
  let failure = "";
  try { f.ping(); } catch (e) { failure = e.message; }
  return { failure, again: f.ping() };
}`);
    assert.equal(reply.json.error, null, JSON.stringify(reply.json));
    const out = JSON.parse(reply.json.result);
    assert.match(out.failure, /^@mcp\/flaky\.ping: HTTP 404/);
    assert.equal(out.again, 'pong');
    assert.equal(flaky.requests.filter((r) => r.rpc.includes('initialize')).length, 3, 'discovery, the first session, the reconnection');
  });

  test('host fuel grows with the bytes a call copies', async () => {
    const small = await run('import f from "@mcp/flaky";\nexport function main() { return f.ping().length; }');
    const large = await run('import f from "@mcp/flaky";\nexport function main() { return f.big().length; }');
    assert.equal(large.json.result, '400000', JSON.stringify(large.json));
    const fuel = (id: string) => Number(server.audit({ type: 'execution', event: 'finished', execution_id: id })[0].host_fuel);
    // 400,000 bytes received: at least COPY (1 per 8 bytes) plus IO (1 per 4 bytes) more.
    assert.ok(fuel(large.json.execution_id) - fuel(small.json.execution_id) >= 400_000 / 8 + 400_000 / 4);
  });

  test('a denied call throws PermissionDeniedError and nothing reaches the server', async () => {
    const before = tracker.calls.length;
    const reply = await run(`import { secret_op } from "@mcp/tracker";
export function main() { try { secret_op(); return "sent"; } catch (e) { return e.name + "|" + e.message; } }`);
    assert.equal(reply.json.error, null);
    assert.match(reply.json.result, /^PermissionDeniedError\|permission denied: caller=main capability=mcp\.tracker/);
    assert.equal(tracker.calls.length, before);
    const decision = server.audit({ type: 'decision', capability: 'mcp.tracker', decision: 'deny' }).at(-1);
    assert.ok(decision, 'the denial is audited');
  });

  test('an unavailable server: importing it is a compile error naming it, with the reason in discovery_warnings', async () => {
    const reply = await run('import down from "@mcp/down";\nexport function main() { return down.x(); }');
    assert.equal(reply.json.error.kind, 'compile_error');
    assert.match(reply.json.error.message, /cannot import `@mcp\/down`: it is unavailable: blocked by network policy/);
    assert.equal(reply.json.discovery_warnings.length, 1);
    // The upstream resolves into private address space: the egress guard refuses it.
    assert.match(reply.json.discovery_warnings[0], /^@mcp\/down: unavailable: blocked by network policy: 10\.20\.30\.40/);
    const warned = server.logs({ msg: 'MCP server unavailable' });
    assert.ok(warned.some((l) => l.server === 'down'));
    // A run that imports nothing from MCP has no discovery_warnings at all.
    const plain = await run('export function main() { return 1; }');
    assert.equal('discovery_warnings' in plain.json, false);
  });

  test('static headers: a store secret reaches a stateless, paged server; no secret byte in any output, audit or log line', async () => {
    const reply = await run('import p from "@mcp/paged";\nexport function main() { return [p.alpha(), p.epsilon()]; }');
    assert.equal(reply.json.error, null, JSON.stringify(reply.json));
    assert.equal(reply.json.result, '["alpha","epsilon"]');
    assert.ok(paged.requests.every((r) => r.sessionId === undefined), 'the server is stateless');
    assert.ok(paged.requests.filter((r) => r.rpc.includes('tools/list')).length >= 3, 'five tools in pages of two');
    assert.ok(paged.requests.every((r) => r.authorization === `Bearer ${STORE_TOKEN}`));
    const everything = server.lines().join('\n') + server.stderr() + JSON.stringify(reply.json);
    assert.ok(!everything.includes(STORE_TOKEN));
  });

  test('svc run (local) calls MCP servers too and prints discovery_warnings as warning lines', async () => {
    const dir = tempDir('svc-mcp-local-');
    fs.writeFileSync(path.join(dir, 'bp.yaml'), `name: local\nvfs: none\ntypecheck: off\nmcp:\n  tracker:\n    url: ${tracker.url}\npermissions:\n  main:\n    - {capability: mcp.tracker, action: allow}\n`);
    fs.writeFileSync(path.join(dir, 'p.ts'), 'import { get_issue } from "@mcp/tracker";\nexport function main() { return get_issue({ id: "L-1" }).title; }\n');
    const host = new URL(tracker.url).hostname;
    const result = await runSvc(['run', 'p.ts', '--blueprint', 'bp.yaml', '--allow-localhost'], { cwd: dir, env: { SVC_ADD_HOSTS: `${host}=127.0.0.1`, NODE_EXTRA_CA_CERTS: testCa().certFile } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Broken build\n');
    assert.match(result.stderr, /^warning: @mcp\/tracker: tool 'dup' dropped/m);
  });

  test('a harness secret header works only in a session that holds it, through the MCP endpoint too', async () => {
    const noSession = await run('import me from "@mcp/personal";\nexport function main() { return me.whoami(); }');
    assert.equal(noSession.json.error.kind, 'compile_error');
    assert.match(noSession.json.discovery_warnings[0], /^@mcp\/personal: unavailable: .*harness secret USER_TOKEN/);
    const withSecret = await run('import me from "@mcp/personal";\nexport function main() { return me.whoami(); }', { secrets: { USER_TOKEN } });
    assert.equal(withSecret.json.result, 'it is you', JSON.stringify(withSecret.json));

    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/mcpc`), {
      requestInit: { headers: { authorization: `Bearer ${server.userToken}`, 'svc-secrets': Buffer.from(JSON.stringify({ USER_TOKEN })).toString('base64url') } },
    });
    const client = new Client({ name: 'svc-test', version: '0.0.1' });
    await client.connect(transport);
    const search = await client.callTool({ name: 'svc__typescript__packages__search', arguments: { query: 'personal' } });
    assert.deepEqual((search.structuredContent as { results: unknown[] }).results, [{ name: '@mcp/personal', description: "MCP server 'personal' (1 tool)", source: 'mcp' }]);
    const docs = await client.callTool({ name: 'svc__typescript__packages__docs', arguments: { name: '@mcp/personal' } });
    assert.equal(docs.structuredContent, undefined);
    assert.match((docs.content as Array<{ text: string }>)[0].text, /export function whoami\(args\?: Record<string, unknown>\): unknown;/);
    const executed = await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'import me from "@mcp/personal";\nimport t from "@mcp/tracker";\nexport function main() { return me.whoami(); }' } });
    const body = executed.structuredContent as { result: string; discovery_warnings?: string[] };
    assert.equal(body.result, 'it is you');
    assert.ok(body.discovery_warnings?.some((w) => w.startsWith("@mcp/tracker: tool 'dup' dropped")));
    await client.close();
    const everything = server.lines().join('\n') + server.stderr();
    assert.ok(!everything.includes(USER_TOKEN));
  });
});
