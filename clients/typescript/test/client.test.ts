// The TypeScript client against a real server: every route through a typed method, errors
// as values (never thrown), and the AI SDK tools built from a Blueprint's prompt.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { startServer, type TestServer } from '../../../test/harness';
import { SvcClient, svcTools, type SvcResult } from '../src/index.js';

const GUARDED = 'name: guarded\ndefault: allow\nsecrets:\n  USER_TOKEN:\n    harness: {required: true}\nvfs: per_session\n';

function value<T>(result: SvcResult<T>): T {
  if (!result.ok) assert.fail(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

describe('TypeScript client', () => {
  let server: TestServer;
  let admin: SvcClient;
  let user: SvcClient;
  before(async () => {
    server = await startServer({ env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') }, timeoutMs: 60_000 });
    admin = new SvcClient({ baseUrl: server.url, token: server.adminToken });
    user = new SvcClient({ baseUrl: `${server.url}/`, token: server.userToken });
  });
  after(async () => {
    await server?.stop();
  });

  test('admin routes: Blueprints, capabilities, secrets, status', async () => {
    assert.equal(value(await admin.registerBlueprint('name: calc\ndefault: allow\nvfs: none\n')).name, 'calc');
    assert.equal(value(await admin.putBlueprint('guarded', GUARDED)).created, true);
    assert.match(value(await admin.getBlueprint('calc')).yaml, /name: calc/);
    assert.deepEqual(value(await admin.listBlueprints()).blueprints.map((b) => b.name), ['calc', 'guarded']);
    assert.ok(value(await admin.capabilities()).groups.length > 0);
    assert.deepEqual(value(await admin.putSecret('team/key', 'v')), { key: 'team/key' });
    assert.deepEqual(value(await admin.listSecrets('team/')).keys, ['team/key']);
    assert.deepEqual(value(await admin.deleteSecret('team/key')), { key: 'team/key' });
    const status = value(await admin.status());
    assert.equal(status.status, 'running');
    assert.ok(status.blueprints.includes('calc'));

    const conflict = await admin.registerBlueprint('name: calc\n');
    assert.equal(conflict.ok, false);
    if (!conflict.ok) assert.deepEqual([conflict.error.kind, conflict.error.kind === 'api' && conflict.error.code], ['api', 'already_exists']);
    const forbidden = await user.status();
    assert.ok(!forbidden.ok && forbidden.error.kind === 'api' && forbidden.error.status === 403 && forbidden.error.code === 'forbidden');
  });

  test('user routes: sessions, idempotent execute, last run, rebind, one-off runs and discovery', async () => {
    const { session_id } = value(await user.createSession({ blueprint: 'guarded', secrets: { USER_TOKEN: 't' } }));
    const first = value(await user.execute(session_id, 'export function main() { console.log("x"); return 6 * 7; }', { idempotencyKey: 'k-1' }));
    assert.equal(first.result, '42');
    const replay = value(await user.execute(session_id, 'export function main() { console.log("x"); return 6 * 7; }', { idempotencyKey: 'k-1' }));
    assert.equal(replay.execution_id, first.execution_id);
    const conflict = await user.execute(session_id, 'export function main() { return 1; }', { idempotencyKey: 'k-1' });
    assert.ok(!conflict.ok && conflict.error.kind === 'api' && conflict.error.code === 'idempotency_conflict' && conflict.error.status === 409);
    assert.deepEqual(value(await user.lastRun(session_id)).console, ['x']);
    assert.equal(value(await user.rebind(session_id, { USER_TOKEN: 'u' })), null);
    const failed = value(await user.execute(session_id, 'export function main() { throw new Error("boom"); }'));
    assert.equal(failed.error?.kind, 'runtime_error');
    assert.equal(value(await user.deleteSession(session_id)), null);
    const gone = await user.deleteSession(session_id);
    assert.deepEqual(gone, { ok: false, error: { kind: 'not_found', status: 404 } });

    const once = value(await user.executeOnce({ blueprint: 'calc', code: 'export function main() { return "hi"; }' }));
    assert.equal(once.result, 'hi');
    assert.equal(value(await user.lastRun(once.session_id)).result, 'hi');

    assert.equal(value(await user.prompt('calc')).name, 'calc');
    assert.ok(value(await user.searchPackages('calc', 'fs')).results.some((r) => r.name === 'svc:fs'));
    const docs = value(await user.packageDocs('calc', 'svc:fs'));
    assert.ok(docs.format === 'json' && docs.declarations.length > 0);
    const unknown = await user.packageDocs('calc', 'no-such-module');
    assert.ok(!unknown.ok && unknown.error.kind === 'api' && unknown.error.code === 'unknown_package');
    assert.ok(value(await user.builtins('calc')).namespaces.includes('Math'));
    const builtins = value(await user.builtinsDocs('calc', ['Math.max', 'Nope']));
    assert.deepEqual(builtins.results.map((r) => r.name), ['Math.max', 'Nope']);
    const missing = await user.prompt('nope');
    assert.ok(!missing.ok && missing.error.kind === 'api' && missing.error.code === 'not_found' && missing.error.status === 404);
  });

  test('runs: asynchronous starts, records with wait, listing, cancel of a finished run', async () => {
    const started = value(await user.executeOnceAsync({ blueprint: 'calc', code: 'export function main() { return 6 * 7; }' }));
    assert.ok('state' in started, 'an admitted run answers RunStarted');
    const record = value(await user.getRun(started.execution_id, { wait: 60 }));
    assert.equal(record.state, 'finished');
    assert.equal(record.result?.result, '42');
    const refused = value(await user.executeOnceAsync({ blueprint: 'nope', code: 'export function main() {}' }));
    assert.ok(!('state' in refused) && refused.error?.kind === 'blueprint_not_found');

    const { session_id } = value(await user.createSession({ blueprint: 'calc' }));
    const inSession = value(await user.executeAsync(session_id, 'export function main() { return 1; }', { idempotencyKey: 'a-1' }));
    assert.equal(value(await user.executeAsync(session_id, 'export function main() { return 1; }', { idempotencyKey: 'a-1' })).execution_id, inSession.execution_id);
    assert.equal(value(await user.getRun(inSession.execution_id, { wait: 60 })).result?.result, '1');
    const listed = value(await user.listRuns({ sessionId: session_id, state: 'finished', limit: 10 }));
    assert.deepEqual(listed.runs.map((r) => r.execution_id), [inSession.execution_id]);
    const finished = await user.cancelRun(inSession.execution_id);
    assert.ok(!finished.ok && finished.error.kind === 'api' && finished.error.status === 409 && finished.error.code === 'run_finished');
    const unknown = await user.getRun('not-a-run');
    assert.ok(!unknown.ok && unknown.error.kind === 'api' && unknown.error.code === 'unknown_run');
  });

  test('refusals and unreachable servers are values too', async () => {
    const bad = await user.createSession({ blueprint: 42 as unknown as string });
    assert.ok(!bad.ok && bad.error.kind === 'refused' && bad.error.status === 422 && /blueprint/.test(bad.error.message));
    const unauthorized = await new SvcClient({ baseUrl: server.url, token: 'x'.repeat(40) }).status();
    assert.ok(!unauthorized.ok && unauthorized.error.kind === 'api' && unauthorized.error.status === 401 && unauthorized.error.code === 'unauthorized');
    const down = await new SvcClient({ baseUrl: 'http://127.0.0.1:1', token: 'x' }).status();
    assert.ok(!down.ok && down.error.kind === 'network');
    // Routes this build may not serve yet answer a typed error rather than throwing.
    for (const result of [await admin.listPackages(), await admin.mcpAuthStatus('calc')]) assert.equal(typeof result.ok, 'boolean');
    assert.deepEqual(value(await admin.volumes()), { volumes: [] });
    const doc = value(await user.openapi());
    assert.equal(doc.openapi, '3.1.0');
  });

  test('AI SDK tools from the prompt: zod input schemas, execute runs in the session, errors reach the model as values', async () => {
    const { session_id } = value(await user.createSession({ blueprint: 'calc' }));
    const built = value(await svcTools(user, { blueprint: 'calc', sessionId: session_id }));
    const prompt = value(await user.prompt('calc'));
    assert.equal(built.tools.execute.description, prompt.prompt);
    assert.equal(built.tools.search.description, prompt.tools.search);
    assert.deepEqual(Object.keys(built.tools).sort(), ['builtins', 'docs', 'execute', 'last_run', 'search']);
    assert.ok(built.tools.execute.inputSchema instanceof z.ZodType);
    const options = { toolCallId: 't', messages: [] };
    const ran = (await built.tools.execute.execute!({ code: 'export function main() { console.log("a"); return 3; }' }, options)) as { result: string; session_id: string };
    assert.equal(ran.result, '3');
    assert.equal(ran.session_id, session_id);
    assert.deepEqual(((await built.tools.last_run.execute!({}, options)) as { console: string[] }).console, ['a']);
    assert.ok(((await built.tools.builtins.execute!({ names: ['Math.max'] }, options)) as { results: unknown[] }).results.length === 1);
    assert.ok(((await built.tools.builtins.execute!({}, options)) as { namespaces: string[] }).namespaces.includes('JSON'));
    assert.deepEqual(Object.keys((await built.tools.docs.execute!({ name: 'zzz' }, options)) as object).sort(), ['error', 'message']);
    const unknownBlueprint = await svcTools(user, { blueprint: 'nope' });
    assert.ok(!unknownBlueprint.ok && unknownBlueprint.error.kind === 'api');
  });
});
