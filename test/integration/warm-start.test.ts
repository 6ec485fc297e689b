// What a first run would wait for is readied in the background (typecheck_warm_after, at once
// by default): applying a Blueprint makes the type checker of its declarations before any
// program arrives (svc_typecheckers_warmed), and programs are checked by it as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

async function gauge(server: TestServer, name: string): Promise<number> {
  const reply = await server.request('GET', '/metrics');
  const match = new RegExp(`^${name} (\\d+)`, 'm').exec(reply.text);
  return match ? Number(match[1]) : -1;
}

const warmed = (server: TestServer) => gauge(server, 'svc_typecheckers_warmed');
/** Checks that waited for a cold checker: a checker thread they started, or their declaration set's checker they made. */
const cold = (server: TestServer) => gauge(server, 'svc_typecheck_cold_checks');

test('applying a Blueprint warms its type checker before any program, and programs are checked as before', async () => {
  // The harness's servers wait 10 s (they mostly live seconds); this one warms at once, as by default.
  const server = await startServer({ env: { SVC_TYPECHECK_WARM_AFTER: undefined } });
  try {
    const applied = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: quick\ndefault: deny\n' } });
    assert.ok(applied.status < 300, applied.text);
    // The warm-up runs on the checker thread: wait for it, however long a busy machine takes.
    while ((await warmed(server)) < 1) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await warmed(server), 1);
    assert.equal(await cold(server), 0);
    const first = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'quick', code: 'export function main(): string { const n: number = 2; return `hello ${n}`; }' } });
    assert.equal(first.json.result, 'hello 2', first.text);
    // The first program found its checker thread and its declarations' checker made.
    assert.equal(await cold(server), 0);
    // A type error against svc's declarations still blocks: the warm checker is the real one.
    const refused = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'quick', code: 'import { nothing } from "svc:http";\nexport function main() { return nothing; }' } });
    assert.equal(refused.json.error?.kind, 'compile_error', refused.text);
    // Applying the same Blueprint again needs no new checker; one with another mode does.
    await server.request('PUT', '/v1/blueprints/quick', { body: { yaml: 'name: quick\ndefault: deny\n' } });
    const strict = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: strict\ndefault: deny\ntypecheck: strict\n' } });
    assert.ok(strict.status < 300, strict.text);
    while ((await warmed(server)) < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await warmed(server), 2);
    const strictRun = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'strict', code: 'export function main(): string { return "strict"; }' } });
    assert.equal(strictRun.json.result, 'strict', strictRun.text);
    assert.equal(await cold(server), 0);
  } finally {
    await server.stop();
  }
});

test('without warming, the first typed run waits for a cold checker (what the warm-up spares it)', async () => {
  // The harness's default: the checker is loaded 10 s after listening, so the run below comes first.
  const server = await startServer();
  try {
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: quick\ndefault: deny\n' } });
    const first = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'quick', code: 'export function main(): string { return "cold"; }' } });
    assert.equal(first.json.result, 'cold', first.text);
    assert.ok((await cold(server)) >= 1);
  } finally {
    await server.stop();
  }
});
