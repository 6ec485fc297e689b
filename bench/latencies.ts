// Latencies the test suite used to assert with wall clocks and now only checks by outcome:
// how far past its limit a run ends, how soon a promise that can never settle is reported,
// how long an adversarial glob takes, how soon a second open of a held database fails, and
// how long the server takes to exit when idle and when a run outlives the grace; and how long
// console.log of huge values takes.
// Printed as rows of the `npm run bench` table (BENCH_ONLY=latencies for these alone).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globMatch } from '../src/policy';
import { closeDatabase, openDatabase } from '../src/store';
import { startServer } from '../test/harness';
import { RunnerPool } from '../sandbox';
import { runProgram, startPool } from '../test/unit/sandbox/runtime-harness';

const ms = (started: number) => `${(performance.now() - started).toFixed(0)} ms`;

async function runLimits(rows: Record<string, string>): Promise<void> {
  const pool = await startPool(1);
  try {
    for (const [label, code] of [
      ['sync loop', 'export function main() { for (;;) { try { for (;;) {} } catch { } } }'],
      ['async loop', 'export async function main() { for (;;) { await null; } }'],
    ] as const) {
      const started = performance.now();
      const outcome = await runProgram(pool, code, { limits: { timeMs: 1000 } });
      rows[`1 s time limit, ${label}: ends as ${outcome.outcome} after`] = ms(started);
    }
    const started = performance.now();
    const outcome = await runProgram(pool, 'export async function main() { await new Promise(() => {}); return "never"; }', { limits: { timeMs: 10_000 } });
    rows[`promise that never settles: ${outcome.error?.kind} after`] = ms(started);
  } finally {
    await pool.stop();
  }
}

/** console.log of huge values: formatting stops at the 1 MiB console bound (about 105 s for the array when the whole JSON was built first). */
async function consoleBounds(rows: Record<string, string>): Promise<void> {
  // The array alone is 80 MB: a pool whose runs may hold it.
  const pool = new RunnerPool({ size: 1, memoryMb: 256 });
  await pool.start();
  try {
    for (const [label, value] of [
      ['a 10-million-element array', 'new Array(10_000_000).fill(7)'],
      ['a 10-million-element Uint8Array', 'new Uint8Array(10_000_000)'],
      ['an object of 200,000 keys', 'Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => ["k" + i, i]))'],
    ] as const) {
      const code = `export function main() { const value = ${value}; const started = Date.now(); console.log(value); return Date.now() - started; }`;
      const outcome = await runProgram(pool, code, { limits: { memoryMb: 256 } });
      rows[`console.log of ${label}: formatting (ms, in the run)`] = outcome.error ? `${outcome.error.kind}: ${outcome.error.message.slice(0, 80)}` : String(outcome.result);
    }
  } finally {
    await pool.stop();
  }
}

function hostChecks(rows: Record<string, string>): void {
  let started = performance.now();
  globMatch(`${'*a'.repeat(200)}b`, 'a'.repeat(20_000));
  rows['adversarial glob (200 stars, 20,000 characters)'] = ms(started);

  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-db-')), 'svc.db');
  const held = openDatabase(file);
  started = performance.now();
  try {
    openDatabase(file);
  } catch {
    // Refused, as it must be: only the time to refuse matters here.
  }
  rows['second open of a held database refused after'] = ms(started);
  closeDatabase(held);
}

async function shutdowns(rows: Record<string, string>): Promise<void> {
  const idle = await startServer({ runners: 'server-default', args: ['--shutdown-grace', '60'] });
  let started = performance.now();
  await idle.stop('SIGINT');
  rows['idle server, SIGINT to exit (grace 60 s)'] = ms(started);

  const busy = await startServer({ runners: 'server-default', args: ['--shutdown-grace', '1'] });
  await busy.request('POST', '/v1/blueprints', { body: { yaml: 'name: forever\n' } });
  const running = busy.request('POST', '/v1/execute', { token: busy.userToken, body: { blueprint: 'forever', code: 'export function main() { for (;;) {} }' } });
  while (busy.audit({ type: 'execution', event: 'started' }).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  started = performance.now();
  busy.child.kill('SIGTERM');
  await running;
  await busy.exited();
  rows['run outliving a 1 s grace, SIGTERM to exit'] = ms(started);
}

export async function measureLatencies(): Promise<Record<string, string>> {
  const rows: Record<string, string> = {};
  await runLimits(rows);
  await consoleBounds(rows);
  hostChecks(rows);
  await shutdowns(rows);
  return rows;
}
