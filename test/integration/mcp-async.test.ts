// `@mcp/<server>/async`: calls to one server are concurrent over its one upstream session,
// and calls in flight are cancelled when the run ends. Proven without clocks against real
// upstream servers built with the official MCP SDK: a tool that answers only once N calls
// wait at once (a barrier), and a tool that never answers until the client cancels it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';
import { startMcpUpstream, upstreamServerOptions, type McpUpstream, type UpstreamTool } from '../support/mcp-upstream';

/** Answers every waiting call once `size` of them wait (shared by both servers). */
function barrier() {
  let size = Infinity;
  const waiting: Array<() => void> = [];
  return {
    set(n: number) {
      size = n;
    },
    wait(): Promise<void> {
      return new Promise((resolve) => {
        waiting.push(resolve);
        if (waiting.length >= size) for (const r of waiting.splice(0)) r();
      });
    },
  };
}

const text = (value: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

/** Held calls (tool `hang`) by tag, and the tags whose request the client cancelled. */
interface Holds {
  held: string[];
  cancelled: string[];
  whenHeld: Array<() => void>;
  /** Called when the client cancels a held call. */
  whenCancelled: Array<() => void>;
}

function tools(name: string, meet: ReturnType<typeof barrier>, holds: Holds, forget: () => void): UpstreamTool[] {
  return [
    // Answers, then forgets every session (later requests on it get 404), as a restarted server would.
    { name: 'forget', call: () => (setImmediate(forget), text('forgotten')) },
    { name: 'meet', inputSchema: { type: 'object', properties: { i: { type: 'number' } } }, call: async (args) => (await meet.wait(), text({ server: name, i: args.i })) },
    {
      name: 'hang',
      inputSchema: { type: 'object', properties: { tag: { type: 'string' } } },
      call: (args, { signal }) =>
        new Promise((_, reject) => {
          const tag = String(args.tag);
          holds.held.push(tag);
          for (const r of holds.whenHeld.splice(0)) r();
          signal.addEventListener('abort', () => {
            holds.cancelled.push(tag);
            for (const r of holds.whenCancelled.splice(0)) r();
            reject(new Error('cancelled'));
          });
        }),
    },
    { name: 'when_held', call: async () => (holds.held.length > 0 ? text('held') : (await new Promise<void>((r) => holds.whenHeld.push(r)), text('held'))) },
    { name: 'echo', inputSchema: { type: 'object', properties: { tag: { type: 'string' } } }, call: (args) => text({ echo: args.tag }) },
    { name: 'secret' },
  ];
}

const BLUEPRINT = (fan: McpUpstream, side: McpUpstream) => `name: mcpasync
vfs: none
mcp:
  fan:
    url: ${fan.url}
  side:
    url: ${side.url}
permissions:
  main:
    - {capability: mcp.fan, filter: 'tool != "secret"', action: allow}
    - {capability: mcp.side, action: allow}
`;

/** Resolves once the client has cancelled the held call `tag` (an event, no polling). */
async function cancelled(holds: Holds, tag: string): Promise<void> {
  while (!holds.cancelled.includes(tag)) await new Promise<void>((resolve) => holds.whenCancelled.push(resolve));
}

describe('@mcp/<server>/async', () => {
  const meet = barrier();
  const holds: Holds = { held: [], cancelled: [], whenHeld: [], whenCancelled: [] };
  let fan: McpUpstream;
  let side: McpUpstream;
  let server: TestServer;
  let limited: TestServer;

  before(async () => {
    fan = await startMcpUpstream({ host: 'mcp.fan-example.com', tools: tools('fan', meet, holds, () => fan.forgetSessions()) });
    side = await startMcpUpstream({ host: 'mcp.side-example.com', tools: tools('side', meet, holds, () => side.forgetSessions()) });
    const network = upstreamServerOptions(fan, side);
    server = await startServer({ args: network.args, env: network.env, runners: 1, config: { max_execution_time: 120 } });
    limited = await startServer({ args: network.args, env: network.env, runners: 1, config: { max_execution_time: 2 } });
    for (const s of [server, limited]) assert.equal((await s.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT(fan, side) } })).status, 200);
  });
  after(async () => {
    await server?.stop();
    await limited?.stop();
    await fan?.close();
    await side?.close();
  });

  const execute = async (target: TestServer, code: string) => {
    const reply = await target.request('POST', '/v1/execute', { token: target.userToken, body: { blueprint: 'mcpasync', code } });
    assert.equal(reply.status, 200, reply.text);
    return reply.json as { result: string | null; error: { kind: string; message: string } | null; execution_id: string };
  };

  test('docs present the asynchronous form: its declarations return promises; the synchronous docs point to it', async () => {
    const docs = await server.request('GET', '/v1/blueprints/mcpasync/packages/docs?name=@mcp/fan/async', { token: server.userToken });
    assert.equal(docs.status, 200, docs.text);
    assert.ok(docs.text.includes('declare module "@mcp/fan/async" {'), docs.text);
    assert.match(docs.text, /export function meet\(args\?: \{ i\?: number \}\): Promise<unknown>;/);
    const sync = await server.request('GET', '/v1/blueprints/mcpasync/packages/docs?name=@mcp/fan', { token: server.userToken });
    assert.match(sync.text, /export function meet\(args\?: \{ i\?: number \}\): unknown;/);
    assert.ok(sync.text.includes('import `@mcp/fan/async`'), sync.text);
  });

  test('eight calls to one server in Promise.all are in flight together over one session (a barrier of eight)', async () => {
    meet.set(8);
    const from = fan.requests.length;
    const result = await execute(server, `import fan from "@mcp/fan/async";
    export async function main() {
      return await Promise.all(Array.from({ length: 8 }, (_, i) => fan.meet({ i })));
    }`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.deepEqual(JSON.parse(result.result ?? 'null'), Array.from({ length: 8 }, (_, i) => ({ server: 'fan', i })));
    const seen = fan.requests.slice(from);
    // Every call over the run's one session (discovery has a session of its own).
    const sessions = new Set(seen.filter((r) => r.rpc.includes('tools/call')).map((r) => r.sessionId));
    assert.equal(sessions.size, 1);
    // The session ends with the run (its DELETE may follow the run's answer).
    const session = [...sessions][0];
    await fan.requested((r) => r.method === 'DELETE' && r.sessionId === session, from);
  });

  test('calls to two servers in Promise.all are in flight together (a barrier of eight across both)', async () => {
    meet.set(8);
    const result = await execute(server, `import fan from "@mcp/fan/async";
    import { meet } from "@mcp/side/async";
    export async function main() {
      const calls = [];
      for (let i = 0; i < 4; i++) calls.push(fan.meet({ i }), meet({ i }));
      return (await Promise.all(calls)).map((r) => r.server + r.i).sort().join(",");
    }`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.equal(result.result, 'fan0,fan1,fan2,fan3,side0,side1,side2,side3');
  });

  test('a denied call rejects with PermissionDeniedError and is never sent; its siblings complete', async () => {
    meet.set(2);
    const from = fan.calls.length;
    const result = await execute(server, `import fan from "@mcp/fan/async";
    export async function main() {
      const outcomes = await Promise.allSettled([fan.meet({ i: 1 }), fan.secret(), fan.meet({ i: 2 })]);
      return outcomes.map((o) => o.status === "fulfilled" ? o.value.i : o.reason.name);
    }`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.deepEqual(JSON.parse(result.result ?? 'null'), [1, 'PermissionDeniedError', 2]);
    assert.deepEqual(fan.calls.slice(from).map((c) => c.name), ['meet', 'meet']);
    assert.equal(server.audit({ type: 'decision', execution_id: result.execution_id, decision: 'deny' } as never).length, 1);
  });

  test('a run that returns while a call is in flight cancels it: the far end sees the cancellation', async () => {
    const result = await execute(server, `import fan from "@mcp/fan/async";
    export async function main() {
      fan.hang({ tag: "returned" });
      await fan.when_held();
      return "returned";
    }`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.ok(holds.held.includes('returned'));
    await cancelled(holds, 'returned');
  });

  test('a run ended by its time limit while a call hangs: the far end sees the cancellation and no later call', async () => {
    const result = await execute(limited, `import fan from "@mcp/fan/async";
    export async function main() {
      await fan.hang({ tag: "limit" });
      await fan.echo({ tag: "after-limit" });
    }`);
    assert.equal(result.error?.kind, 'timeout', JSON.stringify(result));
    assert.ok(holds.held.includes('limit'), 'the call reached the far end before the limit');
    await cancelled(holds, 'limit');
    // One more run on the same server proves nothing of the ended run continues.
    assert.equal((await execute(limited, 'export function main() { return 1; }')).result, '1');
    assert.ok(!fan.calls.some((c) => c.arguments.tag === 'after-limit'), JSON.stringify(fan.calls));
  });

  test('concurrent calls on a failed session reopen it once: calls in flight on it fail, the next ones share one new session', async () => {
    meet.set(4);
    const from = fan.requests.length;
    const result = await execute(server, `import fan from "@mcp/fan/async";
    export async function main() {
      await fan.forget();
      const first = await Promise.allSettled([fan.echo({ tag: "a" }), fan.echo({ tag: "b" }), fan.echo({ tag: "c" })]);
      const next = await Promise.all(Array.from({ length: 4 }, (_, i) => fan.meet({ i })));
      return { first: first.map((o) => o.status === "fulfilled" ? "ok" : o.reason.message), next: next.length };
    }`);
    assert.equal(result.error, null, JSON.stringify(result.error));
    const outcome = JSON.parse(result.result ?? 'null') as { first: string[]; next: number };
    assert.equal(outcome.next, 4);
    for (const said of outcome.first) assert.ok(said === 'ok' || /^@mcp\/fan\.echo: (HTTP 404|the session failed while the call was in flight)/.test(said), said);
    assert.ok(outcome.first.some((said) => said !== 'ok'), 'the first call after the server forgot the session fails');
    // The first session, then exactly one more, however many calls saw the first one fail.
    assert.equal(new Set(fan.requests.slice(from).filter((r) => r.rpc.includes('tools/call')).map((r) => r.sessionId)).size, 2);
  });
});
