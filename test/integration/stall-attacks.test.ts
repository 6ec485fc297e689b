// One request must not stall or kill the server (issue 25): programs are compiled in worker
// threads with bounded recursion, and a program's stack text is cut and mapped in the
// runner, so the server only receives rendered, bounded text. Through the real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

let server: TestServer;

before(async () => {
  // One program runs at a time (the concurrent ones fail to compile): one runner.
  server = await startServer({ runners: 1 });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: attacks\n' } });
  assert.ok(created.status < 300, created.text);
});
after(async () => {
  await server.stop();
});

function execute(code: string) {
  return server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'attacks', code } });
}

/** The run's audit pair: one `started` and one `finished` record. */
function assertAuditPair(executionId: string, outcome: string): void {
  const records = server.audit({ type: 'execution', execution_id: executionId });
  assert.deepEqual(
    records.map((r) => r.event),
    ['started', 'finished'],
    JSON.stringify(records),
  );
  assert.equal(records[1].outcome, outcome);
}

/** `bytes` (under the 2 MiB body limit) of small functions, failing to compile only at its very end. */
function largeFailingProgram(bytes: number): string {
  const line = (i: number) => `function f${i}(a: number): number { return a * ${i} + 1; }\n`;
  let body = '';
  for (let i = 0; body.length < bytes; i++) body += line(i);
  return `export function main() { return 1; }\n${body}const __svc_last = 1;\n`;
}

/** Resolves once the server has written `count` execution `started` records (the run is being compiled). */
async function startedRecords(count: number): Promise<void> {
  while (server.audit({ type: 'execution', event: 'started' }).length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

test('/healthz answers while a 1.9 MB program compiles: health answers arrive before its compile error does', async () => {
  // A large program, and health requests while it compiles. On the event loop, esbuild's
  // part of a compile is asynchronous but parsing and checking are not, so a health request
  // sent once its run has started would be answered only after the compile error. Compiled
  // in worker threads (large code on a thread of its own), health requests are answered
  // while it compiles. A small program with 5,000 errors follows: its checks (each error
  // placed by a pass over its source) once held the loop too.
  const large = largeFailingProgram(1_900_000);
  const small = `${Array.from({ length: 5_000 }, (_, i) => `const __svc_${i} = ${i};`).join('\n')}\nexport function main() { return 1; }\n`;
  assert.ok(Buffer.byteLength(large) < 2 * 1024 * 1024);
  const before = server.audit({ type: 'execution', event: 'started' }).length;
  let largeAnswered = false;
  const largeAttack = execute(large).then((reply) => {
    largeAnswered = true;
    return reply;
  });
  await startedRecords(before + 1);
  const answeredDuringAttack: boolean[] = [];
  for (let i = 0; i < 3; i++) {
    const health = await server.request('GET', '/healthz', { token: null });
    assert.equal(health.status, 200);
    answeredDuringAttack.push(!largeAnswered);
  }
  const smallReply = await execute(small);
  const largeReply = await largeAttack;
  assert.deepEqual(answeredDuringAttack, [true, true, true]);
  for (const reply of [smallReply, largeReply]) {
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error.kind, 'compile_error');
    assertAuditPair(reply.json.execution_id, 'error');
  }
  assert.match(smallReply.json.error.message, /rename `__svc_0`/);
  assert.match(largeReply.json.error.message, /identifiers starting with `__svc` are reserved by the runtime; rename `__svc_last`/);
});

test('a 150,000-element array literal runs (no HTTP 500), with its started and finished audit records', async () => {
  const code = `const data = [${Array.from({ length: 150_000 }, (_, i) => i % 10).join(',')}];\nexport function main() { return data.length; }`;
  const reply = await execute(code);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, JSON.stringify(reply.json.error));
  assert.equal(reply.json.result, "150000");
  assertAuditPair(reply.json.execution_id, 'ok');
});

test('deep nesting is a compile_error that names the nesting, with its audit pair', async () => {
  const reply = await execute(`export function main() {\n  return ${'['.repeat(100_000)}${']'.repeat(100_000)};\n}`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error.kind, 'compile_error');
  assert.match(reply.json.error.message, /program\.ts:2:\d+: error: brackets nest more than 1000 levels deep here; flatten the nesting/);
  assert.equal(reply.json.error.diagnostics[0].line, 2);
  assertAuditPair(reply.json.execution_id, 'error');
  assert.equal((await server.request('GET', '/healthz', { token: null })).status, 200);
});

const HOSTILE_STACK = '"at " + "a (".repeat(400000)';

test('an error whose stack is one 1.2 MB hostile line ends as a runtime_error with a short message', async () => {
  const reply = await execute(`export function main() {\n  const e = new Error("x");\n  Object.defineProperty(e, "stack", { value: ${HOSTILE_STACK} });\n  throw e;\n}`);
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error.kind, 'runtime_error');
  // Nothing in that text is a frame of the program: the headline alone.
  assert.equal(reply.json.error.message, 'Error: x');
  assertAuditPair(reply.json.execution_id, 'error');
});

test('a thrown Proxy whose stack getter returns hostile text: the getter is never run, the real stack is mapped', async () => {
  const reply = await execute(
    `export function main() {\n  const text = ${HOSTILE_STACK};\n  throw new Proxy(new Error("x"), { get(target, key) { return key === "stack" ? text : Reflect.get(target, key); } });\n}`,
  );
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error.kind, 'runtime_error');
  const message: string = reply.json.error.message;
  assert.ok(message.length < 4_000, String(message.length));
  assert.doesNotMatch(message, /a \(a \(/);
  assert.match(message, /^Error: x\n {4}at main \(program\.ts:3:\d+\)/);
});

test('an ordinary error is still mapped to program.ts with an excerpt, in the runner, also when its map was sent to that runner before', async () => {
  // Each runner gets a program's map once; later runs of it there leave the map out.
  for (let i = 0; i < 5; i++) {
    const reply = await execute('export function main() {\n  return helper(2);\n}\nfunction helper(n: number): number {\n  throw new TypeError(`bad ${n}`);\n}\n');
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error.kind, 'runtime_error');
    assert.match(reply.json.error.message, /^TypeError: bad 2\n {4}at helper \(program\.ts:5:9\)\n {4}at main \(program\.ts:2:10\)\n\n5 \| {3}throw new TypeError\(`bad \$\{n\}`\);\n {12}\^$/);
  }
});
