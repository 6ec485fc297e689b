// Run limits against the real server: fuel, time, memory and stack each end the run with
// their kind whatever the program does, and the server keeps serving. Plus the
// adversarial corpus in fixtures/programs/adversarial (expected kinds in each header), run
// here only: through the server, its pool and a runner, the path a program takes.
// One server per set of settings, shared by the tests that use it; each runs one program at
// a time, so one runner.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, startServer, type TestServer } from '../harness';

const LOOP = 'export function main() { let s = 0; for (let i = 0; i < 1_000_000; i++) { s += i; } return s; }';

const servers = new Map<string, Promise<TestServer>>();
after(async () => Promise.all([...servers.values()].map(async (server) => (await server).stop())));

async function startWith(args: string[]): Promise<TestServer> {
  const server = await startServer({ args, runners: 1 });
  // typecheck: off (types stripped, not checked): the limits are not about types, and each of
  // the file's three servers would load a type checker for them (about 1 CPU-s).
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: limits\ntypecheck: off\n' } });
  assert.ok(created.status < 300, created.text);
  return server;
}

/** The file's server with these settings, started on first use. */
function serverWith(args: string[]): Promise<TestServer> {
  const key = args.join(' ');
  if (!servers.has(key)) servers.set(key, startWith(args));
  return servers.get(key)!;
}

/** Defaults: what "under the default" means. */
const plain = () => serverWith([]);
/** Small fuel and stack: each test here hits one of them. */
const tight = () => serverWith(['--max-execution-fuel', '1000000', '--max-execution-stack', '16']);
/**
 * Roomy memory and nothing else: a 64 MB string under the tight server's small fuel (a quarter
 * second of CPU at least) once ended as a limit when the suite ran six files at once.
 */
const roomy = () => serverWith(['--max-execution-memory', '200']);
/** The shortest time limit: only programs meant to time out run here. */
const short = () => serverWith(['--max-execution-time', '1']);

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

const corpusDir = path.join(repoRoot, 'fixtures', 'programs', 'adversarial');
const corpus = fs.readdirSync(corpusDir).filter((f) => f.endsWith('.ts')).sort().map((file) => {
  const code = fs.readFileSync(path.join(corpusDir, file), 'utf8');
  return { file, code, expected: /^\/\/ expect: (.+)$/m.exec(code)![1].split('|') };
});

/** Runs each program on the server and asserts its ending, then that the server still serves and nothing leaked. */
async function endsAsExpected(server: TestServer, programs: typeof corpus): Promise<void> {
  for (const { file, code, expected } of programs) {
    const result = await run(server, code);
    const kind = result.error ? result.error.kind : 'ok';
    assert.ok(expected.includes(kind), `${file}: expected ${expected.join(' or ')}, got ${kind}: ${result.error?.message ?? result.result}`);
    if (result.error) assert.equal(result.result, null, `${file}: a run that failed answered a result`);
    await stillServing(server);
  }
  const leak = await run(server, 'export function main() { return [(Array.prototype as any).polluted ?? null, (Object.prototype as any).hacked ?? null, JSON.stringify({ a: 1 }), Math.random() < 1]; }');
  assert.equal(leak.result, '[null,null,"{\\"a\\":1}",true]');
}

// The groups with servers of their own run at once (the time limits and the corpus mostly
// wait out 1 s limits and a runner's replacement); fuel and memory share the plain and
// tight servers, one program at a time on their one runner, so they stay in order.
describe('run limits', { concurrency: true }, () => {
  describe('on the plain and tight servers', () => {
    describe('fuel', () => {
      test('a million-iteration loop passes under the default budget and spends the same fuel every run', async () => {
        const server = await plain();
        const first = await run(server, LOOP);
        const second = await run(server, LOOP);
        assert.equal(first.result, '499999500000');
        assert.equal(fuelOf(server, first.execution_id), fuelOf(server, second.execution_id));
        assert.ok(Number(fuelOf(server, first.execution_id)) > 1_000_000);
      });

      test('--max-execution-fuel 1000000 ends the loop as fuel_exhausted, also at top level and in a caught forEach', async () => {
        const server = await tight();
        assert.equal((await run(server, LOOP)).error.kind, 'fuel_exhausted');
        const topLevel = 'let s = 0; for (let i = 0; i < 1_000_000; i++) { s += i; }\nexport function main() { return s; }';
        assert.equal((await run(server, topLevel)).error.kind, 'fuel_exhausted');
        const caught = 'export function main() { try { [1].forEach(() => { for (let i = 0; i < 1_000_000; i++) {} }); } catch (e) { return "caught"; } finally { return "finally"; } }';
        const result = await run(server, caught);
        assert.equal(result.error.kind, 'fuel_exhausted');
        assert.equal(result.result, null);
        await stillServing(server);
      });
    });

    describe('memory and stack', () => {
      test('64 MB fails under the default 50 MB, 32 MB passes, try/catch does not help; a raised limit admits 64 MB', async () => {
        const server = await plain();
        const big = 'export function main() { try { const s = "x".repeat(64 * 1024 * 1024); return s.length; } catch (e) { return "caught"; } }';
        const failed = await run(server, big);
        assert.equal(failed.error.kind, 'memory_exhausted');
        assert.equal((await run(server, 'export function main() { return "x".repeat(32 * 1024 * 1024).length; }')).result, String(32 * 1024 * 1024));
        const record = server.audit({ type: 'execution', event: 'finished', execution_id: failed.execution_id })[0];
        assert.equal(record.outcome, 'memory_exhausted');
        assert.ok(Number(record.memory_peak) > 0);
        await stillServing(server);
        const admitted = await run(await roomy(), big);
        assert.equal(admitted.result, String(64 * 1024 * 1024), JSON.stringify(admitted.error));
      });

      test('depth-500 recursion passes; a tiny stack ends stack_exhausted; deep recursion through map ends stack_exhausted', async () => {
        const recursion = 'function f(n: number): number { return n === 0 ? 0 : 1 + f(n - 1); }\nexport function main() { return f(500); }';
        const server = await plain();
        assert.equal((await run(server, recursion)).result, '500');
        const viaMap = 'function f(n: number): number { return n === 0 ? 0 : [n].map((x) => f(x - 1))[0] + 1; }\nexport function main() { return f(200000); }';
        assert.equal((await run(server, viaMap)).error.kind, 'stack_exhausted');
        await stillServing(server);
        const tiny = await tight();
        assert.equal((await run(tiny, recursion)).error.kind, 'stack_exhausted');
        await stillServing(tiny);
      });
    });
  });

  describe('time', () => {
    // The corpus's programs meant to time out (loops, also between awaits and with catch; a
    // catastrophic regex; a huge BigInt) run here and only here, so a busy machine cannot turn
    // a memory or stack end into a timeout.
    test('--max-execution-time 1 ends the corpus programs meant to time out as timeout, and nothing leaks into the next run', async () => {
      const timing = corpus.filter((program) => program.expected.includes('timeout'));
      for (const file of ['infinite-loop.ts', 'async-loop-between-awaits.ts', 'infinite-loop-with-catch.ts', 'regex-catastrophic.ts']) {
        assert.ok(timing.some((program) => program.file === file && program.expected.join() === 'timeout'), `${file} expects timeout`);
      }
      await endsAsExpected(await short(), timing);
    });

    // runtime_error, not timeout: the run ends as soon as nothing is left that could settle main.
    test('a main awaiting a promise that can never settle ends at once as runtime_error', async () => {
      const result = await run(await short(), 'export async function main() { await new Promise(() => {}); }');
      assert.equal(result.error.kind, 'runtime_error');
      assert.match(result.error.message, /never settle/);
    });
  });

  describe('adversarial corpus', () => {
    test(`has at least 25 programs (${corpus.length})`, () => {
      assert.ok(corpus.length >= 25);
    });

    // A long time limit (a regression fails instead of hanging) and a small memory limit: the
    // memory ends come sooner (Array(2e8).fill spent about 3 CPU-s reaching the default 50 MB).
    test('each program not meant to time out ends with its defined kind, the server keeps serving, and nothing leaks into the next run', async () => {
      await endsAsExpected(await serverWith(['--max-execution-time', '30', '--max-execution-memory', '16']), corpus.filter((program) => !program.expected.includes('timeout')));
    });
  });
});
