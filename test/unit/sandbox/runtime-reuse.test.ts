// Runs share a warm isolate but never a context: on a one-runner pool (every run lands on
// the same runner) no global, prototype change, module-level value, console line or
// finalizer of one run reaches the next; memory_peak is per run; array buffers count
// against max_execution_memory.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { RunnerPool } from '../../../sandbox';
import { assertHealthy, DEFAULT_LIMITS, runProgram, startPool } from './runtime-harness';

const MB = 1024 * 1024;
let pool: RunnerPool;
before(async () => {
  pool = await startPool(1);
});
after(async () => {
  await pool.stop();
});

async function resultOf(source: string): Promise<string | null> {
  const outcome = await runProgram(pool, source);
  assert.equal(outcome.error, null, outcome.error?.message);
  return outcome.result;
}

describe('one runner, many runs', () => {
  test('globals, prototypes, built-ins and module-level state of a run are gone in the next', async () => {
    const polluter = `
      let counter = (globalThis as any).__count ?? 0;
      export function main() {
        (globalThis as any).__count = ++counter;
        (Object.prototype as any).evil = 1;
        (Array.prototype as any).push = () => 0;
        (Math as any).random = () => 4;
        Object.defineProperty(globalThis, "sticky", { value: 1, configurable: false });
        console.log("run one was here");
        return counter;
      }`;
    assert.equal(await resultOf(polluter), '1');
    // The same program again starts from scratch: its module state is new.
    assert.equal(await resultOf(polluter), '1');
    const outcome = await runProgram(
      pool,
      'export function main() { const a: number[] = []; a.push(1); return [typeof (globalThis as any).__count, typeof ({} as any).evil, a.length, Math.random() === 4, typeof (globalThis as any).sticky].join(","); }',
    );
    assert.equal(outcome.result, 'undefined,undefined,1,false,undefined');
    assert.deepEqual(outcome.console, []);
  });

  test('a finalizer registered by one run never runs in a later one', async () => {
    await resultOf('export function main() { const r = new FinalizationRegistry(() => console.log("finalizer of run one")); for (let i = 0; i < 1000; i++) r.register({ big: new Array(100).fill(i) }, i); return "registered"; }');
    for (let i = 0; i < 3; i++) {
      const outcome = await runProgram(pool, 'export function main() { const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i }); return junk.length; }');
      assert.deepEqual(outcome.console, []);
      assert.equal(outcome.result, '20000');
    }
  });

  test('memory_peak is the run own: a large run does not raise the next one', async () => {
    const big = await runProgram(pool, 'export function main() { const s = "x".repeat(24 * 1024 * 1024); return s.length; }');
    assert.equal(big.error, null, big.error?.message);
    assert.ok(big.memoryPeak >= 23 * MB, `peak ${big.memoryPeak}`);
    const small = await runProgram(pool, 'export function main() { return 1; }');
    assert.ok(small.memoryPeak > 0 && small.memoryPeak < 16 * MB, `peak ${small.memoryPeak}`);
  });

  test('after a limit end the next run works on a fresh isolate', async () => {
    const out = await runProgram(pool, 'export function main() { (globalThis as any).x = 1; while (true) {} }', { limits: { fuel: 100_000 } });
    assert.equal(out.outcome, 'fuel_exhausted');
    assert.equal(await resultOf('export function main() { return typeof (globalThis as any).x; }'), 'undefined');
    await assertHealthy(pool);
  });
});

// A runner that hosts several runs at once keeps the isolates runs give back (one that hosts
// one run at a time, as above, takes each run's isolate from its shelf and disposes of it).
describe('a runner whose isolates serve run after run', () => {
  let reusing: RunnerPool;
  before(async () => {
    reusing = new RunnerPool({ size: 1, memoryMb: DEFAULT_LIMITS.memoryMb, runsPerRunner: 8 });
    await reusing.start();
  });
  after(async () => {
    await reusing.stop();
  });

  test("earlier runs' garbage collected during a run does not shrink its memory_peak", async () => {
    // The first program leaves about 17 MiB of garbage in its isolate (which keeps it: under
    // the retirement share); the next one, given that isolate, holds 40 MiB, which fits under
    // the isolate's heap limit (53 MiB for 50 MB) only once that garbage is collected.
    // Collected during the run rather than before it, it would come off the run's own growth
    // (memory_peak about 24 MiB). The 40 MiB stay reachable (a global) until the run's last
    // sample of its memory. A few rounds: the next run may find another isolate ready.
    const leaver = 'export function main() { const junk: number[][] = []; for (let i = 0; i < 16 * 1024; i++) junk.push(new Array(128).fill(i)); return junk.length; }';
    const holder = 'export function main() { const keep: number[][] = []; for (let i = 0; i < 80; i++) keep.push(new Array(64 * 1024).fill(i)); (globalThis as any).kept = keep; return keep.length; }';
    for (let round = 0; round < 3; round++) {
      const left = await runProgram(reusing, leaver);
      assert.equal(left.result, String(16 * 1024));
      const outcome = await runProgram(reusing, holder);
      assert.equal(outcome.error, null, outcome.error?.message);
      assert.ok(outcome.memoryPeak >= 40 * MB, `round ${round}: peak ${outcome.memoryPeak}`);
    }
  });
});

describe('array buffers count against max_execution_memory', () => {
  test('a 64 MB Uint8Array under 50 MB ends memory_exhausted, even inside try/catch', async () => {
    const outcome = await runProgram(pool, 'export function main() { try { const a = new Uint8Array(64 * 1024 * 1024); return a.length; } catch (e) { return "caught " + e; } }');
    assert.equal(outcome.outcome, 'memory_exhausted', JSON.stringify(outcome.result ?? outcome.error));
    assert.equal(outcome.error?.kind, 'memory_exhausted');
    assert.match(outcome.error!.message, /^memory exhausted/);
    await assertHealthy(pool);
  });

  test('an uncaught oversized ArrayBuffer ends memory_exhausted too', async () => {
    const outcome = await runProgram(pool, 'export async function main() { await null; return new ArrayBuffer(128 * 1024 * 1024).byteLength; }');
    assert.equal(outcome.outcome, 'memory_exhausted');
  });

  test('buffers that together pass the limit end memory_exhausted', async () => {
    const outcome = await runProgram(pool, 'export function main() { const keep = []; try { for (let i = 0; i < 8; i++) keep.push(new Uint8Array(16 * 1024 * 1024).fill(1)); } catch { return "caught"; } return keep.length; }');
    assert.equal(outcome.outcome, 'memory_exhausted', JSON.stringify(outcome.result ?? outcome.error));
  });

  test('a 32 MB buffer works under 50 MB and shows in memory_peak', async () => {
    const outcome = await runProgram(pool, 'export function main() { const a = new Uint8Array(32 * 1024 * 1024); a.fill(7); let s = 0; for (let i = 0; i < a.length; i += 4096) s += a[i]; return s; }');
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.equal(outcome.result, String(7 * 8192));
    assert.ok(outcome.memoryPeak >= 32 * MB, `peak ${outcome.memoryPeak}`);
  });
});
