// A program that imports nothing from the host is first run synchronously on the runner's
// own thread (no thread hop). When it turns out to need the host, to run longer than the
// slice or to overflow the stack, the attempt is discarded and the run starts again
// asynchronously: the host sees each call once, the console has each line once, and fuel
// and outcomes are the same as a run that never tried.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { HostHandler, RunnerPool } from '../../../sandbox';
import { assertHealthy, runProgram, startPool } from './runtime-harness';

let pool: RunnerPool;
before(async () => {
  pool = await startPool(1);
});
after(async () => {
  await pool.stop();
});

/** A host that answers every call with an error and counts the calls. */
function countingHost(): { host: HostHandler; calls: string[] } {
  const calls: string[] = [];
  const host: HostHandler = async (call) => {
    calls.push(`${call.module}.${call.op}`);
    return { ok: false, fuel: 16, error: { name: 'Error', message: 'upstream broke' } };
  };
  return { host, calls };
}

// `fetch` reached through a computed name: the runner cannot tell from the source.
const HIDDEN_FETCH = `
export async function main() {
  console.log("before the call");
  const name = ["fe", "tch"].join("");
  try {
    await (globalThis as any)[name]("https://example.test/x");
    return "answered";
  } catch (error) {
    return "failed: " + (error as Error).message;
  }
}`;

describe('synchronous first attempts', () => {
  test('a host call the source does not show restarts the run: the host sees it once, the console has each line once', async () => {
    const { host, calls } = countingHost();
    const outcome = await runProgram(pool, HIDDEN_FETCH, { host });
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.match(outcome.result ?? '', /^failed: fetch https:\/\/example\.test\/x failed: upstream broke$/);
    assert.equal(calls.length, 1, calls.join(', '));
    assert.deepEqual(outcome.console, ['before the call']);
  });

  test('a restarted run spends the same fuel every time', async () => {
    const first = await runProgram(pool, HIDDEN_FETCH, { host: countingHost().host });
    const second = await runProgram(pool, HIDDEN_FETCH, { host: countingHost().host });
    assert.equal(first.wasmFuel, second.wasmFuel);
    assert.ok(first.wasmFuel > 0);
  });

  test('a program that catches the restart and carries on still gets a real host call', async () => {
    const { host, calls } = countingHost();
    const source = `
      export function main() {
        const name = ["fe", "tch"].join("");
        let seen = "none";
        (globalThis as any)[name]("https://example.test/y").catch((e: Error) => { seen = e.message; });
        // Polls rather than awaiting the call (the program carries on); a fixed 5 ms wait
        // lost the race with the host's answer on a loaded machine.
        return new Promise((resolve) => { const check = () => (seen === "none" ? setTimeout(check, 1) : resolve(seen)); setTimeout(check, 1); });
      }`;
    const outcome = await runProgram(pool, source, { host });
    assert.equal(outcome.error, null, outcome.error?.message);
    assert.match(outcome.result ?? '', /failed: upstream broke$/);
    assert.equal(calls.length, 1);
  });

  test('a program running past the slice finishes, with the same result and fuel each time', async () => {
    const source = 'export function main() { let s = 0; for (let i = 0; i < 20000000; i++) s = (s + i) % 1000003; return s; }';
    const first = await runProgram(pool, source);
    const second = await runProgram(pool, source);
    assert.equal(first.error, null, first.error?.message);
    assert.equal(first.result, second.result);
    assert.equal(first.wasmFuel, second.wasmFuel);
    // Twenty million iterations are far past the runner's 3 ms slice on any machine; the
    // fuel shows the whole loop ran (a wall-clock check here would depend on the machine).
    assert.ok(first.wasmFuel > 20_000_000, `wasm fuel ${first.wasmFuel}`);
  });

  test('a stack overflow ends as stack_exhausted with the same fuel each time', async () => {
    const source = 'function down(n: number): number { return n === 0 ? 0 : 1 + down(n - 1); }\nexport function main() { return down(10000000); }';
    const first = await runProgram(pool, source);
    const second = await runProgram(pool, source);
    assert.equal(first.outcome, 'stack_exhausted');
    assert.equal(second.outcome, 'stack_exhausted');
    assert.equal(first.wasmFuel, second.wasmFuel);
    await assertHealthy(pool);
  });

  test('an endless loop still ends at the time limit', async () => {
    const outcome = await runProgram(pool, 'export function main() { for (;;) {} }', { limits: { timeMs: 300 } });
    assert.equal(outcome.outcome, 'timeout');
    await assertHealthy(pool);
  });
});
