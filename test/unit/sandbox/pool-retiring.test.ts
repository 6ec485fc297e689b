// A runner that reports it holds an isolate that cannot stop (`done` with `retiring`) is
// replaced: a retiring runner with no other runs used to be removed without a replacement,
// so a pool whose runners all retired queued every later run for ever.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileProgram, RunnerPool, type ProgramScript, type RunOutcome } from '../../../sandbox';

const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/runners/scripted-runner.mjs');
const limits = { memoryMb: 50, timeMs: 10_000, fuel: 1_000_000, stackKib: 512 };
const report = (result: string) => ({ kind: 'ok', result, failure: null, console: [], wasmFuel: 10, hostFuel: 0, memoryPeak: 1, wallMs: 1 });

let pool: RunnerPool;
let script: ProgramScript;
const restarts: string[] = [];

before(async () => {
  const compiled = await compileProgram({ source: 'export function main() {}\n', availableModules: [] });
  assert.ok(compiled.ok);
  script = compiled.script;
  pool = new RunnerPool({ size: 1, memoryMb: 50, runnerEntry: entry, execArgv: [], onRestart: (kind) => restarts.push(kind) });
  await pool.start();
});
after(async () => {
  await pool.stop();
});

function run(messages: unknown[]): Promise<RunOutcome> {
  return pool.run({ executionId: 'retiring', script: { ...script, code: JSON.stringify({ messages }) }, hostModules: {}, limits }, async () => ({ ok: true, value: null, fuel: 0 }));
}

test('a runner that retires with no other runs is replaced, and later runs are served', { timeout: 120_000 }, async () => {
  for (let round = 1; round <= 3; round++) {
    const retired = await run([{ type: 'done', runId: { $: 'runId' }, outcome: report(`retired ${round}`), retiring: true }]);
    assert.equal(retired.outcome, 'ok');
    assert.equal(retired.result, `retired ${round}`);
  }
  const after = await run([{ type: 'done', runId: { $: 'runId' }, outcome: report('served') }]);
  assert.equal(after.outcome, 'ok');
  assert.equal(after.result, 'served');
  assert.ok(restarts.length >= 3, `restarts: ${restarts.join(', ')}`);
});
