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

const NARROW = `name: narrow
permissions:
  main:
    - {capability: fs.write, filter: 'path == "/allowed.txt"', action: allow}
    - {capability: fs.list, action: allow}
    - {capability: fs.read, action: allow}
vfs: {mode: ephemeral}
`;

describe('a program cannot write where its Blueprint forbids', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
    await register(server, NARROW);
  });
  after(async () => server.stop());

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
