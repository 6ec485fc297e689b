// Runs reuse warm isolates, never contexts: with one runner every run lands on the same
// isolate, and still no global, prototype change, module-level value or console line of
// one run is visible to the next, across sessions and Blueprints. Also through HTTP: a
// destructuring catch parameter holding a function compiles (no 500), require/module/
// exports are invisible, and an array buffer past max_execution_memory ends the run.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';
import { execute as executeIn, openSession, registerBlueprint } from '../support/sessions';

async function oneOff(server: TestServer, blueprint: string, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

const POLLUTE = `
  let calls = 0;
  export function main() {
    calls++;
    (globalThis as any).shared = "from an earlier run";
    (Object.prototype as any).polluted = true;
    (Array.prototype as any).map = () => ["hijacked"];
    console.log("an earlier run's line");
    throw new Error("keep my console " + calls);
  }`;

const INSPECT = `export function main() {
  return [typeof (globalThis as any).shared, typeof ({} as any).polluted, [1, 2].map((x) => x * 2).join("+")].join(",");
}`;

describe('one runner shared by sessions and Blueprints', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ config: { runner_pool_size: 1 } });
    await registerBlueprint(server, 'name: alpha\n');
    await registerBlueprint(server, 'name: beta\n');
  });
  after(async () => {
    await server.stop();
  });

  test('nothing of a run reaches the next one, in another session or Blueprint', async () => {
    const first = await oneOff(server, 'alpha', POLLUTE);
    assert.deepEqual(first.console, ["an earlier run's line"]);
    assert.match(first.error.message, /keep my console 1/);
    // The same program again: its module state starts over.
    const again = await oneOff(server, 'alpha', POLLUTE);
    assert.match(again.error.message, /keep my console 1/);
    const other = await oneOff(server, 'beta', INSPECT);
    assert.equal(other.error, null, JSON.stringify(other.error));
    assert.equal(other.result, 'undefined,undefined,2+4');
    assert.deepEqual(other.console, []);

    const a = await openSession(server, { blueprint: 'alpha' });
    const b = await openSession(server, { blueprint: 'beta' });
    assert.equal((await executeIn(server, a, POLLUTE)).status, 200);
    const seen = await executeIn(server, b, INSPECT);
    assert.equal(seen.json.result, 'undefined,undefined,2+4');
    assert.deepEqual(seen.json.console, []);
    const same = await executeIn(server, a, INSPECT);
    assert.equal(same.json.result, 'undefined,undefined,2+4');
  });

  test('a destructuring catch parameter holding a function is a normal run, not a 500', async () => {
    const reply = await oneOff(server, 'alpha', 'export function main() { try { throw [undefined]; } catch ([x = (function () { throw new Error("t"); })()]) { return "bound"; } }');
    assert.equal(reply.error.kind, 'runtime_error');
    assert.match(reply.error.message, /^Error: t/);
    const mixed = await oneOff(server, 'alpha', 'export async function main() { const f = async (a: number) => (b: number) => a + b; const g = (c: boolean) => c ? () => 1 : async () => 2; return (await f(1))(2) + (g(true) as () => number)(); }');
    assert.equal(mixed.result, '4', JSON.stringify(mixed.error));
  });

  test('require, module and exports are not visible', async () => {
    const reply = await oneOff(server, 'alpha', 'export function main() { return [typeof require, typeof module, typeof exports].join(","); }');
    assert.equal(reply.result, 'undefined,undefined,undefined');
  });

  test('a 64 MB array buffer under the default 50 MB ends memory_exhausted, even inside try/catch; 32 MB works', async () => {
    const over = await oneOff(server, 'alpha', 'export function main() { try { return new Uint8Array(64 * 1024 * 1024).length; } catch (e) { return "caught " + e; } }');
    assert.equal(over.result, null);
    assert.equal(over.error?.kind, 'memory_exhausted', JSON.stringify(over));
    const fits = await oneOff(server, 'alpha', 'export function main() { return new Uint8Array(32 * 1024 * 1024).fill(1).length; }');
    assert.equal(fits.result, String(32 * 1024 * 1024), JSON.stringify(fits.error));
  });
});
