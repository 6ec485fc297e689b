// The session routes in process: a hono app with the real SessionManager and ledger and a
// fake executor that counts runs, so statuses, bodies, replays and audit calls are checked.
import { test, describe, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import http from 'node:http';
import net from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { silentLog } from '../../../src/audit';
import type { Blueprint } from '../../../src/blueprints';
import type { ExecutionRequest, Executor, RefusedRequest } from '../../../src/execution';
import type { AppEnv } from '../../../src/http';
import { errorResponder } from '../../../src/http/errors';
import { mountSessionRoutes } from '../../../src/http/routes/sessions';
import { IDEMPOTENCY_LEDGER_SQL, IdempotencyLedger, SessionDirectories, SessionManager, SessionRecordStore } from '../../../src/sessions';
import { tempDir } from '../../support/temp-dirs';

const NOTES: Blueprint = {
  name: 'notes',
  allowInsecureHttp: false,
  packages: [],
  authProxy: [],
  mcp: {},
  llm: {},
  typecheck: 'on',
  approvalTimeoutSecs: 86_400,
  yaml: '',
  idleTimeoutSecs: 3600,
  declarations: {
    variables: new Map([['team', { required: true }]]),
    secrets: new Map([['USER_TOKEN', { source: 'harness', required: true } as const]]),
  },
  vfs: { mode: 'per_session', cwd: '/teams/${vars.team}' },
  git: null,
  hash: 'a'.repeat(64),
  policy: {} as Blueprint['policy'],
};

class FakeExecutor {
  runs: ExecutionRequest[] = [];
  refusals: RefusedRequest[] = [];
  delayMs = 0;

  refuse(request: RefusedRequest): string {
    this.refusals.push(request);
    return request.executionId ?? randomUUID();
  }

  async execute(request: ExecutionRequest) {
    this.runs.push(request);
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const failure = request.code.includes('SYNTAX') ? 'compile_error' : request.code.includes('CANCEL') ? 'cancelled' : null;
    const error = failure ? { kind: failure, message: 'failed' } : null;
    const result = failure ? null : `run ${this.runs.length}`;
    return {
      response: { execution_id: request.executionId!, session_id: request.sessionId, result, console: [], error },
      lastRun: { result, console: ['logged'], error },
    };
  }
}

/** A fresh app, or (with `previous`) a second one over the same records and ledger, as after a restart. */
function setup(previous?: { root: string; db: Database.Database; executor: FakeExecutor }) {
  const root = previous?.root ?? tempDir('svc-session-routes-');
  const db = previous?.db ?? new Database(':memory:');
  db.exec(IDEMPOTENCY_LEDGER_SQL);
  const ledger = new IdempotencyLedger({ db, generation: randomUUID(), newId: randomUUID, log: silentLog });
  const executor = previous?.executor ?? new FakeExecutor();
  const sessions = new SessionManager<Blueprint>({
    records: new SessionRecordStore(path.join(root, 'records')),
    fileAreas: new SessionDirectories(path.join(root, 'files')),
    ledger,
    audit: { write() {} },
    log: silentLog,
    resolveBlueprint: (name) => (name === 'notes' ? NOTES : null),
    newId: randomUUID,
  });
  sessions.recover();
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('principal', { name: 'harness', role: 'user' });
    c.set('cancelSignal', new AbortController().signal);
    await next();
  });
  mountSessionRoutes(app, { sessions, executor: executor as unknown as Executor<Blueprint>, ledger, newId: randomUUID });
  app.onError(errorResponder(silentLog));
  const send = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await app.request(route, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
  };
  const open = async (secrets: Record<string, string> = { USER_TOKEN: 't' }) => {
    const reply = await send('POST', '/v1/sessions', { blueprint: 'notes', variables: { team: 'blue' }, secrets });
    assert.equal(reply.status, 200, reply.text);
    return reply.json.session_id as string;
  };
  return { root, db, executor, sessions, send, open, app };
}

describe('session routes', () => {
  let t: ReturnType<typeof setup>;
  beforeEach(() => {
    t = setup();
  });

  test('POST /v1/sessions answers {session_id} with the mcp-session-id header', async () => {
    const reply = await t.send('POST', '/v1/sessions', { blueprint: 'notes', variables: { team: 'blue' }, secrets: { USER_TOKEN: 't' } });
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.json), ['session_id']);
    assert.equal(reply.headers.get('mcp-session-id'), reply.json.session_id);
  });

  test('create refusals: unknown blueprint 404, variables, vfs and secrets 400, each naming the offender', async () => {
    const unknown = await t.send('POST', '/v1/sessions', { blueprint: 'nope' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error, 'unknown blueprint');
    assert.equal(unknown.json.name, 'nope');
    assert.match(unknown.json.message, /nope/);
    const variables = await t.send('POST', '/v1/sessions', { blueprint: 'notes', variables: {} });
    assert.deepEqual(variables.json, { error: "invalid variables: required variable 'team' was not supplied" });
    assert.equal(variables.status, 400);
    const vfs = await t.send('POST', '/v1/sessions', { blueprint: 'notes', variables: { team: '..' } });
    assert.equal(vfs.status, 400);
    assert.match(vfs.json.error, /^invalid vfs config: .*'team'/);
    const secrets = await t.send('POST', '/v1/sessions', { blueprint: 'notes', variables: { team: 'b' }, secrets: { USER_TOKEN: 't', EXTRA: 'x' } });
    assert.equal(secrets.status, 400);
    assert.deepEqual(secrets.json, { error: "invalid secrets: secret 'EXTRA' is not declared" });
  });

  test('execute runs in the session with its variables and cwd; last-run has the full console', async () => {
    const id = await t.open();
    const before = await t.send('GET', `/v1/sessions/${id}/last-run`);
    assert.equal(before.status, 404);
    assert.equal(before.text, '');
    const reply = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'export function main() {}' });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('mcp-session-id'), id);
    assert.equal(reply.json.result, 'run 1');
    assert.equal(t.executor.runs[0].entryPoint, 'session');
    assert.equal(t.executor.runs[0].cwd, '/teams/blue');
    assert.deepEqual(t.executor.runs[0].variables, { team: 'blue' });
    const lastRun = await t.send('GET', `/v1/sessions/${id}/last-run`);
    assert.deepEqual(lastRun.json, { result: 'run 1', console: ['logged'], error: null });
  });

  test('execute on an unknown session is 404 with the audit pair refused as unknown_session', async () => {
    const id = randomUUID();
    const reply = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'x' });
    assert.equal(reply.status, 404);
    assert.equal(reply.json.error, 'unknown session');
    assert.equal(reply.json.session_id, id);
    assert.equal(t.executor.refusals[0].errorClass, 'unknown_session');
    assert.equal(t.executor.refusals[0].executionId, reply.json.execution_id);
    assert.equal(t.executor.runs.length, 0);
  });

  test('a session without its required secrets is 409 until rebind, before the key touches the ledger', async () => {
    const id = await t.open();
    // Simulate a restart: a fresh manager over the same records holds no secrets.
    t.sessions.close();
    const restarted = setup(t);
    const refused = await restarted.send('POST', `/v1/sessions/${id}/execute`, { code: 'x' }, { 'Idempotency-Key': 'k1' });
    assert.equal(refused.status, 409);
    assert.deepEqual({ error: refused.json.error, required: refused.json.required, session_id: refused.json.session_id }, {
      error: 'session_requires_secrets',
      required: ['USER_TOKEN'],
      session_id: id,
    });
    assert.equal(t.db.prepare('SELECT count(*) FROM idempotent_requests').pluck().get(), 0);
    const badRebind = await restarted.send('POST', `/v1/sessions/${id}/rebind`, { secrets: { NOPE: 'x' } });
    assert.equal(badRebind.status, 400);
    assert.match(badRebind.json.error, /secret 'NOPE' is not declared/);
    const rebind = await restarted.send('POST', `/v1/sessions/${id}/rebind`, { secrets: { USER_TOKEN: 'new' } });
    assert.equal(rebind.status, 204);
    assert.equal(rebind.text, '');
    const ran = await restarted.send('POST', `/v1/sessions/${id}/execute`, { code: 'x' }, { 'Idempotency-Key': 'k1' });
    assert.equal(ran.status, 200);
  });

  test('a duplicate key with the same code replays the bytes without running or auditing', async () => {
    const id = await t.open();
    const first = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'same' }, { 'Idempotency-Key': 'k' });
    const other = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'other' });
    const replay = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'same' }, { 'Idempotency-Key': 'k' });
    assert.equal(replay.status, 200);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get('content-type'), 'application/json');
    assert.equal(replay.headers.get('mcp-session-id'), id);
    assert.equal(t.executor.runs.length, 2);
    assert.equal(t.executor.refusals.length, 0);
    const lastRun = await t.send('GET', `/v1/sessions/${id}/last-run`);
    assert.equal(lastRun.json.result, other.json.result, 'a replay does not change last-run');
  });

  test('a concurrent duplicate waits for the original and returns the same bytes', async () => {
    const id = await t.open();
    t.executor.delayMs = 100;
    const [a, b] = await Promise.all([
      t.send('POST', `/v1/sessions/${id}/execute`, { code: 'c' }, { 'Idempotency-Key': 'k' }),
      t.send('POST', `/v1/sessions/${id}/execute`, { code: 'c' }, { 'Idempotency-Key': 'k' }),
    ]);
    assert.equal(a.status, 200);
    assert.equal(a.text, b.text);
    assert.equal(t.executor.runs.length, 1);
  });

  test('the same key with different code is 409 idempotency_conflict with the refusal body', async () => {
    const id = await t.open();
    await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'one' }, { 'Idempotency-Key': 'k' });
    const conflict = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'two' }, { 'Idempotency-Key': 'k' });
    assert.equal(conflict.status, 409);
    assert.deepEqual(Object.keys(conflict.json).sort(), ['detail', 'error', 'execution_id', 'session_id']);
    assert.equal(conflict.json.error, 'idempotency_conflict');
    assert.equal(t.executor.refusals.at(-1)?.errorClass, 'idempotency_conflict');
    assert.equal(t.executor.runs.length, 1);
  });

  test('empty and 121-byte keys are 400 idempotency_key_invalid and nothing runs or is recorded', async () => {
    const id = await t.open();
    for (const key of ['', 'k'.repeat(121)]) {
      const reply = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'c' }, { 'Idempotency-Key': key });
      assert.equal(reply.status, 400, `key of ${key.length} bytes`);
      assert.equal(reply.json.error, 'idempotency_key_invalid');
    }
    assert.equal(t.executor.runs.length, 0);
    assert.equal(t.db.prepare('SELECT count(*) FROM idempotent_requests').pluck().get(), 0);
  });

  test('a run that ends before dispatch records nothing, so the key can be used again', async () => {
    const id = await t.open();
    const failed = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'SYNTAX' }, { 'Idempotency-Key': 'k' });
    assert.equal(failed.json.error.kind, 'compile_error');
    assert.equal(t.db.prepare('SELECT count(*) FROM idempotent_requests').pluck().get(), 0);
    const ran = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'fixed' }, { 'Idempotency-Key': 'k' });
    assert.equal(ran.json.result, 'run 2');
  });

  test('a run the server cancelled stays unrecorded: a retry with the key is idempotency_incomplete', async () => {
    const id = await t.open();
    const cancelled = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'CANCEL' }, { 'Idempotency-Key': 'k' });
    assert.equal(cancelled.json.error.kind, 'cancelled');
    const retry = await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'CANCEL' }, { 'Idempotency-Key': 'k' });
    assert.equal(retry.status, 409);
    assert.equal(retry.json.error, 'idempotency_incomplete');
    assert.equal(t.executor.runs.length, 1);
  });

  test('delete answers 204, then execute 404, delete 404 and rebind 404 with empty or documented bodies', async () => {
    const id = await t.open();
    const deleted = await t.send('DELETE', `/v1/sessions/${id}`);
    assert.equal(deleted.status, 204);
    assert.equal((await t.send('POST', `/v1/sessions/${id}/execute`, { code: 'x' })).status, 404);
    const again = await t.send('DELETE', `/v1/sessions/${id}`);
    assert.equal(again.status, 404);
    assert.equal(again.text, '');
    const rebind = await t.send('POST', `/v1/sessions/${id}/rebind`, { secrets: { USER_TOKEN: 'x' } });
    assert.equal(rebind.status, 404);
    assert.deepEqual(rebind.json, { error: 'unknown session', session_id: id });
  });
});

describe('session routes over a real Node listener', () => {
  test('an Idempotency-Key sent twice is idempotency_key_invalid even with equal values', async () => {
    const t = setup();
    const id = await t.open();
    const server = http.createServer(getRequestListener(t.app.fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const requestBody = JSON.stringify({ code: 'x' });
      // A raw socket, because HTTP clients merge or refuse repeated headers.
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end(
            [
              `POST /v1/sessions/${id}/execute HTTP/1.1`,
              'Host: 127.0.0.1',
              'Content-Type: application/json',
              `Content-Length: ${Buffer.byteLength(requestBody)}`,
              'Idempotency-Key: same',
              'Idempotency-Key: same',
              'Connection: close',
              '',
              requestBody,
            ].join('\r\n'),
          );
        });
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      const reply = { status: Number(raw.split(' ')[1]), body: raw.slice(raw.indexOf('{'), raw.lastIndexOf('}') + 1) };
      assert.equal(reply.status, 400, `status ${reply.status}: ${reply.body}`);
      assert.equal(JSON.parse(reply.body).error, 'idempotency_key_invalid');
      assert.match(JSON.parse(reply.body).detail, /more than once/);
      assert.equal(t.executor.runs.length, 0);
    } finally {
      server.close();
    }
  });
});
