// The server survives any runner message: a scripted runner sends random and hostile
// reports, stacks and host-call messages; every run settles with a well-formed outcome,
// the pool keeps serving, and nothing throws in this (the server's) process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileProgram, RunnerPool, type HostHandler, type ProgramScript, type RunOutcome } from '../../../sandbox';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/runners/scripted-runner.mjs');
const limits = { memoryMb: 50, timeMs: 10_000, fuel: 1_000_000, stackKib: 512 };
const runId = { $: 'runId' };

let pool: RunnerPool;
let script: ProgramScript;
const logged: string[] = [];
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

before(async () => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const compiled = await compileProgram({ source: 'export function main() {\n  throw new Error("x");\n}\n', availableModules: [] });
  assert.ok(compiled.ok);
  script = compiled.script;
  // The scripted runner serialises 16 MB reports on its own thread, which stops its heartbeat
  // for as long as a loaded machine takes: no scenario here is about a silent runner.
  pool = new RunnerPool({ size: 2, memoryMb: 50, runnerEntry: entry, execArgv: [], heartbeatTimeoutMs: 600_000, onLog: (_level, msg) => logged.push(msg) });
  await pool.start();
});
after(async () => {
  await pool.stop();
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
});

let hostCalls = 0;
const host: HostHandler = async (call) => {
  hostCalls++;
  if (call.op === 'throw') throw new Error('host handler failed');
  if (call.op === 'bigint') return { ok: true, value: 10n, fuel: 1 };
  return { ok: true, value: call.args, fuel: Number.NaN };
};

/** `timeMs` ends scenarios that never report; one that does report gets a long one, so a slow machine's transfer is not a timeout. */
function runScenario(messages: unknown[], timeMs = 3_000): Promise<RunOutcome> {
  return pool.run({ executionId: 'fuzz', script: { ...script, code: JSON.stringify({ messages }) }, hostModules: {}, limits: { ...limits, timeMs } }, host);
}

function assertWellFormed(outcome: RunOutcome): void {
  assert.ok(['ok', 'error', 'fuel_exhausted', 'timeout', 'memory_exhausted', 'stack_exhausted', 'cancelled'].includes(outcome.outcome), outcome.outcome);
  assert.ok(outcome.result === null || typeof outcome.result === 'string');
  assert.ok(Array.isArray(outcome.console) && outcome.console.every((line) => typeof line === 'string'));
  for (const figure of [outcome.wasmFuel, outcome.hostFuel, outcome.memoryPeak, outcome.wallMs]) assert.ok(Number.isFinite(figure) && figure >= 0, String(figure));
  assert.ok(outcome.wasmFuel + outcome.hostFuel <= limits.fuel);
  if (outcome.error) assert.equal(typeof outcome.error.message, 'string');
}

const good = { kind: 'ok', result: 'fine', failure: null, console: [], wasmFuel: 10, hostFuel: 0, memoryPeak: 1, wallMs: 1 };

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STACKS = [
  'Error: x\n    at main (svc-program.js:1:0)',
  'Error: x\n    at main (svc-program.js:0:0)',
  'Error: x\n    at main (svc-program.js:-5:-1)',
  'Error: x\n    at main (svc-program.js:99999999:99999999)',
  'Error: x\n    at main (svc-program.js:NaN:1)',
  'at (svc-program.js:1:1)\n'.repeat(5000),
  '',
];

function hostile(next: () => number): unknown {
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const values: unknown[] = [null, { $: 'undefined' }, { $: 'nan' }, { $: 'inf' }, { $: 'bigint', v: '12' }, { $: 'map' }, { $: 'date' }, -1, 1e308, 'text', [], {}, [1, 'a', null], { toString: 'x' }, pick(STACKS)];
  const value = () => pick(values);
  const failure = () =>
    pick([null, value(), { name: value(), message: value(), stack: value(), trace: value() }, { name: 'Error', message: 'm', stack: pick(STACKS), trace: pick(STACKS), headline: value() }, { name: 'PermissionDeniedError', message: 'm', denied: { caller: value(), capability: 'fs.read', source: pick(['policy', 'nope', value()]) } }]);
  const outcome = () => ({
    kind: pick(['ok', 'error', 'crashed', 'fuel_exhausted', 'timeout', 'bogus', value()]),
    result: value(),
    failure: failure(),
    limitStack: pick([...STACKS, value()]),
    limitTrace: pick([...STACKS, value()]),
    console: pick([[], ['a', 'b'], [value(), 'x'], value()]),
    wasmFuel: value(),
    hostFuel: value(),
    memoryPeak: value(),
    wallMs: value(),
  });
  return pick([
    { type: 'done', runId, outcome: outcome() },
    { type: 'done', runId, outcome: value() },
    { type: 'done', runId, outcome: good, retiring: value() },
    { type: 'host-call', runId, callId: 1, module: 'svc:test', op: pick(['echo', 'throw', 'bigint']), args: pick(['[1]', '{"not":"a list"}', 'not json', value()]), fuelLeft: value() },
    { type: 'host-call', runId, callId: value(), module: value(), op: 'echo', args: '[]', fuelLeft: 1 },
    { type: value(), runId },
    value(),
    { type: 'catastrophic', message: value() },
    { type: 'heartbeat', extra: value() },
  ]);
}

test('a report with a stack the source map cannot place ends the run with its headline, and the pool keeps serving', async () => {
  for (const stack of STACKS) {
    const outcome = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'error', result: null, failure: { name: 'Error', message: 'x', stack } } }]);
    assertWellFormed(outcome);
    assert.equal(outcome.error?.kind, 'runtime_error');
    assert.match(outcome.error!.message, /^Error: x/);
  }
  assert.equal((await runScenario([{ type: 'done', runId, outcome: good }])).result, 'fine');
});

test('the server never reads a stack: only the trace the runner rendered, cut to 16 KiB', async () => {
  // A raw stack naming a real position of the program: the old server mapped it itself.
  const raw = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'error', result: null, failure: { name: 'Error', message: 'x', stack: 'Error: x\n    at main (svc-program.js:9:3)' } } }]);
  assert.equal(raw.error?.message, 'Error: x');
  const hostile = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'error', result: null, failure: { name: 'Error', message: 'x', stack: `at ${'a ('.repeat(400_000)}` } } }]);
  assert.equal(hostile.error?.message, 'Error: x');
  const traced = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'error', result: null, failure: { name: 'Error', message: 'x', trace: '    at main (program.ts:2:9)' } } }]);
  assert.equal(traced.error?.message, 'Error: x\n    at main (program.ts:2:9)');
  const long = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'error', result: null, failure: { name: 'Error', message: 'x', trace: 't'.repeat(1_000_000) } } }]);
  assert.ok(long.error!.message.length <= 'Error: x\n'.length + 16 * 1024 + 1, String(long.error!.message.length));
  const fuel = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'fuel_exhausted', result: null, limitStack: 'at main (svc-program.js:9:3)', limitTrace: '    at main (program.ts:2:9)' } }]);
  assert.match(fuel.error!.message, /^fuel exhausted: .*\n {4}at main \(program\.ts:2:9\)$/);
});

test('a non-string stack, a non-string result or forged fuel figures are refused or clamped', async () => {
  const stackObject = await runScenario([{ type: 'done', runId, outcome: { ...good, kind: 'error', result: null, failure: { name: 'Error', message: 'x', stack: { split: 1 } } } }]);
  assertWellFormed(stackObject);
  const objectResult = await runScenario([{ type: 'done', runId, outcome: { ...good, result: { forged: true } } }]);
  assertWellFormed(objectResult);
  assert.equal(objectResult.outcome, 'error');
  const fuel = await runScenario([{ type: 'done', runId, outcome: { ...good, wasmFuel: 1e30, hostFuel: -5 } }]);
  assertWellFormed(fuel);
  assert.equal(fuel.hostFuel, 0);
  assert.equal(fuel.wasmFuel, limits.fuel);
});

test('a report whose result or console is longer than the runner may send is refused: the run ends as an error', async () => {
  const hugeResult = await runScenario([{ type: 'done', runId, outcome: { ...good, result: 'r'.repeat(16 * 1024 * 1024 + 1) } }], 600_000);
  assertWellFormed(hugeResult);
  assert.deepEqual([hugeResult.outcome, hugeResult.result], ['error', null]);
  const hugeConsole = await runScenario([{ type: 'done', runId, outcome: { ...good, console: ['c'.repeat(600_000), 'c'.repeat(600_000)] } }], 600_000);
  assertWellFormed(hugeConsole);
  assert.deepEqual([hugeConsole.outcome, hugeConsole.console], ['error', []]);
  const withinBounds = await runScenario([{ type: 'done', runId, outcome: { ...good, console: ['c'.repeat(1024 * 1024)] } }], 600_000);
  assert.equal(withinBounds.outcome, 'ok');
});

test('40 random hostile scenarios: every run settles well-formed, nothing throws in the server, the pool still serves', async () => {
  const next = random(12);
  for (let i = 0; i < 40; i++) {
    const messages = [hostile(next), hostile(next), hostile(next), { type: 'done', runId, outcome: good }];
    const outcome = await runScenario(messages);
    assertWellFormed(outcome);
  }
  assert.deepEqual(uncaught, []);
  assert.ok(hostCalls > 0);
  // It reports, so a long limit: a runner the scenarios had the pool replace may still be
  // starting on a loaded machine (3 s once ended it as a timeout).
  const healthy = await runScenario([{ type: 'done', runId, outcome: good }], 600_000);
  assert.equal(healthy.result, 'fine', `${healthy.outcome}: ${healthy.error?.message ?? ''}`);
  assert.ok(logged.length > 0, 'failures are logged');
});
