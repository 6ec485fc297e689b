// `node --no-node-snapshot --import tsx bench/runner-profile.ts [runs] [same|fresh|burst]`: one
// runner process (dist/runner.js, the pool's own V8 flags) driven outside the pool by the
// pool's messages, hello world run after run, one at a time. Prints the runner's CPU per run
// (/proc, all its threads: load-insensitive, so two builds compare in one window).
// `burst`: a new runner's first run, then `runs` (at most 64) at once, as a server's first
// burst after a start: prints the runner's CPU from its first run until the burst has ended
// and its shelf has refilled (what new isolates cost, per run of the burst).
// With BENCH_RUNNER_PROFILE=<dir>, the runner also starts with `--cpu-prof` into <dir> and
// writes its V8 profile when this driver disconnects (summarise it with bench/profile.ts).
// BENCH_RUNNER_PERF=1 adds a perf map for `perf record -p <runner pid>` (it prints the pid).
// A runner the server starts cannot be profiled so: confinement allow-lists its environment
// (no NODE_OPTIONS) and its filesystem, and the server SIGKILLs it at shutdown.
// Run `npm run build` first: the runner is dist/runner.js (or BENCH_RUNNER_DIST's).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { compileProgram } from '../sandbox/compile';
import { runnerEnvironment } from '../sandbox/confine';
import { RUNNER_FLAGS } from '../sandbox/pool/runner-process';
import { PROGRAM_FILENAME } from '../sandbox/contract';
import type { FromRunner, RunMessage } from '../sandbox/runner/protocol';
import { runLimits } from '../src/execution/run-job';
import { limitDefaults } from '../src/config/schema';
import { cpuOfProcess, rssOf } from './proc';

const RUNS = Number(process.argv[2] ?? 2000);
const FRESH = process.argv[3] === 'fresh';
const BURST = process.argv[3] === 'burst';
// BENCH_RUNNER_PROGRAM=<file>: another program for `same` and `burst` (its main must return "hello"; no host calls).
const PROGRAM = process.env.BENCH_RUNNER_PROGRAM ? fs.readFileSync(process.env.BENCH_RUNNER_PROGRAM, 'utf8') : null;
// As many as a runner of a 2-core server is sent at once (runs in flight / runners): the shelf keeps isolates warm.
// BENCH_RUNNER_AT_ONCE=<n>: another `runs_per_runner` (1: the runner runs a program's first slice on its main thread).
const RUNS_AT_ONCE = Number(process.env.BENCH_RUNNER_AT_ONCE ?? 64);
// BENCH_RUNNER_SHELF_FLOOR=<n>: the runner's `runner_shelf_floor` (a server's default is 32; none here unless given).
const SHELF_FLOOR = process.env.BENCH_RUNNER_SHELF_FLOOR ? [process.env.BENCH_RUNNER_SHELF_FLOOR] : [];
const WARMUP = Math.min(200, Math.floor(RUNS / 5));
const profileDir = process.env.BENCH_RUNNER_PROFILE ? path.resolve(process.env.BENCH_RUNNER_PROFILE) : null;
if (profileDir) fs.mkdirSync(profileDir, { recursive: true });

// BENCH_RUNNER_DIST=<dir>: another build's dist/ (two builds alternated in one window).
const entry = path.join(process.env.BENCH_RUNNER_DIST ? path.resolve(process.env.BENCH_RUNNER_DIST) : path.join(import.meta.dirname, '..', 'dist'), 'runner.js');
const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=250'] : [];
// BENCH_RUNNER_PERF=1: the runner writes a perf map (/tmp/perf-<pid>.map) so `perf record -p` names the guest's and the runner's JavaScript.
if (process.env.BENCH_RUNNER_PERF === '1') profiling.push('--perf-basic-prof', '--interpreted-frames-native-stack');
// BENCH_RUNNER_FLAGS="--flag ...": V8 flags added to the runner's own (a flag tried before it goes into RUNNER_FLAGS);
// BENCH_RUNNER_STDOUT=1 shows the runner's stdout (where `--trace-gc` writes).
profiling.push(...(process.env.BENCH_RUNNER_FLAGS ?? '').split(' ').filter(Boolean));
const child = spawn(process.execPath, [...RUNNER_FLAGS, ...profiling, entry, String(limitDefaults.max_execution_memory), String(RUNS_AT_ONCE), ...SHELF_FLOOR], { env: runnerEnvironment(), serialization: 'advanced', stdio: ['ignore', process.env.BENCH_RUNNER_STDOUT === '1' ? 'inherit' : 'ignore', 'inherit', 'ipc'] });
if (process.env.BENCH_RUNNER_PERF === '1') console.log(`runner pid ${child.pid}`);

const waiting = new Map<number, (message: FromRunner & { type: 'done' }) => void>();
const ready = new Promise<void>((resolve) => {
  child.on('message', (message: FromRunner) => {
    if (message.type === 'ready') resolve();
    else if (message.type === 'done') waiting.get(message.runId)?.(message);
    else if (message.type === 'host-call' || message.type === 'catastrophic') throw new Error(`unexpected runner message: ${message.type}`);
  });
});

async function script(n: number) {
  const source = FRESH ? `export function main() { const n = ${n}; return n >= 0 ? "hello" : "x"; }` : (PROGRAM ?? 'export function main() { return "hello"; }');
  const compiled = await compileProgram({ source, availableModules: [] });
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.script;
}

const limits = runLimits(limitDefaults as Parameters<typeof runLimits>[0]);
const sentMaps = new Set<string>();
async function runOnce(runId: number): Promise<void> {
  const s = await script(runId);
  const message: RunMessage = {
    type: 'run', runId, code: s.code, filename: s.filename, hostModules: {}, guestModules: {}, limits, usesTemporal: s.usesTemporal, programKey: s.key,
    ...(sentMaps.has(s.key) ? {} : { sourceMap: s.sourceMap, source: s.sources[PROGRAM_FILENAME] ?? '' }),
  };
  sentMaps.add(s.key);
  const done = new Promise<FromRunner & { type: 'done' }>((resolve) => waiting.set(runId, resolve));
  child.send(message);
  const { outcome } = await done;
  waiting.delete(runId);
  if (outcome.kind !== 'ok' || outcome.result !== 'hello') throw new Error(`run ${runId}: ${JSON.stringify(outcome)}`);
}

await ready;
if (BURST) {
  const size = Math.min(RUNS, RUNS_AT_ONCE);
  const before = cpuOfProcess(child.pid!);
  await runOnce(0);
  await Promise.all(Array.from({ length: size }, (_, i) => runOnce(i + 1)));
  // The shelf refills after the burst, off its path: that CPU is the burst's too.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const cpu = cpuOfProcess(child.pid!) - before;
  console.log(`runner, first run then ${size} at once: ${cpu.toFixed(0)} ms CPU from the first run until the shelf refilled (${(cpu / (size + 1)).toFixed(2)} per run; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
  child.on('exit', () => process.exit(0));
  child.disconnect();
  await new Promise(() => {});
}
for (let i = 0; i < WARMUP; i++) await runOnce(i);
const cpuBefore = cpuOfProcess(child.pid!);
const mainBefore = cpuOfProcess(child.pid!, child.pid!);
const started = performance.now();
for (let i = WARMUP; i < RUNS; i++) await runOnce(i);
const cpu = cpuOfProcess(child.pid!) - cpuBefore;
const main = cpuOfProcess(child.pid!, child.pid!) - mainBefore;
const wall = performance.now() - started;
const measured = RUNS - WARMUP;
const rssMiB = rssOf(child.pid!) / 1024 / 1024;
console.log(`runner, ${FRESH ? 'new' : 'same'} program: ${(cpu / measured).toFixed(3)} ms CPU per run (main thread ${(main / measured).toFixed(3)}), ${(wall / measured).toFixed(3)} ms wall per run, RSS ${rssMiB.toFixed(0)} MiB at the end (${measured} runs after ${WARMUP}; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
child.on('exit', () => process.exit(0));
child.disconnect();
