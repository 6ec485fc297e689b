// `ask-human` parks the call: an approval is created and listed (GET /v1/approvals), the far
// end is reached only once a person approves (POST /v1/approvals/{id}); a denial's reason
// and an expiry reach the program as PermissionDeniedError with source `human`; scope `run`
// lets identical later calls through. No clocks: each test waits for the approval to be
// listed (the call is parked by then) and the far end counts what it received.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../harness';
import { eventually } from '../support/wait';

let server: TestServer;
let far: http.Server;
let port = 0;
const received: string[] = [];

const blueprint = (name: string, extra = '') =>
  `name: ${name}\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n${extra}permissions:\n  main:\n    - capability: http.post\n      action: ask-human\n`;

before(async () => {
  far = http.createServer((req, res) => {
    received.push(req.url ?? '');
    res.end(`paid ${req.url}`);
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  port = (far.address() as AddressInfo).port;
  server = await startServer({ args: ['--allow-localhost'] });
  for (const [name, extra] of [['gated', ''], ['quick', 'approval_timeout: 1s\n'], ['hourly', 'approval_timeout: 3600s\n']]) {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: blueprint(name, extra) } });
    assert.ok(created.status < 300, created.text);
  }
});
after(async () => {
  await server.stop();
  far.closeAllConnections();
  far.close();
});

function post(path: string): string {
  return `await (await fetch("http://127.0.0.1:${port}${path}", { method: "POST", body: "x" })).text()`;
}

function execute(code: string, name = 'gated', target = server) {
  return target.request('POST', '/v1/execute', { token: target.userToken, body: { blueprint: name, code } });
}

/** The pending approvals (of one run, when given), once there are `count`. */
async function pending(count: number, executionFilter = '', target = server): Promise<any[]> {
  return eventually(`${count} pending approvals`, async () => {
    const reply = await target.request('GET', `/v1/approvals${executionFilter}`);
    assert.equal(reply.status, 200, reply.text);
    return reply.json.approvals.length >= count ? (reply.json.approvals as any[]) : null;
  });
}

test('an ask-human call waits for approval: the far end gets nothing until a person approves, then the run finishes with its answer', async () => {
  received.length = 0;
  const running = execute(`export async function main() { return ${post('/pay')}; }`);
  const [approval] = await pending(1, '?blueprint=gated');
  assert.equal(approval.state, 'pending');
  assert.equal(approval.capability, 'http.post');
  assert.equal(approval.caller, 'main');
  assert.equal(approval.token_name, 'harness');
  assert.equal(approval.blueprint, 'gated');
  assert.equal(approval.context.path, '/pay');
  assert.deepEqual(received, [], 'the far end is reached only after the approval');
  const one = await server.request('GET', `/v1/approvals/${approval.approval_id}`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.json, approval);

  const approved = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'approve' } });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.json.state, 'approved');
  assert.equal(approved.json.decided_by, 'SVC_SERVER_TOKEN');
  const result = await running;
  assert.equal(result.status, 200, result.text);
  assert.equal(result.json.error, null, result.text);
  assert.equal(result.json.result, 'paid /pay');
  assert.deepEqual(received, ['/pay']);

  const again = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'deny' } });
  assert.equal(again.status, 409);
  assert.equal(again.json.error, 'approval_decided');
  assert.equal(again.json.state, 'approved');

  const decision = server.audit({ type: 'decision', execution_id: approval.execution_id, capability: 'http.post' });
  assert.equal(decision.length, 1, JSON.stringify(decision));
  assert.equal(decision[0].decision, 'allow');
  assert.equal(decision[0].source, 'human');
  assert.equal(decision[0].approval_id, approval.approval_id);
  assert.equal(decision[0].approved_by, 'SVC_SERVER_TOKEN');
  assert.equal(decision[0].allowed_by, `approval ${approval.approval_id}`);
  const events = server.audit({ type: 'approval', approval_id: approval.approval_id }).map((r) => r.event);
  assert.deepEqual(events, ['created', 'approved']);
});

test('a denial reaches the program as PermissionDeniedError with source human and the reason; nothing reaches the far end', async () => {
  received.length = 0;
  const running = execute(`export async function main() {
    try { return ${post('/refund')}; } catch (e: any) { return { name: e.cause.name, source: e.cause.source, message: e.cause.message }; }
  }`);
  const [approval] = await pending(1, '?blueprint=gated');
  const denied = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'deny', reason: 'refunds need a ticket' } });
  assert.equal(denied.status, 200, denied.text);
  assert.equal(denied.json.state, 'denied');
  assert.equal(denied.json.reason, 'refunds need a ticket');
  const result = JSON.parse((await running).json.result);
  assert.equal(result.name, 'PermissionDeniedError');
  assert.equal(result.source, 'human');
  assert.match(result.message, /a person denied http\.post .*refunds need a ticket/);
  assert.deepEqual(received, []);
  const [record] = server.audit({ type: 'decision', execution_id: approval.execution_id, capability: 'http.post' });
  assert.equal(record.source, 'human');
  assert.equal(record.decision, 'deny');
  assert.equal(record.approval_state, 'denied');
});

test('an uncaught denial of a synchronous svc:http call ends the run as permission_denied with source human', async () => {
  const running = execute(`import { post } from "svc:http";\nexport function main() { return post("http://127.0.0.1:${port}/uncaught", "x").body; }`);
  const [approval] = await pending(1, '?blueprint=gated');
  await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'deny' } });
  const result = (await running).json;
  assert.equal(result.error.kind, 'permission_denied', JSON.stringify(result));
  assert.equal(result.error.source, 'human');
  assert.match(result.error.message, /no reason given/);
});

test('scope run: later identical calls in the run pass without asking; a different call asks again', async () => {
  received.length = 0;
  const running = execute(`export async function main() {
    const a = ${post('/same')};
    const b = ${post('/same')};
    const c = ${post('/other')};
    return [a, b, c];
  }`);
  const [first] = await pending(1, '?blueprint=gated');
  assert.equal((await server.request('POST', `/v1/approvals/${first.approval_id}`, { body: { decision: 'approve', scope: 'run' } })).status, 200);
  const [second] = await pending(1, `?execution_id=${first.execution_id}`);
  assert.equal(second.context.path, '/other', 'the identical second call was not asked about');
  assert.deepEqual(received, ['/same', '/same']);
  await server.request('POST', `/v1/approvals/${second.approval_id}`, { body: { decision: 'approve' } });
  assert.deepEqual(JSON.parse((await running).json.result), ['paid /same', 'paid /same', 'paid /other']);
  const human = server.audit({ type: 'decision', execution_id: first.execution_id, source: 'human' });
  assert.deepEqual(human.map((r) => r.approval_id), [first.approval_id, first.approval_id, second.approval_id]);
});

test('an approval nobody answers expires after approval_timeout: the program gets the expiry as a human denial', async () => {
  received.length = 0;
  const result = await execute(`export async function main() {
    try { return ${post('/late')}; } catch (e: any) { return { source: e.cause.source, message: e.cause.message }; }
  }`, 'quick');
  const answer = JSON.parse(result.json.result);
  assert.equal(answer.source, 'human');
  assert.match(answer.message, /no one approved http\.post .* within the approval timeout of 1s/);
  assert.deepEqual(received, []);
  const expired = await server.request('GET', '/v1/approvals?state=expired&blueprint=quick');
  assert.equal(expired.json.approvals.length, 1);
  assert.equal(expired.json.approvals[0].decided_by, null);
  assert.equal(server.audit({ type: 'approval', event: 'expired', blueprint: 'quick' }).length, 1);
});

test('a session run\'s approval expires after its Blueprint\'s approval_timeout, not the default', async () => {
  // The session route once passed the executor a copy of the Blueprint without approval_timeout.
  const opened = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'hourly' } });
  assert.equal(opened.status, 200, opened.text);
  const running = server.request('POST', `/v1/sessions/${opened.json.session_id}/execute`, { token: server.userToken, body: { code: `export async function main() { return ${post('/hourly')}; }` } });
  const [approval] = await pending(1, '?blueprint=hourly');
  assert.equal((Date.parse(approval.expires_at) - Date.parse(approval.created_at)) / 1000, 3600);
  await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'deny' } });
  assert.equal((await running).status, 200);
});

test('bad answers and filters are refused naming the field; an unknown approval is 404; user tokens cannot list', async () => {
  assert.equal((await server.request('GET', '/v1/approvals/nope')).status, 404);
  assert.equal((await server.request('GET', '/v1/approvals/nope')).json.error, 'unknown_approval');
  assert.equal((await server.request('POST', '/v1/approvals/nope', { body: { decision: 'approve' } })).status, 404);
  const badDecision = await server.request('POST', '/v1/approvals/nope', { body: { decision: 'maybe' } });
  assert.equal(badDecision.status, 422);
  assert.match(badDecision.text, /decision/);
  const badScope = await server.request('POST', '/v1/approvals/nope', { body: { decision: 'approve', scope: 'forever' } });
  assert.match(badScope.text, /scope/);
  const longReason = await server.request('POST', '/v1/approvals/nope', { body: { decision: 'deny', reason: 'x'.repeat(1001) } });
  assert.equal(longReason.status, 422);
  assert.match(longReason.text, /reason/);
  const badState = await server.request('GET', '/v1/approvals?state=open');
  assert.equal(badState.status, 400);
  assert.match(badState.json.message, /state: unknown value 'open'/);
  assert.equal((await server.request('GET', '/v1/approvals', { token: server.userToken })).status, 403);
});

test("the run's record says waiting_for_approval while its call waits, and finished with the result after the approval", async () => {
  const running = execute(`export async function main() { return ${post('/record')}; }`);
  const [approval] = await pending(1, '?blueprint=gated');
  const waiting = await server.request('GET', `/v1/runs/${approval.execution_id}`, { token: server.userToken });
  assert.equal(waiting.status, 200, waiting.text);
  assert.equal(waiting.json.state, 'waiting_for_approval');
  assert.equal(waiting.json.result, null);
  const listed = await server.request('GET', '/v1/runs?state=waiting_for_approval', { token: server.userToken });
  assert.deepEqual(listed.json.runs.map((run: { execution_id: string }) => run.execution_id), [approval.execution_id]);
  const approved = await server.request('POST', `/v1/approvals/${approval.approval_id}`, { body: { decision: 'approve' } });
  assert.equal(approved.status, 200, approved.text);
  assert.equal((await running).json.result, 'paid /record');
  const finished = await server.request('GET', `/v1/runs/${approval.execution_id}?wait=60`, { token: server.userToken });
  assert.equal(finished.json.state, 'finished');
  assert.equal(finished.json.result.result, 'paid /record');
});
