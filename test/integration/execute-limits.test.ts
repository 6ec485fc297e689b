// Run limits against the real server: fuel, time, memory and stack each end the run with
// their kind whatever the program does, and the server keeps serving. Plus the
// adversarial corpus in fixtures/programs/adversarial (expected kinds in each header).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, startServer, type TestServer } from '../harness';

const LOOP = 'export function main() { let s = 0; for (let i = 0; i < 1_000_000; i++) { s += i; } return s; }';

async function serverWith(args: string[]): Promise<TestServer> {
  const server = await startServer({ args });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: limits\n' } });
  assert.ok(created.status < 300, created.text);
  return server;
}

async function run(server: TestServer, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'limits', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

async function stillServing(server: TestServer): Promise<void> {
  assert.equal((await server.request('GET', '/healthz', { token: null })).status, 200);
  assert.equal((await run(server, 'export function main() { return "alive"; }')).result, 'alive');
}

function fuelOf(server: TestServer, executionId: string): string {
  return server.audit({ type: 'execution', event: 'finished', execution_id: executionId })[0].wasm_fuel;
}

describe('fuel', () => {
  test('a million-iteration loop passes under the default budget and spends the same fuel every run', async () => {
    const server = await serverWith([]);
    try {
      const first = await run(server, LOOP);
      const second = await run(server, LOOP);
      assert.equal(first.result, '499999500000');
      assert.equal(fuelOf(server, first.execution_id), fuelOf(server, second.execution_id));
      assert.ok(Number(fuelOf(server, first.execution_id)) > 1_000_000);
    } finally {
      await server.stop();
    }
  });

  test('--max-execution-fuel 1000000 ends the loop as fuel_exhausted, also at top level and in a caught forEach', async () => {
    const server = await serverWith(['--max-execution-fuel', '1000000']);
    try {
      assert.equal((await run(server, LOOP)).error.kind, 'fuel_exhausted');
      const topLevel = 'let s = 0; for (let i = 0; i < 1_000_000; i++) { s += i; }\nexport function main() { return s; }';
      assert.equal((await run(server, topLevel)).error.kind, 'fuel_exhausted');
      const caught = 'export function main() { try { [1].forEach(() => { for (let i = 0; i < 1_000_000; i++) {} }); } catch (e) { return "caught"; } finally { return "finally"; } }';
      const result = await run(server, caught);
      assert.equal(result.error.kind, 'fuel_exhausted');
      assert.equal(result.result, null);
      await stillServing(server);
    } finally {
      await server.stop();
    }
  });
});

describe('time', () => {
  let server: TestServer;
  after(async () => server?.stop());

  test('--max-execution-time 1 ends an infinite loop, also between awaits, as timeout', async () => {
    server = await serverWith(['--max-execution-time', '1']);
    for (const code of ['export function main() { for (;;) {} }', 'export async function main() { for (;;) { await null; } }']) {
      const result = await run(server, code);
      assert.equal(result.error.kind, 'timeout');
    }
    await stillServing(server);
  });

  // runtime_error, not timeout: the run ends as soon as nothing is left that could settle main.
  test('a main awaiting a promise that can never settle ends at once as runtime_error', async () => {
    const result = await run(server, 'export async function main() { await new Promise(() => {}); }');
    assert.equal(result.error.kind, 'runtime_error');
    assert.match(result.error.message, /never settle/);
  });
});

describe('memory and stack', () => {
  test('64 MB fails under the default 50 MB, 32 MB passes, try/catch does not help; a raised limit admits 64 MB', async () => {
    const server = await serverWith([]);
    const big = 'export function main() { try { const s = "x".repeat(64 * 1024 * 1024); return s.length; } catch (e) { return "caught"; } }';
    try {
      const failed = await run(server, big);
      assert.equal(failed.error.kind, 'memory_exhausted');
      assert.equal((await run(server, 'export function main() { return "x".repeat(32 * 1024 * 1024).length; }')).result, String(32 * 1024 * 1024));
      const record = server.audit({ type: 'execution', event: 'finished', execution_id: failed.execution_id })[0];
      assert.equal(record.outcome, 'memory_exhausted');
      assert.ok(Number(record.memory_peak) > 0);
      await stillServing(server);
    } finally {
      await server.stop();
    }
    const roomy = await serverWith(['--max-execution-memory', '200']);
    try {
      assert.equal((await run(roomy, big)).result, String(64 * 1024 * 1024));
    } finally {
      await roomy.stop();
    }
  });

  test('depth-500 recursion passes; a tiny stack ends stack_exhausted; deep recursion through map ends stack_exhausted', async () => {
    const recursion = 'function f(n: number): number { return n === 0 ? 0 : 1 + f(n - 1); }\nexport function main() { return f(500); }';
    const server = await serverWith([]);
    try {
      assert.equal((await run(server, recursion)).result, '500');
      const viaMap = 'function f(n: number): number { return n === 0 ? 0 : [n].map((x) => f(x - 1))[0] + 1; }\nexport function main() { return f(200000); }';
      assert.equal((await run(server, viaMap)).error.kind, 'stack_exhausted');
      await stillServing(server);
    } finally {
      await server.stop();
    }
    const tiny = await serverWith(['--max-execution-stack', '16']);
    try {
      assert.equal((await run(tiny, recursion)).error.kind, 'stack_exhausted');
    } finally {
      await tiny.stop();
    }
  });
});

describe('adversarial corpus', () => {
  const dir = path.join(repoRoot, 'fixtures', 'programs', 'adversarial');
  const programs = fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).sort();

  test(`has at least 25 programs (${programs.length})`, () => {
    assert.ok(programs.length >= 25);
  });

  test('each program ends with its defined kind, the server keeps serving, and nothing leaks into the next run', async () => {
    // Programs meant to hit the time limit run on a server with a short one; the others on a
    // server with a long one, so a busy machine cannot turn a memory or stack end into a timeout.
    const short = await serverWith(['--max-execution-time', '2']);
    const long = await serverWith(['--max-execution-time', '30']);
    try {
      for (const file of programs) {
        const code = fs.readFileSync(path.join(dir, file), 'utf8');
        const expected = /^\/\/ expect: (.+)$/m.exec(code)![1].split('|');
        const server = expected.includes('timeout') ? short : long;
        const result = await run(server, code);
        const kind = result.error ? result.error.kind : 'ok';
        assert.ok(expected.includes(kind), `${file}: expected ${expected.join(' or ')}, got ${kind}: ${result.error?.message ?? result.result}`);
        await stillServing(server);
      }
      for (const server of [short, long]) {
        const leak = await run(server, 'export function main() { return [(Array.prototype as any).polluted ?? null, (Object.prototype as any).hacked ?? null, JSON.stringify({ a: 1 }), Math.random() < 1]; }');
        assert.equal(leak.result, '[null,null,"{\\"a\\":1}",true]');
      }
    } finally {
      await Promise.all([short.stop(), long.stop()]);
    }
  });
});
