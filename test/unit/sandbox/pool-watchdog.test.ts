// The watchdog tells a busy server from a stuck runner, and a lost runner's runs are judged
// one by one (issue 36): a stand-in runner (fixtures/runners/scripted-runner.mjs) sends
// what each test scripts (a run that hangs its thread, a catastrophic end, a host call)
// to the real RunnerPool in this process. No clocks are asserted: the stall below is this
// process's own, longer than the heartbeat timeout by construction.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileProgram, RunnerPool, type HostHandler, type ProgramScript, type RunOutcome } from '../../../sandbox';
import { tempDir } from '../../support/temp-dirs';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/runners/scripted-runner.mjs');
const limits = { memoryMb: 50, timeMs: 0, fuel: 1_000_000, stackKib: 512 };
const runId = { $: 'runId' };
const ok = (result: unknown) => ({ type: 'done', runId, outcome: { kind: 'ok', result, failure: null, console: [], wasmFuel: 1, hostFuel: 0, memoryPeak: 1, wallMs: 1 } });
const hostCall = { type: 'host-call', runId, callId: 1, module: 'svc:http', op: 'fetch', args: '[]', fuelLeft: 1 };

let script: ProgramScript;
const dir = tempDir('svc-pool-watchdog-');

before(async () => {
  const compiled = await compileProgram({ source: 'export function main() {}\n', availableModules: [] });
  assert.ok(compiled.ok);
  script = compiled.script;
});

interface Harness {
  pool: RunnerPool;
  restarts: string[];
  run(messages: unknown[], tenant?: string, host?: HostHandler): Promise<RunOutcome> & { settled: () => boolean };
}

async function harness(options: { runsPerRunner?: number; heartbeatTimeoutMs?: number } = {}): Promise<Harness> {
  const restarts: string[] = [];
  const pool = new RunnerPool({ size: 1, memoryMb: 50, runnerEntry: entry, execArgv: [], runsPerRunner: options.runsPerRunner ?? 8, heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? 1_000, onRestart: (kind) => restarts.push(kind) });
  await pool.start();
  const idle: HostHandler = () => new Promise(() => {});
  return {
    pool,
    restarts,
    run(messages, tenant = 'b', host = idle) {
      let done = false;
      const promise = pool.run({ executionId: 'watchdog', script: { ...script, code: JSON.stringify({ messages }) }, hostModules: {}, limits, tenant }, host).then((outcome) => {
        done = true;
        return outcome;
      });
      return Object.assign(promise, { settled: () => done });
    },
  };
}

/** Waits (yielding to the event loop) until `check` holds. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Blocks this process's event loop: the runners' heartbeats wait unread meanwhile. */
function stallFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('a busy server is not a stuck runner', () => {
  let h: Harness;
  before(async () => {
    h = await harness();
  });
  after(() => h.pool.stop());

  test('a server whose event loop is blocked past the heartbeat timeout replaces no runner, and the run in flight lives on', async () => {
    const waiting = h.run([]);
    // The run reached its runner: another run after it is answered by the same one.
    assert.equal((await h.run([ok('before')])).result, 'before');
    stallFor(2_500);
    // Two watchdog ticks after the stall, with the heartbeats read meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    assert.deepEqual(h.restarts, []);
    assert.equal(waiting.settled(), false);
    assert.equal((await h.run([ok('after')])).result, 'after');
  });
});

describe('a runner that goes down', () => {
  test('hung by one run: that run ends with the limit; a run that called the host is lost (one call); one that had not runs again; the tenant is quarantined', async () => {
    const h = await harness();
    try {
      const marker = path.join(dir, 'fresh-1');
      let calls = 0;
      const counting: HostHandler = () => {
        calls++;
        return new Promise(() => {});
      };
      const called = h.run([hostCall], 'b', counting);
      const fresh = h.run([{ $do: 'unlessFile', path: marker, then: [ok('ran again')] }], 'b');
      await until('the host call and the first attempt', () => calls === 1 && fs.existsSync(marker));
      const culprit = await h.run([{ type: 'slice', runId }, { $do: 'hang' }], 'a');
      assert.equal(culprit.outcome, 'memory_exhausted');
      const lost = await called;
      assert.equal(lost.outcome, 'error');
      assert.equal(lost.error?.kind, 'runtime_error');
      assert.match(lost.error?.message ?? '', /^lost to another run's crash: .*not a limit of this run/);
      assert.equal(lost.lost, true);
      assert.equal(calls, 1);
      const again = await fresh;
      assert.equal(again.outcome, 'ok');
      assert.equal(again.result, 'ran again');
      assert.equal(again.lost, undefined);
      assert.deepEqual(h.restarts, ['memory_exhausted']);

      // Quarantine: tenant a's next runs get a runner of their own; b's never go there.
      const pid = [ok({ $: 'pid' })];
      const [aPid, bPid] = [(await h.run(pid, 'a')).result, (await h.run(pid, 'b')).result];
      assert.notEqual(aPid, bPid);
      const together = await Promise.all([h.run(pid, 'b'), h.run(pid, 'a'), h.run(pid, 'b'), h.run(pid, 'a')]);
      assert.deepEqual(
        together.map((outcome) => outcome.result),
        [bPid, aPid, bPid, aPid],
      );
    } finally {
      await h.pool.stop();
    }
  });

  test('a run being cancelled whose runner then dies of something else ends cancelled, not lost to a crash', async () => {
    // A shutdown's deadline cancels a run computing on its runner; the runner going before it
    // confirms (here: killed) must not turn that into a crash of the run's own.
    const h = await harness();
    try {
      const pid = Number((await h.run([ok({ $: 'pid' })])).result);
      const controller = new AbortController();
      let calls = 0;
      const counting: HostHandler = () => {
        calls++;
        return new Promise(() => {});
      };
      const cancelled = h.pool.run({ executionId: 'cancelled', script: { ...script, code: JSON.stringify({ messages: [hostCall] }) }, hostModules: {}, limits, tenant: 'b', signal: controller.signal }, counting);
      await until('the host call', () => calls === 1);
      // The stand-in runner ignores the cancel; it dies long before the pool's cancel grace.
      controller.abort();
      process.kill(pid, 'SIGKILL');
      const outcome = await cancelled;
      assert.equal(outcome.outcome, 'cancelled', outcome.error?.message);
      assert.equal(outcome.error?.kind, 'cancelled');
      assert.equal(outcome.lost, undefined);
    } finally {
      await h.pool.stop();
    }
  });

  test('a catastrophic end blames its run; a run lost a second time before calling the host ends as lost, not run a third time', async () => {
    const h = await harness();
    try {
      const marker = path.join(dir, 'waits');
      const waiting = h.run([{ $do: 'unlessFile', path: marker, then: [] }], 'b');
      await until('the waiting run', () => fs.existsSync(marker));
      const culprit = await h.run([{ type: 'catastrophic', message: 'Catastrophic out-of-memory', runId }, { $do: 'exit', code: 70 }], 'a');
      assert.equal(culprit.outcome, 'memory_exhausted');
      // The waiting run runs again (it had not called the host) and waits again; an exit no run can be blamed for ends it.
      assert.equal(waiting.settled(), false);
      const unexplained = await h.run([{ $do: 'exit', code: 1 }], 'c');
      const lost = await waiting;
      assert.equal(lost.lost, true);
      assert.match(lost.error?.message ?? '', /^lost to a runner crash: /);
      // The exiting run itself could not be blamed either: it ran once more, then was lost.
      assert.equal(unexplained.lost, true);
    } finally {
      await h.pool.stop();
    }
  });
});
