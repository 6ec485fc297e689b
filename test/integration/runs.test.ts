// Run records through the real server: `Prefer: respond-async` starts, GET /v1/runs/{id}
// with `wait`, GET /v1/runs with its filters, cancel, who may see a run, idempotent async
// replays, retention by size with a per-token fair share, and records across a restart.
// Runs that must stay in flight call a stand-in that never answers; the test knows the run
// is on its runner when the stand-in has received the call (an event, not a clock).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fetch as undiciFetch } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, tempDir, type TestServer } from '../harness';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';
import { metricValue, otherToken } from '../support/tenants';
import { eventually } from '../support/wait';

const HOST = 'never.example.com';
// typecheck: off (types stripped, not checked): no program here is about types, and each of the
// file's servers would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = `name: runs-bp\ntypecheck: off\npermissions:\n  main:\n    - {capability: http.get, filter: 'host == "${HOST}"', action: allow}\n`;
const ASYNC = { Prefer: 'respond-async' };

function hangingProgram(standIn: StandIn, tag: string): string {
  return `import { get } from "svc:http";\nexport function main() { get("${standIn.origin(HOST)}/${tag}"); return "answered"; }`;
}

async function startWithStandIn(standIn: StandIn, extra: { home?: string; args?: string[]; adminToken?: string; userToken?: string } = {}) {
  const home = extra.home ?? tempDir();
  const { other, config } = otherToken(home);
  const options = serverOptions(standIn);
  const server = await startServer({ ...options, home, runners: 1, config, args: [...options.args, ...(extra.args ?? [])], adminToken: extra.adminToken, userToken: extra.userToken });
  const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  assert.ok(registered.status < 300 || registered.status === 409, registered.text);
  return { server, other, home };
}

describe('run records', () => {
  let server: TestServer;
  let other: string;
  let standIn: StandIn;

  before(async () => {
    // Never answers: runs calling it stay in flight until cancelled.
    standIn = await startStandIn([HOST], () => new Promise(() => {}));
    ({ server, other } = await startWithStandIn(standIn));
  });
  after(async () => {
    await server?.stop();
    await standIn?.close();
  });

  test('an asynchronous one-off start answers 202 at once and GET with wait returns the result', async () => {
    const started = await server.request('POST', '/v1/execute', { token: server.userToken, headers: ASYNC, body: { blueprint: 'runs-bp', code: 'export function main() { return 6 * 7; }' } });
    assert.equal(started.status, 202, started.text);
    assert.deepEqual(Object.keys(started.json).sort(), ['execution_id', 'session_id', 'state']);
    assert.equal(started.headers.get('location'), `/v1/runs/${started.json.execution_id}`);
    assert.equal(started.headers.get('preference-applied'), 'respond-async');
    const done = await server.request('GET', `${started.headers.get('location')}?wait=60`, { token: server.userToken });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.state, 'finished');
    assert.equal(done.json.entry_point, 'rest');
    assert.equal(done.json.blueprint, 'runs-bp');
    assert.equal(done.json.session_id, started.json.session_id);
    assert.equal(done.json.result.result, '42');
    assert.equal(done.json.result.execution_id, started.json.execution_id);
    assert.ok(Date.parse(done.json.finished_at) >= Date.parse(done.json.started_at));
  });

  test('a synchronous execute leaves a record too, and refusals before the run keep their answer', async () => {
    const ran = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'runs-bp', code: 'export function main() { return "sync"; }' } });
    assert.equal(ran.status, 200);
    const record = await server.request('GET', `/v1/runs/${ran.json.execution_id}`, { token: server.userToken });
    assert.equal(record.json.state, 'finished');
    assert.deepEqual(record.json.result, ran.json);

    const refused = await server.request('POST', '/v1/execute', { token: server.userToken, headers: ASYNC, body: { blueprint: 'no-such-blueprint', code: 'export function main() {}' } });
    assert.equal(refused.status, 200, 'an unknown Blueprint keeps its usual answer');
    assert.equal(refused.json.error.kind, 'blueprint_not_found');
    const missing = await server.request('POST', '/v1/sessions/no-such-session/execute', { token: server.userToken, headers: ASYNC, body: { code: 'export function main() {}' } });
    assert.equal(missing.status, 404);
  });

  test('a wait that runs out returns the running record; cancel ends it cancelled; a second cancel is 409', { timeout: 120_000 }, async () => {
    const seen = standIn.requests.length;
    const started = await server.request('POST', '/v1/execute', { token: server.userToken, headers: ASYNC, body: { blueprint: 'runs-bp', code: hangingProgram(standIn, 'cancel-me') } });
    assert.equal(started.status, 202, started.text);
    const id = started.json.execution_id;
    await standIn.received(seen + 1);

    const held = await server.request('GET', `/v1/runs/${id}?wait=1`, { token: server.userToken });
    assert.equal(held.status, 200);
    assert.equal(held.json.state, 'running');
    assert.equal(held.json.finished_at, null);
    assert.equal(held.json.result, null);

    const running = await server.request('GET', `/v1/runs?state=running`, { token: server.userToken });
    assert.ok(running.json.runs.some((r: { execution_id: string }) => r.execution_id === id));

    // Another token can neither see nor cancel it.
    assert.equal((await server.request('POST', `/v1/runs/${id}/cancel`, { token: other })).status, 404);

    const cancelled = await server.request('POST', `/v1/runs/${id}/cancel`, { token: server.userToken });
    assert.equal(cancelled.status, 202, cancelled.text);
    assert.equal(cancelled.json.execution_id, id);
    const ended = await server.request('GET', `/v1/runs/${id}?wait=60`, { token: server.userToken });
    assert.equal(ended.json.state, 'finished');
    assert.equal(ended.json.result.error.kind, 'cancelled');
    assert.match(ended.json.result.error.message, /POST \/v1\/runs\/.*\/cancel/);
    const finished = server.audit({ type: 'execution', event: 'finished', execution_id: id });
    assert.equal(finished[0]?.outcome, 'cancelled');

    const again = await server.request('POST', `/v1/runs/${id}/cancel`, { token: server.userToken });
    assert.equal(again.status, 409);
    assert.equal(again.json.error, 'run_finished');
  });

  test('a held wait ends when its client leaves, and the run is not cancelled by it', { timeout: 120_000 }, async () => {
    const seen = standIn.requests.length;
    const started = await server.request('POST', '/v1/execute', { token: server.userToken, headers: ASYNC, body: { blueprint: 'runs-bp', code: hangingProgram(standIn, 'left') } });
    const id = started.json.execution_id;
    await standIn.received(seen + 1);
    const client = new AbortController();
    const waiting = undiciFetch(`${server.url}/v1/runs/${id}?wait=60`, { headers: { authorization: `Bearer ${server.userToken}` }, signal: client.signal }).catch((error: Error) => error);
    client.abort();
    assert.ok((await waiting) instanceof Error);
    const still = await server.request('GET', `/v1/runs/${id}`, { token: server.userToken });
    assert.equal(still.json.state, 'running', 'neither the async start\'s client nor a waiter leaving cancels the run');
    await server.request('POST', `/v1/runs/${id}/cancel`, { token: server.userToken });
    assert.equal((await server.request('GET', `/v1/runs/${id}?wait=60`, { token: server.userToken })).json.state, 'finished');
  });

  test('another user token gets unknown_run; an admin token sees every run', async () => {
    const mine = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'runs-bp', code: 'export function main() { return "mine"; }' } });
    const id = mine.json.execution_id;
    const theirs = await server.request('GET', `/v1/runs/${id}`, { token: other });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.json.error, 'unknown_run');
    assert.equal((await server.request('GET', '/v1/runs/not-a-run', { token: server.userToken })).json.error, 'unknown_run');
    const otherList = await server.request('GET', '/v1/runs', { token: other });
    assert.ok(!otherList.json.runs.some((r: { execution_id: string }) => r.execution_id === id));

    const admin = await server.request('GET', `/v1/runs/${id}`);
    assert.equal(admin.status, 200);
    assert.equal(admin.json.result.result, 'mine');
    await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'runs-bp', code: 'export function main() { return "theirs"; }' } });
    const all = await server.request('GET', '/v1/runs?limit=500');
    const ids = new Set(all.json.runs.map((r: { execution_id: string }) => r.execution_id));
    assert.ok(ids.has(id));
    const otherRuns = (await server.request("GET", "/v1/runs", { token: other })).json.runs;
    assert.ok(otherRuns.length >= 1 && otherRuns.every((r: { execution_id: string }) => ids.has(r.execution_id)), 'the admin list holds the other token\'s runs too');
  });

  test('the list filters by state, session and Blueprint, newest first, without results, and checks its query', async () => {
    const session = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'runs-bp' } });
    const sessionId = session.json.session_id;
    const first = await server.request('POST', `/v1/sessions/${sessionId}/execute`, { token: server.userToken, body: { code: 'export function main() { return 1; }' } });
    const second = await server.request('POST', `/v1/sessions/${sessionId}/execute`, { token: server.userToken, body: { code: 'export function main() { return 2; }' } });
    const listed = await server.request('GET', `/v1/runs?session_id=${sessionId}`, { token: server.userToken });
    assert.deepEqual(listed.json.runs.map((r: { execution_id: string }) => r.execution_id), [second.json.execution_id, first.json.execution_id]);
    assert.ok(listed.json.runs.every((r: Record<string, unknown>) => !('result' in r) && r.entry_point === 'session' && r.state === 'finished'));
    assert.equal((await server.request('GET', `/v1/runs?session_id=${sessionId}&limit=1`, { token: server.userToken })).json.runs[0].execution_id, second.json.execution_id);
    assert.equal((await server.request('GET', `/v1/runs?session_id=${sessionId}&state=running`, { token: server.userToken })).json.runs.length, 0);
    assert.equal((await server.request('GET', `/v1/runs?blueprint=nothing-like-it`, { token: server.userToken })).json.runs.length, 0);
    const byBlueprint = await server.request('GET', `/v1/runs?blueprint=runs-bp&state=finished&limit=500`, { token: server.userToken });
    assert.ok(byBlueprint.json.runs.some((r: { execution_id: string }) => r.execution_id === first.json.execution_id));

    for (const [query, parameter] of [['state=done', 'state'], ['limit=0', 'limit'], ['limit=501', 'limit'], ['limit=ten', 'limit']]) {
      const refused = await server.request('GET', `/v1/runs?${query}`, { token: server.userToken });
      assert.equal(refused.status, 400, query);
      assert.equal(refused.json.error, 'invalid_query');
      assert.equal(refused.json.parameter, parameter);
      assert.match(refused.json.message, new RegExp(parameter));
    }
    const badWait = await server.request('GET', `/v1/runs/${first.json.execution_id}?wait=61`, { token: server.userToken });
    assert.equal(badWait.status, 400);
    assert.equal(badWait.json.parameter, 'wait');
  });

  test('an Idempotency-Key replay of an asynchronous session start answers 202 with the same execution_id', async () => {
    const session = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'runs-bp' } });
    const route = `/v1/sessions/${session.json.session_id}/execute`;
    const headers = { ...ASYNC, 'Idempotency-Key': 'async-once' };
    const body = { code: 'export function main() { return "once"; }' };
    const first = await server.request('POST', route, { token: server.userToken, headers, body });
    assert.equal(first.status, 202, first.text);
    const again = await server.request('POST', route, { token: server.userToken, headers, body });
    assert.equal(again.status, 202);
    assert.equal(again.json.execution_id, first.json.execution_id);
    assert.equal(again.headers.get('location'), `/v1/runs/${first.json.execution_id}`);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const done = await server.request('GET', `/v1/runs/${first.json.execution_id}?wait=60`, { token: server.userToken });
    assert.equal(done.json.result.result, 'once');
    const runs = await server.request('GET', `/v1/runs?session_id=${session.json.session_id}`, { token: server.userToken });
    assert.equal(runs.json.runs.length, 1, 'the replay ran nothing');
  });

  test('a run through the MCP execute tool has a record with entry_point mcp', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp/runs-bp`), { requestInit: { headers: { authorization: `Bearer ${server.userToken}` } } });
    const client = new Client({ name: 'svc-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      const ran = (await client.callTool({ name: 'svc__typescript__execute', arguments: { code: 'export function main() { return "via mcp"; }' } })) as unknown as { structuredContent: { execution_id: string } };
      const id = ran.structuredContent.execution_id;
      const record = await server.request('GET', `/v1/runs/${id}`, { token: server.userToken });
      assert.equal(record.json.entry_point, 'mcp');
      assert.equal(record.json.session_id, transport.sessionId);
      assert.equal(record.json.result.result, 'via mcp');
    } finally {
      await client.close();
    }
  });

  test('the routes are in the OpenAPI document', async () => {
    const doc = (await server.request('GET', '/v1/openapi.json')).json;
    assert.ok(doc.paths['/v1/runs']?.get);
    assert.ok(doc.paths['/v1/runs/{execution_id}']?.get);
    assert.ok(doc.paths['/v1/runs/{execution_id}/cancel']?.post);
    assert.ok(doc.paths['/v1/execute'].post.responses['202']);
  });
});

describe('run record retention by size', () => {
  let server: TestServer;
  let other: string;
  let standIn: StandIn;

  before(async () => {
    standIn = await startStandIn([HOST], () => ({ status: 200, body: 'ok' }));
    // About a dozen small records fit; two tokens hold records, so each one's share is about six.
    ({ server, other } = await startWithStandIn(standIn, { args: ['--max-run-store-size', '8KB'] }));
  });
  after(async () => {
    await server?.stop();
    await standIn?.close();
  });

  test('drops the oldest first, only from the token past its fair share', async () => {
    const run = async (token: string, n: number) =>
      (await server.request('POST', '/v1/execute', { token, body: { blueprint: 'runs-bp', code: `export function main() { return ${n}; }` } })).json.execution_id as string;
    const theirs: string[] = [];
    for (let n = 0; n < 3; n++) theirs.push(await run(other, n));
    const mine: string[] = [];
    for (let n = 0; n < 30; n++) mine.push(await run(server.userToken, n));

    const status = async (token: string, id: string) => (await server.request('GET', `/v1/runs/${id}`, { token })).status;
    assert.equal(await status(server.userToken, mine[0]), 404, 'the oldest record went');
    assert.equal(await status(server.userToken, mine[29]), 200, 'the newest stays');
    for (const id of theirs) assert.equal(await status(other, id), 200, 'a token within its share keeps every record');
    const kept = (await server.request('GET', '/v1/runs?limit=500', { token: server.userToken })).json.runs.map((r: { execution_id: string }) => r.execution_id);
    assert.ok(kept.length < 30 && kept.length > 0, `kept ${kept.length}`);
    assert.deepEqual(kept, mine.slice(30 - kept.length).reverse(), 'what is kept is the newest, newest first');

    // The other token's runs still succeed with the right answer, and their records stay readable.
    const after = await server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'runs-bp', code: 'export function main() { return 99; }' } });
    assert.equal(after.json.result, '99');
    assert.equal((await server.request('GET', `/v1/runs/${after.json.execution_id}`, { token: other })).json.result.result, '99');
    const held = await metricValue(server, 'svc_token_quota_use{token="other",quota="max_run_store_size"}');
    assert.ok(held !== null && held > 0 && held <= 8192, `the metric shows the token's bytes (${held})`);
  });
});

describe('run records across a restart', () => {
  test('a stop waits for an asynchronous run within the grace: it finishes and its record says so', { timeout: 180_000 }, async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const standIn = await startStandIn([HOST], async () => {
      await released;
      return { status: 200, body: 'late' };
    });
    const first = await startWithStandIn(standIn, { args: ['--shutdown-grace', '120'] });
    let second: TestServer | undefined;
    try {
      const started = await first.server.request('POST', '/v1/execute', { token: first.server.userToken, headers: ASYNC, body: { blueprint: 'runs-bp', code: hangingProgram(standIn, 'drain') } });
      await standIn.received(1);
      first.server.child.kill('SIGTERM');
      await eventually('the server to start draining', () => first.server.logs({ msg: 'SIGTERM received' }).length > 0);
      release();
      assert.equal(await first.server.exited(), 0);

      ({ server: second } = await startWithStandIn(standIn, { home: first.home, adminToken: first.server.adminToken, userToken: first.server.userToken }));
      const record = await second.request('GET', `/v1/runs/${started.json.execution_id}`, { token: second.userToken });
      assert.equal(record.json.state, 'finished');
      assert.equal(record.json.result.error, null, JSON.stringify(record.json.result));
      assert.equal(record.json.result.result, 'answered');
    } finally {
      await second?.stop();
      await standIn.close();
    }
  });

  test('finished records survive; a run in flight when the server died ends as finished with a restart error', { timeout: 180_000 }, async () => {
    const standIn = await startStandIn([HOST], () => new Promise(() => {}));
    const first = await startWithStandIn(standIn);
    let second: TestServer | undefined;
    try {
      const done = await first.server.request('POST', '/v1/execute', { token: first.server.userToken, body: { blueprint: 'runs-bp', code: 'export function main() { return "kept"; }' } });
      const started = await first.server.request('POST', '/v1/execute', { token: first.server.userToken, headers: ASYNC, body: { blueprint: 'runs-bp', code: hangingProgram(standIn, 'restart') } });
      // A waiting one-off's record may be written with its result, but not after its first host call.
      const waiting = first.server.request('POST', '/v1/execute', { token: first.server.userToken, body: { blueprint: 'runs-bp', code: hangingProgram(standIn, 'restart-waiting') } }).catch(() => null);
      await standIn.received(2);
      await first.server.stop('SIGKILL');
      await waiting;

      ({ server: second } = await startWithStandIn(standIn, { home: first.home, adminToken: first.server.adminToken, userToken: first.server.userToken }));
      const kept = await second.request('GET', `/v1/runs/${done.json.execution_id}`, { token: second.userToken });
      assert.equal(kept.status, 200);
      assert.equal(kept.json.result.result, 'kept');
      const ended = await second.request('GET', `/v1/runs/${started.json.execution_id}?wait=5`, { token: second.userToken });
      assert.equal(ended.json.state, 'finished');
      assert.equal(ended.json.result.error.kind, 'cancelled');
      assert.match(ended.json.result.error.message, /server restarted/);
      const listed = await second.request('GET', '/v1/runs', { token: second.userToken });
      const others = listed.json.runs.filter((run: { execution_id: string }) => run.execution_id !== done.json.execution_id && run.execution_id !== started.json.execution_id);
      assert.equal(others.length, 1, 'the waiting one-off in flight was recorded: ' + listed.text);
      const waited = await second.request('GET', `/v1/runs/${others[0].execution_id}`, { token: second.userToken });
      assert.equal(waited.json.state, 'finished');
      assert.match(waited.json.result.error.message, /server restarted/);
    } finally {
      await second?.stop();
      await standIn.close();
    }
  });
});
