// The host boundary against the real server: programs that patch the built-ins trusted
// guest code could touch cannot steer a host call, a gate or the run's report.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

async function run(server: TestServer, blueprint: string, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

async function register(server: TestServer, yaml: string) {
  const reply = await server.request('POST', '/v1/blueprints', { body: { yaml } });
  assert.equal(reply.status, 200, reply.text);
}

// These programs are hostile on purpose (they patch built-ins the type checker knows):
// the runtime's defences are what is tested, so the checker is off.
const NARROW = `name: narrow
typecheck: off
permissions:
  main:
    - {capability: fs.write, filter: 'path == "/allowed.txt"', action: allow}
    - {capability: fs.list, action: allow}
    - {capability: fs.read, action: allow}
vfs: {mode: ephemeral}
`;

// One server for the file, with a fuel limit the fuel test can reach and a time limit so
// that a regression fails instead of hanging; one program at a time, so one runner.
let server: TestServer;
before(async () => {
  server = await startServer({ runners: 1, args: ['--max-execution-fuel', '5000000', '--max-execution-time', '60'] });
  await register(server, NARROW);
});
after(async () => server.stop());

describe('a program cannot write where its Blueprint forbids', () => {

  test('the writer exploit of issue 12 (a patched array iterator at close) writes only the checked path', async () => {
    const reply = await run(
      server,
      'narrow',
      `import * as fs from "svc:fs";
export function main() {
  const w = fs.writer("/allowed.txt");
  w.writeLine("pwned");
  const orig = Array.prototype[Symbol.iterator];
  Array.prototype[Symbol.iterator] = function* () {
    const a = Array.from({ length: this.length }, (_, i) => this[i]);
    if (a[0] === "/allowed.txt") a[0] = "/secret.txt";
    yield* orig.call(a);
  };
  try { w.close(); } finally { Array.prototype[Symbol.iterator] = orig; }
  return fs.list("/");
}`,
    );
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    const names = (JSON.parse(reply.result) as Array<{ path: string }>).map((e) => e.path);
    assert.deepEqual(names, ['/allowed.txt']);
  });

  test('toJSON on the prototypes and a patched JSON.stringify cannot rewrite a writer or a write', async () => {
    const reply = await run(
      server,
      'narrow',
      `import * as fs from "svc:fs";
export function main() {
  const w = fs.writer("/allowed.txt");
  w.writeLine("one");
  Array.prototype.toJSON = function () { return [1, "/secret.txt", "x"]; };
  Object.prototype.toJSON = function () { return { path: "/secret.txt" }; };
  const stringify = JSON.stringify;
  JSON.stringify = () => '["/secret.txt", "x"]';
  let refused = "";
  try { w.close(); fs.writeText("/allowed.txt", "two"); } finally { JSON.stringify = stringify; delete Array.prototype.toJSON; delete Object.prototype.toJSON; }
  try { fs.writeText("/secret.txt", "three"); } catch (e) { refused = e.name; }
  return { files: fs.list("/").map((e) => e.path), text: fs.readText("/allowed.txt"), refused };
}`,
    );
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    assert.deepEqual(JSON.parse(reply.result), { files: ['/allowed.txt'], text: 'two', refused: 'PermissionDeniedError' });
  });
});

describe('the run report cannot be forged', () => {

  test('a self-made PermissionDeniedError stays a runtime_error even with WeakSet, WeakMap and toJSON patched', async () => {
    const reply = await run(
      server,
      'narrow',
      `export function main() {
  WeakSet.prototype.has = () => true;
  WeakMap.prototype.get = () => ({ caller: "main", capability: "fs.read", source: "policy" });
  WeakMap.prototype.has = () => true;
  Object.prototype.toJSON = function () { return { ok: false, name: "PermissionDeniedError", message: "forged", denied: { caller: "main", capability: "fs.read", source: "policy" } }; };
  throw new PermissionDeniedError("permission denied: forged", "main", "fs.read", "forged", "policy");
}`,
    );
    assert.equal(reply.error?.kind, 'runtime_error', JSON.stringify(reply.error));
    assert.ok(reply.execution_id);
    assert.equal(server.audit({ type: 'decision', decision: 'deny', execution_id: reply.execution_id }).length, 0);
  });

  test('a real denial, caught, edited and rethrown keeps the host’s caller, capability and source', async () => {
    const reply = await run(
      server,
      'narrow',
      `import * as fs from "svc:fs";
export function main() {
  try { fs.writeText("/secret.txt", "x"); } catch (e) {
    Object.defineProperty(e, "capability", { value: "http.get" });
    Object.defineProperty(e, "source", { value: "invariant" });
    Object.defineProperty(e, "caller", { value: "@evil/pkg" });
    throw e;
  }
}`,
    );
    assert.equal(reply.error?.kind, 'permission_denied');
    assert.deepEqual([reply.error.caller, reply.error.capability, reply.error.source], ['main', 'fs.write', 'policy']);
  });

  test('toJSON on Object.prototype and Array.prototype cannot turn a result into another report', async () => {
    const reply = await run(
      server,
      'narrow',
      `export function main() {
  Object.prototype.toJSON = function () { return { ok: false, name: "PermissionDeniedError", message: "m", denied: { caller: "main", capability: "fs.read", source: "policy" } }; };
  Array.prototype.toJSON = function () { return "array"; };
  return "plain";
}`,
    );
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    assert.equal(reply.result, 'plain');
  });

  test('patched Math.ceil, Object.keys and getters on Object.prototype do not switch the fuel limit off', async () => {
    const reply = await server.request('POST', '/v1/execute', {
      token: server.userToken,
      body: {
        blueprint: 'narrow',
        code: `import * as fs from "svc:fs";
export function main() {
  Math.ceil = () => NaN;
  Object.keys = () => [];
  Object.defineProperty(Object.prototype, "fuel", { get() { return -1e12; }, configurable: true });
  Object.defineProperty(Object.prototype, "value", { get() { return "forged"; }, configurable: true });
  const listed = fs.list("/");
  let n = 0;
  for (;;) { n++; }
}`,
      },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error?.kind, 'fuel_exhausted', JSON.stringify(reply.json.error));
    const finished = server.audit({ type: 'execution', event: 'finished' }).at(-1)!;
    assert.ok(Number(finished.fuel) > 0 && Number.isFinite(Number(finished.fuel)), finished.fuel);
  });
});
