// POST /v1/execute against the real server: results, console, compile errors, refused
// imports, refusals inside a 200, audit pairs and the usage log line.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

// typecheck: off (types stripped, not checked): no program here is about types, and the server
// would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = 'name: calc\ntypecheck: off\nvariables:\n  team: {}\n  api_token: {}\n  needed_later: {}\n';

async function execute(server: TestServer, code: string, extra: Record<string, unknown> = {}) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'calc', code, ...extra } });
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

describe('one-off execute', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ runners: 1 });
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
    assert.ok(created.status < 300, created.text);
  });
  after(async () => {
    await server.stop();
  });

  test('a string result comes back as is, with an execution id and the mcp-session-id header', async () => {
    const reply = await execute(server, 'export function main() { console.log("working"); return "hello"; }');
    assert.equal(reply.json.result, 'hello');
    assert.deepEqual(reply.json.console, []);
    assert.equal(reply.json.error, null);
    assert.match(reply.json.execution_id, /^[0-9a-f-]{36}$/);
    assert.equal(reply.headers.get('mcp-session-id'), reply.json.session_id);
  });

  test('numbers, booleans and objects come back as JSON text; no value is null; async main is awaited', async () => {
    assert.equal((await execute(server, 'export function main() { return 42; }')).json.result, '42');
    assert.equal((await execute(server, 'export function main() { return true; }')).json.result, 'true');
    assert.equal((await execute(server, 'export function main() { return { b: 1, a: [1, "x"] }; }')).json.result, '{"b":1,"a":[1,"x"]}');
    assert.equal((await execute(server, 'function main(): void {}')).json.result, null);
    assert.equal((await execute(server, 'export async function main() { await null; return "later"; }')).json.result, 'later');
  });

  test('a failing program keeps its console lines and renders the error against program.ts', async () => {
    const reply = await execute(server, 'export function main() {\n  console.log("before");\n  throw new Error("boom");\n}');
    assert.deepEqual(reply.json.console, ['before']);
    assert.equal(reply.json.result, null);
    assert.equal(reply.json.error.kind, 'runtime_error');
    assert.match(reply.json.error.message, /^Error: boom/);
    assert.match(reply.json.error.message, /program\.ts:3/);
  });

  test('a syntax error is a compile_error with 1-based line and column', async () => {
    const reply = await execute(server, 'export function main() {\n  return 1 +;\n}');
    assert.equal(reply.json.error.kind, 'compile_error');
    assert.equal(reply.json.error.diagnostics[0].line, 2);
    assert.equal(reply.json.error.diagnostics[0].column, 13);
    assert.equal(reply.json.error.diagnostics[0].severity, 'error');
    assert.match(reply.json.error.message, /\^/);
  });

  test('an unknown import is refused at compile time, naming it', async () => {
    const reply = await execute(server, 'import fs from "node:fs";\nexport function main() { return 1; }');
    assert.equal(reply.json.error.kind, 'compile_error');
    assert.match(reply.json.error.message, /node:fs/);
    const missing = await execute(server, 'export const x = 1;');
    assert.equal(missing.json.error.kind, 'compile_error');
    assert.match(missing.json.error.message, /main/);
  });

  test('an unknown Blueprint is blueprint_not_found inside a 200, with both audit records', async () => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'nope', code: 'export function main() {}' } });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.error.kind, 'blueprint_not_found');
    const records = server.audit({ type: 'execution', execution_id: reply.json.execution_id });
    assert.deepEqual(records.map((r) => r.event), ['started', 'finished']);
    assert.equal(records[1].error_class, 'blueprint_not_found');
    assert.equal(records[1].outcome, 'error');
  });

  test('an undeclared variable is invalid_request naming it', async () => {
    const reply = await execute(server, 'export function main() {}', { variables: { stranger: 'x' } });
    assert.equal(reply.json.error.kind, 'invalid_request');
    assert.match(reply.json.error.message, /stranger/);
  });

  test('each run writes an audit pair with the response execution id, and never the source or secret-looking values', async () => {
    const marker = 'SOURCE_MARKER_7731';
    const reply = await execute(server, `export function main() { const ${marker} = 1; return "done"; }`, { variables: { team: 'blue', api_token: 'TOKEN_VALUE_9912' } });
    const records = server.audit({ type: 'execution', execution_id: reply.json.execution_id });
    assert.deepEqual(records.map((r) => r.event), ['started', 'finished']);
    const finished = records[1];
    assert.equal(finished.outcome, 'ok');
    assert.equal(finished.entry_point, 'http');
    assert.equal(finished.session_id, reply.json.session_id);
    assert.match(finished.source_hash, /^[0-9a-f]{64}$/);
    assert.match(finished.blueprint_hash, /^[0-9a-f]{64}$/);
    assert.equal(finished['vars.0.name'], 'api_token');
    assert.equal(finished['vars.0.value'], '[redacted]');
    assert.equal(finished['vars.1.value'], 'blue');
    for (const key of ['fuel', 'wasm_fuel', 'host_fuel', 'memory_peak', 'wall_ms']) assert.match(finished[key], /^\d+$/, key);
    const usage = server.logs({ msg: 'execution finished', execution_id: reply.json.execution_id });
    assert.equal(usage.length, 1);
    assert.equal(usage[0].outcome, 'ok');
    for (const line of server.lines()) {
      assert.ok(!line.includes(marker), 'program source leaked');
      assert.ok(!line.includes('TOKEN_VALUE_9912'), 'secret-looking variable leaked');
    }
  });
});
