// The one run path (Executor.execute, used by REST one-off, REST session and the MCP
// tool): it owns the cancellation signal. Seven hundred runs leave no listener of their own on
// the server-wide signal (the executor's one listener reaches every run) and the heap flat; an
// in-flight run is cancelled at shutdown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Executor } from '../../../src/execution';
import { parsePermissionPolicy } from '../../../src/policy';
import { hostModules } from '../../../src/stdlib';
import { RunnerPool } from '../../../sandbox';
import type { ServerLog } from '../../../src/audit';
import { eventually } from '../../support/wait';

const parsed = parsePermissionPolicy('allow', undefined);
if ('error' in parsed) throw new Error(parsed.error.message);
const blueprint = { name: 'bp', hash: 'h'.repeat(64), policy: parsed.policy };
const limits = { max_execution_memory: 50, max_execution_time: 0, max_execution_fuel: 1e12, max_execution_stack: 512 } as never;
const silent: ServerLog = { error() {}, warn() {}, info() {}, debug() {}, trace() {}, enabled: () => false } as unknown as ServerLog;

let pool: RunnerPool;
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.name);
before(async () => {
  process.on('warning', onWarning);
  pool = new RunnerPool({ size: 2, memoryMb: 50 });
  await pool.start();
});
after(async () => {
  process.off('warning', onWarning);
  await pool.stop();
});

function executor(shutdown: AbortSignal) {
  return new Executor({ pool, shutdown, modules: hostModules(), audit: { write() {} }, log: silent, limits, allows: 'none', newId: randomUUID });
}

function request(code: string) {
  return { entryPoint: 'mcp' as const, principal: 'p', sessionId: 's', blueprint, variables: {}, cwd: '/', code, fileArea: { mode: 'none' as const, cwd: '/' }, harnessSecrets: {} };
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test('1,200 runs leave no listener of their own on the shutdown signal and the heap flat', async () => {
  const shutdown = new AbortController();
  const run = executor(shutdown.signal);
  const batch = async (from: number, count: number) => {
    for (let i = from; i < from + count; i += 4) {
      // 64 distinct sources (the compile cache keeps them), each run its own job, dispatcher and decisions.
      const reports = await Promise.all([0, 1, 2, 3].map((k) => run.execute(request(`export function main() { return ${(i + k) % 64}; }`))));
      reports.forEach((report, k) => assert.equal(report.response.result, String((i + k) % 64)));
    }
  };
  // The first 64 fill the compile cache; 100 in, the heap holds what every later run reuses.
  await batch(0, 100);
  const before = heapUsed();
  await batch(100, 600);
  const grown = heapUsed() - before;
  // The executor's own listener, whatever the number of runs.
  assert.equal(getEventListeners(shutdown.signal, 'abort').length, 1);
  assert.deepEqual(warnings, []);
  // A listener left per run keeps its job, dispatcher and decisions (kilobytes each): megabytes here.
  assert.ok(grown < 1.2 * 1024 * 1024, `heap grew by ${grown} bytes over 600 runs`);
});

test('a run in flight is cancelled when the server cancels, whatever its entry point', async () => {
  const shutdown = new AbortController();
  const run = executor(shutdown.signal);
  const pending = run.execute(request('export function main() { for (;;) {} }'));
  // Cancelled once the loop holds a CPU slot: the run is on its runner, computing.
  await eventually('the loop to compute', () => pool.cpuSlots.computing > 0, { intervalMs: 10, attempts: 6000 });
  shutdown.abort();
  const report = await pending;
  assert.equal(report.response.error?.kind, 'cancelled');
  assert.equal(getEventListeners(shutdown.signal, 'abort').length, 0);
  const late = await run.execute(request('export function main() { return 1; }'));
  assert.equal(late.response.error?.kind, 'cancelled');
});
