// Limits through a real RunnerPool: fuel, time, memory and stack each end the run with
// their kind and stable message marker whatever the program does (try/catch, callbacks,
// promise chains, top level), and the pool keeps running ordinary jobs afterwards.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgram, RunnerPool, type HostHandler, type HostReply } from '../../../sandbox';
import { assertHealthy, DEFAULT_LIMITS, runProgram, startPool, testHost, TEST_MODULES } from './runtime-harness';
import { eventually } from '../../support/wait';

let pool: RunnerPool;
before(async () => {
  pool = await startPool();
});
after(async () => {
  await pool.stop();
});

const LOOP = 'export function main() { let s = 0; for (let i = 0; i < 1_000_000; i++) { s += i; } return s; }';
const MB = 1024 * 1024;

describe('fuel', () => {
  test('a million-iteration loop passes under the default budget and spends the same fuel twice', async () => {
    const first = await runProgram(pool, LOOP);
    const second = await runProgram(pool, LOOP);
    assert.equal(first.result, '499999500000');
    assert.ok(first.wasmFuel > 1_000_000, `wasm fuel ${first.wasmFuel}`);
    assert.equal(first.wasmFuel, second.wasmFuel);
  });

  test('the same loop under a budget of 1,000,000 ends fuel_exhausted with the whole budget spent', async () => {
    const outcome = await runProgram(pool, LOOP, { limits: { fuel: 1_000_000 } });
    assert.equal(outcome.outcome, 'fuel_exhausted');
    assert.equal(outcome.error?.kind, 'fuel_exhausted');
    assert.match(outcome.error!.message, /^fuel exhausted/);
    assert.match(outcome.error!.message, /1000000/);
    assert.match(outcome.error!.message, /program\.ts:1:/, 'names where the run stopped');
    assert.equal(outcome.wasmFuel + outcome.hostFuel, 1_000_000);
    assert.equal(outcome.result, null);
  });

  test('fuel ends the run at top level and inside a forEach callback wrapped in try/catch/finally', async () => {
    const topLevel = await runProgram(pool, 'let s = 0; for (let i = 0; i < 1_000_000; i++) { s += i; }\nexport function main() { return s; }', { limits: { fuel: 1_000_000 } });
    assert.equal(topLevel.outcome, 'fuel_exhausted');
    const caught = await runProgram(
      pool,
      'export function main() { try { [1].forEach(() => { for (let i = 0; i < 1_000_000; i++) {} }); } catch (e) { return "caught"; } finally { console.log("finally"); } return "after"; }',
      { limits: { fuel: 1_000_000 } },
    );
    assert.equal(caught.outcome, 'fuel_exhausted');
    assert.equal(caught.result, null);
    assert.ok(!caught.console.includes('finally'), 'no finally output after the limit');
  });

  test('fuel ends the run inside a promise chain with a rejection handler', async () => {
    const outcome = await runProgram(pool, 'export async function main() { return Promise.resolve().then(() => { for (;;) {} }).catch(() => "caught"); }', { limits: { fuel: 1_000_000 } });
    assert.equal(outcome.outcome, 'fuel_exhausted');
    await assertHealthy(pool);
  });
});

describe('time', () => {
  // How soon after the limit a run ends is measured by bench/latencies.ts, not asserted here.
  // Short limits: each loop burns a core until it ends.
  test('an infinite loop under a 200 ms limit ends as timeout', async () => {
    const outcome = await runProgram(pool, 'export function main() { for (;;) { try { for (;;) {} } catch { } } }', { limits: { timeMs: 200 } });
    assert.equal(outcome.outcome, 'timeout');
    assert.equal(outcome.error?.kind, 'timeout');
    assert.match(outcome.error!.message, /^timeout exceeded/);
    await assertHealthy(pool);
  });

  test('an async main looping between awaits ends as timeout', async () => {
    const outcome = await runProgram(pool, 'export async function main() { for (;;) { await null; } }', { limits: { timeMs: 200 } });
    assert.equal(outcome.outcome, 'timeout');
  });

  test('a promise that can never settle is a runtime_error, not a timeout', async () => {
    // No time limit at all: only the never-settle check can end this run.
    const outcome = await runProgram(pool, 'export async function main() { await new Promise(() => {}); return "never"; }', { limits: { timeMs: 0 } });
    assert.equal(outcome.error?.kind, 'runtime_error');
    assert.match(outcome.error!.message, /never settle/);
  });

  test('an aborted signal cancels a running program', async () => {
    const controller = new AbortController();
    // The program calls the host once, then loops: the abort comes once that call has been
    // answered, so the program is in its loop (no clock decides when).
    const host: HostHandler = async (call) => {
      setImmediate(() => controller.abort());
      return testHost(call);
    };
    const outcome = await runProgram(pool, 'import { echo } from "svc:test";\nexport function main() { echo(1); for (;;) {} }', { signal: controller.signal, limits: { timeMs: 0 }, host });
    assert.equal(outcome.outcome, 'cancelled');
    assert.equal(outcome.error?.kind, 'cancelled');
    await assertHealthy(pool);
  });
});

describe('cancellation while a run starts', () => {
  test('a run cancelled while its isolate is still being made ends cancelled and its runner keeps the other runs', async () => {
    // One runner hosting 24 runs: past the contexts it keeps ready, the last runs get new
    // isolates, made asynchronously; the last run is cancelled right behind its dispatch,
    // while its isolate is being made. A dropped cancellation would make the pool replace
    // the runner after its grace, and the 23 runs held on the host would die with it.
    const many = new RunnerPool({ size: 1, memoryMb: DEFAULT_LIMITS.memoryMb, runsPerRunner: 32 });
    await many.start();
    try {
      const held: Array<() => void> = [];
      const hold = (): Promise<HostReply> => new Promise((resolve) => held.push(() => resolve({ ok: true, value: 'released', fuel: 16 })));
      const compiled = await compileProgram({ source: 'import { echo } from "svc:test";\nexport function main() { return echo("x"); }', availableModules: Object.keys(TEST_MODULES) });
      assert.ok(compiled.ok);
      const job = (executionId: string, signal?: AbortSignal) => ({ executionId, script: compiled.script, hostModules: { 'svc:test': TEST_MODULES['svc:test'] }, limits: DEFAULT_LIMITS, signal });
      const others = Array.from({ length: 23 }, (_, i) => many.run(job(`held-${i}`), hold));
      const controller = new AbortController();
      // Dispatched at once (the runner has room), then the cancellation right behind it.
      const cancelled = many.run(job('cancelled', controller.signal), hold);
      controller.abort();
      const outcome = await cancelled;
      assert.equal(outcome.outcome, 'cancelled');
      await eventually('the other runs wait on the host', () => held.length >= 23);
      for (const release of held) release();
      for (const other of await Promise.all(others)) assert.equal(other.result, 'released', other.error?.message);
    } finally {
      await many.stop();
    }
  });
});

describe('memory', () => {
  test('a 64 MB string under a 50 MB limit ends memory_exhausted, even inside try/catch', async () => {
    const outcome = await runProgram(pool, 'export function main() { try { const s = "x".repeat(64 * 1024 * 1024); return s.length; } catch (e) { return "caught"; } }');
    assert.equal(outcome.outcome, 'memory_exhausted');
    assert.equal(outcome.error?.kind, 'memory_exhausted');
    assert.match(outcome.error!.message, /^memory exhausted/);
    assert.ok(outcome.memoryPeak >= 50 * MB);
    await assertHealthy(pool);
  });

  test('a 32 MB string passes under 50 MB and reports its memory peak', async () => {
    const outcome = await runProgram(pool, 'export function main() { const s = "x".repeat(32 * 1024 * 1024); return s.length; }');
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.equal(outcome.result, String(32 * MB));
    assert.ok(outcome.memoryPeak > 0);
  });

  test('a raised limit admits a 64 MB string', async () => {
    const outcome = await runProgram(pool, 'export function main() { return "x".repeat(64 * 1024 * 1024).length; }', { limits: { memoryMb: 256 } });
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.equal(outcome.result, String(64 * MB));
  });
});

describe('stack', () => {
  const RECURSE = 'function depth(n: number): number { return n === 0 ? 0 : 1 + depth(n - 1); }\n';

  test('500-deep recursion passes under the default stack', async () => {
    const outcome = await runProgram(pool, `${RECURSE}export function main() { return depth(500); }`);
    assert.equal(outcome.result, '500');
  });

  test('a tiny stack limit ends the same recursion as stack_exhausted, even inside try/catch', async () => {
    const outcome = await runProgram(pool, `${RECURSE}export function main() { try { return depth(500); } catch (e) { return "caught"; } }`, { limits: { stackKib: 16 } });
    assert.equal(outcome.outcome, 'stack_exhausted');
    assert.equal(outcome.error?.kind, 'stack_exhausted');
    assert.match(outcome.error!.message, /^call stack exhausted/);
  });

  test('200,000-deep recursion through Array.prototype.map ends stack_exhausted and the pool runs the next job', async () => {
    const outcome = await runProgram(pool, 'function f(n: number): number { return n === 0 ? 0 : [n - 1].map(f)[0] + 1; }\nexport function main() { return f(200000); }');
    assert.equal(outcome.outcome, 'stack_exhausted');
    await assertHealthy(pool);
  });

  test('native stack overflow caught by the program still ends stack_exhausted', async () => {
    const outcome = await runProgram(pool, 'function f(): number { try { return f(); } catch (e) { return f(); } }\nexport function main() { return f(); }', { limits: { stackKib: 100_000 } });
    assert.equal(outcome.outcome, 'stack_exhausted');
    await assertHealthy(pool);
  });
});
