// Sessions per token: `GET /v1/sessions` (and `svc session list`) lists the caller's open
// sessions (an admin token's: all), and MCP clients that never end their sessions do not
// lock their token out: at `max_sessions_per_token` a new session reclaims the token's own
// longest-idle MCP session with nothing in flight; REST sessions are never reclaimed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestServer } from '../harness';
import { registerBlueprint } from '../support/sessions';
import { metricValue, startWithOther } from '../support/tenants';
import { serverEnv, svcInProcess } from '../support/cli';

describe('sessions per token', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    ({ server, other } = await startWithOther({ args: ['--max-sessions-per-token', '3'] }));
    await registerBlueprint(server, 'name: open\ndefault: allow\ntypecheck: off\n'); // types stripped, not checked: no program here is about types
  });
  after(async () => server?.stop());

  const list = async (token: string) => {
    const reply = await server.request('GET', '/v1/sessions', { token });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.max_sessions_per_token, 3);
    return reply.json.sessions as Array<{ session_id: string; owner: string; mcp: boolean; runs_in_flight: number }>;
  };

  /** The official MCP SDK client, as a tool that opens a session per call and never ends it. */
  async function callOnce(token: string, code: string): Promise<{ sessionId: string; text: string }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/open`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'one-call-per-session', version: '0.0.1' });
    await client.connect(transport);
    const result = await client.callTool({ name: 'svc__typescript__execute', arguments: { code } });
    const text = (result.content as Array<{ text: string }>)[0].text;
    return { sessionId: transport.sessionId!, text };
  }

  test('an MCP client opening a session per call and never ending one is not locked out; its REST sessions and the other token\'s stay', async () => {
    const rest = (await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'open' } })).json.session_id;
    const theirs = (await server.request('POST', '/v1/sessions', { token: other, body: { blueprint: 'open' } })).json.session_id;
    const opened: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { sessionId, text } = await callOnce(server.userToken, `export function main() { return ${i} * 7; }`);
      assert.equal(JSON.parse(text).result, String(i * 7), text);
      opened.push(sessionId);
    }
    const mine = await list(server.userToken);
    assert.deepEqual(mine.map((s) => s.session_id), [rest, ...opened.slice(-2)], 'the REST session and the two newest MCP sessions; the older MCP ones were reclaimed');
    assert.deepEqual(mine.map((s) => [s.owner, s.mcp]), [['harness', false], ['harness', true], ['harness', true]]);
    assert.deepEqual((await list(other)).map((s) => s.session_id), [theirs], 'a token sees only its own sessions');
    const all = await list(server.adminToken);
    assert.deepEqual(all.map((s) => s.session_id).sort(), [rest, theirs, ...opened.slice(-2)].sort(), 'an admin token sees every one');
    assert.equal(await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_sessions_per_token"}'), 3);
    const evicted = server.audit({ type: 'session', event: 'evicted', reason: 'session_limit' });
    assert.equal(evicted.length, 4);

    // A reclaimed session answers as ended.
    const gone = await server.request('POST', `/v1/sessions/${opened[0]}/execute`, { token: server.userToken, body: { code: 'export function main() { return 1; }' } });
    assert.equal(gone.status, 404);

    // `svc session list` prints the same.
    const printed = await svcInProcess(['session', 'list'], { env: serverEnv(server, server.userToken) });
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(printed.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]), [rest, ...opened.slice(-2)]);
    assert.match(printed.stdout, /owner=harness\s+mcp/);
  });

  test('with only REST sessions at the limit, opening answers 429 naming the quota, its setting and the use, and changes nothing', async () => {
    for (const s of await list(other)) await server.request('DELETE', `/v1/sessions/${s.session_id}`, { token: other });
    for (let i = 0; i < 3; i++) assert.equal((await server.request('POST', '/v1/sessions', { token: other, body: { blueprint: 'open' } })).status, 200);
    const before = await list(other);
    const refused = await server.request('POST', '/v1/sessions', { token: other, body: { blueprint: 'open' } });
    assert.equal(refused.status, 429, refused.text);
    assert.match(refused.json.message, /3 open sessions, the most max_sessions_per_token \(3\) allows/);
    assert.deepEqual(await list(other), before);
    // The harness token's sessions did not move either.
    assert.equal((await list(server.userToken)).length, 3);
  });
});
