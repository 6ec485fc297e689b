// GET /v1/openapi.json: a valid OpenAPI 3.1 document, and every route the server serves,
// called for real, answers with a status and body the document describes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startServer, type Reply, type TestServer } from '../harness';
import { apiRoutes } from '../../src/http/route-table';

type Doc = { paths: Record<string, Record<string, { parameters?: unknown[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };

const GUARDED = 'name: guarded\ndefault: allow\nsecrets:\n  USER_TOKEN:\n    harness: {required: true}\nvfs: per_session\n';

describe('OpenAPI document', () => {
  let server: TestServer;
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const exercised = new Set<string>();

  /** Calls a documented route and checks the reply against the document. */
  async function call(method: string, template: string, params: Record<string, string>, options: Parameters<TestServer['request']>[2] & { query?: string } = {}): Promise<Reply> {
    const route = template.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(params[p]));
    const reply = await server.request(method.toUpperCase(), route + (options.query ?? ''), options);
    const operation = doc.paths[template]?.[method];
    assert.ok(operation, `${method} ${template} is documented`);
    const documented = operation.responses[String(reply.status)];
    assert.ok(documented, `${method} ${template} answered ${reply.status}, which the document does not list: ${reply.text.slice(0, 200)}`);
    const type = (reply.headers.get('content-type') ?? '').split(';')[0];
    if (documented.content) {
      assert.ok(documented.content[type], `${method} ${template} ${reply.status}: content type ${type || '(none)'} is not documented`);
      if (type === 'application/json') {
        const validate = ajv.compile({ $ref: `svc#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${reply.status}/content/application~1json/schema` });
        assert.ok(validate(reply.json), `${method} ${template} ${reply.status} body does not match: ${JSON.stringify(validate.errors)} body=${reply.text.slice(0, 300)}`);
      }
    } else {
      assert.equal(reply.text, '', `${method} ${template} ${reply.status} is documented without a body`);
    }
    exercised.add(`${method} ${template}`);
    return reply;
  }

  before(async () => {
    server = await startServer({ runners: 1, env: { SVC_SECRET_KEY: randomBytes(32).toString('base64') }, timeoutMs: 60_000 });
    const reply = await server.request('GET', '/v1/openapi.json', { token: server.userToken });
    assert.equal(reply.status, 200);
    doc = reply.json;
    ajv.addSchema(doc, 'svc');
  });
  after(async () => {
    await server?.stop();
  });

  test('is a valid OpenAPI 3.1 document, readable with any valid token and no other', async () => {
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.equal((doc as unknown as { openapi: string }).openapi, '3.1.0');
    const missing = await server.request('GET', '/v1/openapi.json', { token: null });
    assert.equal(missing.status, 401);
  });

  test('names the execute result, last-run record, discovery, session and Blueprint bodies', () => {
    for (const name of ['ExecuteResult', 'LastRunRecord', 'Prompt', 'PackageSearchResults', 'PackageDocs', 'BuiltinsList', 'BuiltinsDocs', 'CreateSessionRequest', 'SessionCreated', 'OneOffExecuteRequest', 'BlueprintDocument', 'BlueprintSummary', 'BlueprintError']) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    // Request bodies come from the schemas that validate them: required fields included.
    assert.deepEqual((doc.components.schemas.OneOffExecuteRequest as { required: string[] }).required.sort(), ['blueprint', 'code']);
    assert.deepEqual((doc.components.schemas.ExecuteResult as { required: string[] }).required.sort(), ['console', 'error', 'execution_id', 'result', 'session_id']);
  });

  test('every known /v1 path has documentation', () => {
    for (const route of apiRoutes) {
      if (!route.path.startsWith('/v1')) continue;
      assert.ok(route.operation, `${route.method} ${route.path} has an operation in the document`);
    }
  });

  test('real responses of every served route match the document', async () => {
    const user = { token: server.userToken };
    await call('get', '/v1/openapi.json', {}, user);
    await call('get', '/v1/status', {});
    await call('get', '/v1/status', {}, user); // 403
    await call('get', '/v1/status', {}, { token: null }); // 401

    // Blueprints
    await call('post', '/v1/blueprints', {}, { body: { yaml: 'name: calc\ndefault: allow\nvfs: none\n' } });
    await call('post', '/v1/blueprints', {}, { body: { yaml: 'name: calc\n' } }); // 409
    await call('post', '/v1/blueprints', {}, { body: { yaml: 'name: [' } }); // 400
    await call('post', '/v1/blueprints', {}, { body: { yaml: 5 } }); // 422
    await call('post', '/v1/blueprints', {}, { rawBody: '{', headers: { 'content-type': 'application/json' } }); // 400 text
    await call('post', '/v1/blueprints', {}, { rawBody: '{}' }); // 415
    await call('post', '/v1/blueprints', {}, { rawBody: JSON.stringify({ yaml: 'x'.repeat(3 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } }); // 413
    await call('put', '/v1/blueprints/{name}', { name: 'guarded' }, { body: { yaml: GUARDED } });
    await call('put', '/v1/blueprints/{name}', { name: 'guarded' }, { body: { yaml: 'name: other\n' } }); // 400
    await call('get', '/v1/blueprints', {});
    await call('get', '/v1/blueprints/{name}', { name: 'calc' });
    await call('get', '/v1/blueprints/{name}', { name: 'nope' });
    await call('get', '/v1/capabilities', {});

    // Discovery
    await call('get', '/v1/blueprints/{name}/prompt', { name: 'calc' }, user);
    await call('get', '/v1/blueprints/{name}/prompt', { name: 'nope' }, user);
    await call('get', '/v1/blueprints/{name}/packages/search', { name: 'calc' }, { ...user, query: '?q=fs' });
    await call('get', '/v1/blueprints/{name}/packages/search', { name: 'calc' }, { ...user, query: '?q=zzzzzz' });
    await call('get', '/v1/blueprints/{name}/packages/docs', { name: 'calc' }, { ...user, query: '?name=svc:fs' });
    await call('get', '/v1/blueprints/{name}/packages/docs', { name: 'calc' }, { ...user, query: '?name=Math' });
    await call('get', '/v1/blueprints/{name}/packages/docs', { name: 'calc' }, { ...user, query: '?name=nothing-like-it' });
    await call('get', '/v1/blueprints/{name}/packages/docs', { name: 'calc' }, user); // 400 missing name
    await call('get', '/v1/blueprints/{name}/builtins', { name: 'calc' }, user);
    await call('get', '/v1/blueprints/{name}/builtins/docs', { name: 'calc' }, { ...user, query: '?name=Math.max&name=Nope&name=svc:fs' });

    // Sessions and runs
    const opened = await call('post', '/v1/sessions', {}, { ...user, body: { blueprint: 'guarded', secrets: { USER_TOKEN: 't' } } });
    const sessionId = opened.json.session_id as string;
    await call('post', '/v1/sessions', {}, { ...user, body: { blueprint: 'nope' } }); // 404
    await call('post', '/v1/sessions', {}, { ...user, body: { blueprint: 'guarded' } }); // 400 secrets
    await call('get', '/v1/sessions/{session_id}/last-run', { session_id: sessionId }, user); // 404 empty
    await call('get', '/v1/sessions', {}, user);
    await call('post', '/v1/sessions/{session_id}/execute', { session_id: sessionId }, { ...user, body: { code: 'export function main() { console.log("hi"); return { n: 1 }; }' }, headers: { 'idempotency-key': 'k1' } });
    await call('post', '/v1/sessions/{session_id}/execute', { session_id: sessionId }, { ...user, body: { code: 'export function main() { return 2; }' }, headers: { 'idempotency-key': 'k1' } }); // 409 conflict
    await call('post', '/v1/sessions/{session_id}/execute', { session_id: sessionId }, { ...user, body: { code: 'export function main() { return 1' } }); // compile error inside 200
    await call('post', '/v1/sessions/{session_id}/execute', { session_id: sessionId }, { ...user, body: { code: 'export function main() { throw new Error("boom"); }' } });
    await call('post', '/v1/sessions/{session_id}/execute', { session_id: 'not-a-session' }, { ...user, body: { code: 'x' } }); // 404
    await call('post', '/v1/sessions/{session_id}/execute', { session_id: sessionId }, { ...user, body: { code: 'x' }, headers: { 'idempotency-key': 'é' } }); // 400
    await call('get', '/v1/sessions/{session_id}/last-run', { session_id: sessionId }, user);
    await call('post', '/v1/sessions/{session_id}/rebind', { session_id: sessionId }, { ...user, body: { secrets: { USER_TOKEN: 'u' } } });
    await call('post', '/v1/sessions/{session_id}/rebind', { session_id: sessionId }, { ...user, body: { secrets: { OTHER: 'u' } } }); // 400
    await call('post', '/v1/sessions/{session_id}/rebind', { session_id: 'not-a-session' }, { ...user, body: { secrets: {} } }); // 404
    await call('delete', '/v1/sessions/{session_id}', { session_id: sessionId }, user);
    await call('delete', '/v1/sessions/{session_id}', { session_id: sessionId }, user); // 404
    await call('post', '/v1/execute', {}, { ...user, body: { blueprint: 'calc', code: 'export function main() { return [1, 2]; }' } });
    await call('post', '/v1/execute', {}, { ...user, body: { blueprint: 'nope', code: 'export function main() {}' } });
    // Run records: an asynchronous start (202), its record held until finished, refusals.
    const started = await call('post', '/v1/execute', {}, { ...user, body: { blueprint: 'calc', code: 'export function main() { return 3; }' }, headers: { prefer: 'respond-async' } });
    const runId = started.json.execution_id as string;
    await call('get', '/v1/runs/{execution_id}', { execution_id: runId }, { ...user, query: '?wait=60' });
    await call('get', '/v1/runs/{execution_id}', { execution_id: 'not-a-run' }, user); // 404
    await call('get', '/v1/runs/{execution_id}', { execution_id: runId }, { ...user, query: '?wait=61' }); // 400
    await call('get', '/v1/runs', {}, { ...user, query: '?limit=5' });
    await call('get', '/v1/runs', {}, { ...user, query: '?state=done' }); // 400
    await call('post', '/v1/runs/{execution_id}/cancel', { execution_id: runId }, user); // 409 finished
    await call('post', '/v1/runs/{execution_id}/cancel', { execution_id: 'not-a-run' }, user); // 404

    // Run tapes and forks (src/journal)
    const timed = await call('post', '/v1/execute', {}, { ...user, body: { blueprint: 'calc', code: 'export function main() { return Date.now() > 0; }' } });
    await call('get', '/v1/runs/{execution_id}/tape', { execution_id: timed.json.execution_id }, user);
    await call('get', '/v1/runs/{execution_id}/tape', { execution_id: 'no-such-run' }, user); // 404
    await call('post', '/v1/runs/{execution_id}/fork', { execution_id: timed.json.execution_id }, { ...user, body: { step: 0, answer: { value: 1 } } }); // 400 invalid_step

    await call('get', '/v1/volumes', {});
    await call('get', '/v1/volumes', {}, user); // 403

    // Secrets
    await call('post', '/v1/secrets', {}, { body: { key: 'team/api_key', value: 's3cret' } });
    await call('post', '/v1/secrets', {}, { body: { key: '../bad', value: 'v' } }); // 400
    await call('get', '/v1/secrets', {}, { query: '?prefix=team/' });
    await call('delete', '/v1/secrets/{key}', { key: 'team/api_key' });
    await call('delete', '/v1/secrets/{key}', { key: 'team/api_key' }); // 404
    await call('delete', '/v1/blueprints/{name}', { name: 'calc' });
    await call('delete', '/v1/blueprints/{name}', { name: 'calc' }); // 404

    // Approvals: a run parked on an ask-human fetch (denied before anything leaves).
    await call('put', '/v1/blueprints/{name}', { name: 'asks' }, { body: { yaml: 'name: asks\ndefault: allow\npermissions:\n  main:\n    - capability: http.get\n      action: ask-human\n' } });
    const parked = call('post', '/v1/execute', {}, { ...user, body: { blueprint: 'asks', code: 'export async function main() { return (await fetch("https://example.invalid/")).status; }' } });
    let approvalId = '';
    for (let attempt = 0; attempt < 600 && approvalId === ''; attempt++) {
      approvalId = (await server.request('GET', '/v1/approvals?blueprint=asks')).json.approvals[0]?.approval_id ?? '';
      if (approvalId === '') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await call('get', '/v1/approvals', {});
    await call('get', '/v1/approvals', {}, { query: '?state=open' }); // 400
    await call('get', '/v1/approvals/{approval_id}', { approval_id: approvalId });
    await call('get', '/v1/approvals/{approval_id}', { approval_id: 'nope' }); // 404
    await call('post', '/v1/approvals/{approval_id}', { approval_id: approvalId }, { body: { decision: 'maybe' } }); // 422
    await call('post', '/v1/approvals/{approval_id}', { approval_id: approvalId }, { body: { decision: 'deny', reason: 'no' } });
    await call('post', '/v1/approvals/{approval_id}', { approval_id: approvalId }, { body: { decision: 'approve' } }); // 409
    await call('post', '/v1/approvals/{approval_id}', { approval_id: 'nope' }, { body: { decision: 'approve' } }); // 404
    await parked;

    // Routes other parts of the server add (Packages, MCP OAuth): checked when served.
    const served = (method: string, template: string) => Boolean(doc.paths[template]?.[method]);
    if (served('get', '/v1/packages')) await call('get', '/v1/packages', {});
    if (served('post', '/v1/packages/install')) await call('post', '/v1/packages/install', {}, { body: { url: 'not a repository!' } });
    if (served('delete', '/v1/packages/{name}')) await call('delete', '/v1/packages/{name}', { name: '@nobody/nothing' });
    if (served('get', '/v1/mcp/{blueprint}/auth-status')) await call('get', '/v1/mcp/{blueprint}/auth-status', { blueprint: 'guarded' });
    if (served('get', '/v1/mcp/{blueprint}/{server}/auth-config')) await call('get', '/v1/mcp/{blueprint}/{server}/auth-config', { blueprint: 'guarded', server: 'none' });
    if (served('post', '/v1/mcp/{blueprint}/{server}/refresh-token')) await call('post', '/v1/mcp/{blueprint}/{server}/refresh-token', { blueprint: 'guarded', server: 'none' }, { body: { refresh_token: 'r' } });
    if (served('delete', '/v1/mcp/{blueprint}/{server}/refresh-token')) await call('delete', '/v1/mcp/{blueprint}/{server}/refresh-token', { blueprint: 'guarded', server: 'none' });
    if (served('post', '/v1/mcp/{blueprint}/{server}/oauth/exchange')) await call('post', '/v1/mcp/{blueprint}/{server}/oauth/exchange', { blueprint: 'guarded', server: 'none' }, { body: { code: 'c', redirect_uri: 'http://127.0.0.1/cb', code_verifier: 'v' } });

    // Every served route was called at least once (new routes must be added here).
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    const unexercised = documented.filter((r) => !exercised.has(r) && r !== 'post /v1/shutdown');
    assert.deepEqual(unexercised, []);
    await call('post', '/v1/shutdown', {});
  });
});
