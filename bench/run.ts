// `npm run bench`: measures the server's latency, throughput and overheads the README's
// benchmark section reports, and prints a table.
//  (a) hello-world POST /v1/execute latency over loopback with keep-alive: sequential p50/p99,
//      and throughput with 16 concurrent clients;
//  (b) CPU-bound workloads instrumented (our compile pipeline) vs the same code uninstrumented
//      in a bare isolate, as a ratio;
//  (c) server RSS idle and under load;
//  (d) the same hello world when the greeting comes from a Package (frozen built-ins, attribution);
//  (e) runs that wait: many at once, a program's fan-out, memory per parked run, the first burst
//      after a start on fresh servers (median) (bench/waits.ts).
//  (f) new programs with `typecheck: off` (the `fresh` rows are type-checked, the default), and
//      the checker alone (bench/typecheck.ts): cold first check, new and repeated programs, memory.
//  (g) latencies the tests check only by outcome (limits, refusals, shutdown): bench/latencies.ts.
//  (h) CPU fairness: one token's brief run while another runs runaway loops (bench/fairness.ts).
//  (i) a server start: CPU, idle memory, stop, the first typed run after it (bench/server-start.ts).
//  (j) only with BENCH_ONLY=soak: RSS of the server and each runner over 20,000 new programs (bench/soak.ts).
// Numbers are printed, never asserted: speed is measured, not tested.
import { measureReplays } from './replays';
import { executeClient } from './lean-client';
import ivm from 'isolated-vm';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../test/harness';
import { runSvc } from '../test/support/cli';
import { measureInstrumentation } from './instrumentation';
import { cpuOf, esbuildBetween, journalEnv, mainThreadCpuOf, rssOf } from './proc';
import { measureColdBursts, measureMcpFanOut, measureParkedCpu, measureWaits } from './waits';
import { measureTypecheck } from './typecheck';
import { measureLatencies } from './latencies';
import { measureFairness } from './fairness';
import { measureLargeResults, measureTenancy } from './tenancy';
import { measureApprovals } from './approvals';
import { measureServerStart, quiet } from './server-start';
import { measureSoak } from './soak';

const SEQUENTIAL_RUNS = Number(process.env.BENCH_SEQUENTIAL ?? 500);
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT ?? 2000);
const CONCURRENCY = 16;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

let programCounter = 0;
type Variant = 'same' | 'same-off' | 'fresh' | 'fresh-off' | 'package';

/** A hello-world program; `fresh`: a different source each call (no compile-cache hit); `package`: the greeting comes from a Package. */
function helloBody(variant: Variant): string {
  if (variant === 'package') return JSON.stringify({ blueprint: 'bench-package', code: 'import { hello } from "@bench/hello";\nexport function main() { return hello(); }' });
  const code = variant !== 'same' && variant !== 'same-off' ? `export function main() { const n = ${programCounter++}; return n >= 0 ? "hello" : "x"; }` : 'export function main() { return "hello"; }';
  return JSON.stringify({ blueprint: variant === 'fresh-off' || variant === 'same-off' ? 'bench-off' : 'bench', code });
}

const LABELS: Record<Variant, string> = { same: 'same program', 'same-off': 'same program, typecheck: off', fresh: 'new program each request', 'fresh-off': 'new program each request, typecheck: off', package: 'program importing a Package' };

interface Measured {
  rows: Record<string, string>;
  p50: number;
  runsPerSecond: number;
  /** The floor's p50 measured just before this variant's sequential runs (ms). */
  floor: number;
}

async function executeLatency(server: TestServer, variant: Variant, round = 1): Promise<Measured> {
  const label = round > 1 ? `${LABELS[variant]} (#${round})` : LABELS[variant];
  const client = executeClient(server.url, server.userToken, CONCURRENCY);
  const once = async () => {
    const body = helloBody(variant);
    const started = process.hrtime.bigint();
    const json = await client.run(body);
    if (json.result !== 'hello') throw new Error(`unexpected result ${JSON.stringify(json)}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (let i = 0; i < 50; i++) await once(); // warm-up
  const idleRss = rssOf(server.child.pid!);

  const floor = await floorP50();
  const sequential: number[] = [];
  const cpuBefore = cpuOf(server.child.pid!);
  const mainBefore = mainThreadCpuOf(server.child.pid!);
  const clientBefore = process.cpuUsage();
  for (let i = 0; i < SEQUENTIAL_RUNS; i++) sequential.push(await once());
  const clientSequential = process.cpuUsage(clientBefore);
  const cpuAfter = cpuOf(server.child.pid!);
  const mainAfter = mainThreadCpuOf(server.child.pid!);
  const serverMainPerRun = (mainAfter.server - mainBefore.server) / SEQUENTIAL_RUNS;
  const runnersMainPerRun = (mainAfter.runners - mainBefore.runners) / SEQUENTIAL_RUNS;
  const serverPerRun = (cpuAfter.server - cpuBefore.server) / SEQUENTIAL_RUNS;
  const childrenPerRun = (cpuAfter.children - cpuBefore.children) / SEQUENTIAL_RUNS;
  const esbuildPerRun = esbuildBetween(cpuBefore, cpuAfter) / SEQUENTIAL_RUNS;
  const cpuPerRun = serverPerRun + childrenPerRun;
  sequential.sort((a, b) => a - b);

  let next = 0;
  let peakRss = idleRss;
  const started = Date.now();
  const clientConcurrentBefore = process.cpuUsage();
  const concurrent: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CONCURRENT_RUNS) {
        next++;
        concurrent.push(await once());
        if (next % 200 === 0) peakRss = Math.max(peakRss, rssOf(server.child.pid!));
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const clientConcurrent = process.cpuUsage(clientConcurrentBefore);
  concurrent.sort((a, b) => a - b);
  await client.close();
  const rows = {
    [`${label}: p50 / p99 sequential (ms)`]: `${percentile(sequential, 50).toFixed(2)} / ${percentile(sequential, 99).toFixed(2)}`,
    [`${label}: runs/s, ${CONCURRENCY} clients`]: (CONCURRENT_RUNS / seconds).toFixed(0),
    [`${label}: p50 / p99, ${CONCURRENCY} clients (ms)`]: `${percentile(concurrent, 50).toFixed(2)} / ${percentile(concurrent, 99).toFixed(2)}`,
    // CPU per run is what a shared machine distorts least: it bounds runs/s per core.
    [`${label}: server + runner CPU per run, sequential (ms)`]: `${cpuPerRun.toFixed(2)} (server ${serverPerRun.toFixed(2)}, runners ${(childrenPerRun - esbuildPerRun).toFixed(2)}, esbuild ${esbuildPerRun.toFixed(2)}; ${(1000 / cpuPerRun).toFixed(0)} runs/s per core)`,
    // Where that CPU goes by thread: the event loops, and the rest (the server's compile, check and host workers and V8's helpers; the runners' isolate threads and V8's helpers; esbuild's service, a child of the compile thread).
    [`${label}: CPU per run by thread, sequential (ms)`]: `server main ${serverMainPerRun.toFixed(2)}, other ${(serverPerRun - serverMainPerRun).toFixed(2)}; runners main ${runnersMainPerRun.toFixed(2)}, other ${(childrenPerRun - esbuildPerRun - runnersMainPerRun).toFixed(2)}; esbuild ${esbuildPerRun.toFixed(2)}`,
    // The load generator shares the machine's cores with the server: its own CPU per run says how much of them it took.
    [`${label}: bench client CPU per run, sequential / ${CONCURRENCY} clients (ms)`]: `${clientMsPerRun(clientSequential, SEQUENTIAL_RUNS)} / ${clientMsPerRun(clientConcurrent, CONCURRENT_RUNS)}`,
    [`${label}: server RSS idle / under load, incl. runners (MiB)`]: `${(idleRss / 1048576).toFixed(1)} / ${(peakRss / 1048576).toFixed(1)}`,
  };
  return { rows, p50: percentile(sequential, 50), runsPerSecond: CONCURRENT_RUNS / seconds, floor };
}

/** This process's CPU (user + system) per run, ms, from a process.cpuUsage difference. */
function clientMsPerRun(usage: NodeJS.CpuUsage, runs: number): string {
  return ((usage.user + usage.system) / 1000 / runs).toFixed(2);
}

// BENCH_ONLY=http, waits (mcp-fan, parked and cold-bursts: parts of it), cpu, typecheck, latencies, fairness, tenancy, approvals, start, replays or soak runs one part.
const ONLY = process.env.BENCH_ONLY ?? '';

async function main(): Promise<void> {
  const rows: Record<string, string> = {};
  if (ONLY === '' || ONLY === 'http') await httpRows(rows);
  if (ONLY === '' || ONLY === 'waits') Object.assign(rows, await measureWaits());
  if (ONLY === '' || ONLY === 'waits' || ONLY === 'mcp-fan') Object.assign(rows, await measureMcpFanOut());
  if (ONLY === '' || ONLY === 'waits' || ONLY === 'parked') Object.assign(rows, await measureParkedCpu());
  if (ONLY === '' || ONLY === 'waits' || ONLY === 'cold-bursts') Object.assign(rows, await measureColdBursts());
  if (ONLY === '' || ONLY === 'cpu') Object.assign(rows, await measureInstrumentation());
  if (ONLY === '' || ONLY === 'typecheck') Object.assign(rows, await measureTypecheck());
  if (ONLY === '' || ONLY === 'latencies') Object.assign(rows, await measureLatencies());
  if (ONLY === '' || ONLY === 'fairness') Object.assign(rows, await measureFairness());
  if (ONLY === '' || ONLY === 'tenancy') Object.assign(rows, await measureTenancy(), await measureLargeResults());
  if (ONLY === '' || ONLY === 'approvals') Object.assign(rows, await measureApprovals());
  if (ONLY === '' || ONLY === 'start') Object.assign(rows, await measureServerStart());
  if (ONLY === '' || ONLY === 'replays') Object.assign(rows, await measureReplays());
  // The soak is long (20,000 programs twice): only on request.
  if (ONLY === 'soak') Object.assign(rows, await measureSoak());
  const width = Math.max(...Object.keys(rows).map((k) => k.length));
  console.log(`\n${'measurement'.padEnd(width)}  value`);
  console.log(`${'-'.repeat(width)}  -----`);
  for (const [name, value] of Object.entries(rows)) console.log(`${name.padEnd(width)}  ${value}`);
}

/**
 * The engine's floor, measured in this process on this machine just before each variant:
 * a fresh context on a warm isolate running the same hello world (no prelude, no server).
 * p50 of 200 (ms).
 */
let floorIsolate: ivm.Isolate | null = null;
async function floorP50(): Promise<number> {
  floorIsolate ??= new ivm.Isolate({ memoryLimit: 64 });
  const script = await floorIsolate.compileScript('(function main() { return "hello"; })()');
  const times: number[] = [];
  for (let i = 0; i < 220; i++) {
    const started = process.hrtime.bigint();
    const context = await floorIsolate.createContext();
    const result = await script.run(context);
    context.release();
    if (result !== 'hello') throw new Error('the floor did not answer hello');
    if (i >= 20) times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  script.release();
  return percentile(times.sort((a, b) => a - b), 50);
}

/** Issue 39's rows: each against the floor measured beside it. */
function issueRows(measured: Partial<Record<Variant, Measured>>): Record<string, string> {
  const rows: Record<string, string> = {};
  const times = (m: Measured) => `${m.p50.toFixed(2)} ms = ${(m.p50 / m.floor).toFixed(1)}x floor ${m.floor.toFixed(2)}`;
  const { same, 'same-off': sameOff, fresh, 'fresh-off': freshOff } = measured;
  if (sameOff && same) {
    rows['issue 39: same program p50, typecheck off / on'] = `${times(sameOff)} / ${times(same)}`;
    rows['issue 39: same program runs/s, 16 clients, off / on'] = `${sameOff.runsPerSecond.toFixed(0)} / ${same.runsPerSecond.toFixed(0)}`;
  }
  if (fresh) rows['issue 39: new program p50, checked'] = times(fresh);
  if (fresh && freshOff) rows['issue 39: new program runs/s, 16 clients, checked / off'] = `${fresh.runsPerSecond.toFixed(0)} / ${freshOff.runsPerSecond.toFixed(0)}`;
  rows['issue 39: first run after a start / after a Blueprint is applied'] = 'BENCH_ONLY=start (first typed run rows)';
  return rows;
}

/** A home whose CLI store holds `@bench/hello` (the server reads it as its fallback store). */
async function homeWithPackage(): Promise<string> {
  const home = tempDir('svc-bench-');
  const project = tempDir('svc-bench-pkg-');
  const files: Record<string, string> = {
    'svc.toml': '[[package]]\nname = "@bench/hello"\nversion = "0.1.0"\ndescription = "Greets"\n',
    'docs/readme.md': '# hello\n',
    'src/lib.ts': '/**\n * Greets.\n * @returns The greeting.\n */\nexport function hello(): string {\n  return "hello";\n}\n',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    fs.writeFileSync(path.join(project, file), text);
  }
  const published = await runSvc(['build', 'publish-local'], { cwd: project, env: { SVC_HOME: home } });
  if (published.code !== 0) throw new Error(`could not publish the bench Package: ${published.stderr}`);
  return home;
}

async function httpRows(rows: Record<string, string>): Promise<void> {
  // BENCH_PROFILE=<dir>: the server and its runners write V8 CPU profiles there (bench/profile.ts reads them).
  const profile = process.env.BENCH_PROFILE
    ? { NODE_OPTIONS: `--require ${path.join(import.meta.dirname, 'cpu-profile-hook.cjs')}`, SVC_BENCH_PROFILE_DIR: path.resolve(process.env.BENCH_PROFILE) }
    : process.env.BENCH_PERF === '1'
      ? { NODE_OPTIONS: '--perf-basic-prof --interpreted-frames-native-stack' } // the server's perf map, for `perf record -p <server pid>`
      : {};
  if (process.env.BENCH_PROFILE) fs.mkdirSync(path.resolve(process.env.BENCH_PROFILE), { recursive: true });
  const server = await startServer({ runners: 'server-default', home: await homeWithPackage(), env: { RUST_LOG: 'warn,svc_server::serve=info', ...profile, ...journalEnv() }, config: { logging: { audit: { enabled: process.env.BENCH_AUDIT === '1' } } } });
  try {
    for (const yaml of ['name: bench\ndefault: deny\n', 'name: bench-off\ndefault: deny\ntypecheck: off\n', 'name: bench-package\ndefault: deny\npackages: ["@bench/hello"]\n']) {
      const created = await server.request('POST', '/v1/blueprints', { body: { yaml } });
      if (created.status >= 300) throw new Error(`could not register a bench Blueprint: ${created.text}`);
    }
    // What the server readies at start and for each Blueprint (checker, compile workers) is done before measuring.
    await quiet(server);
    // BENCH_VARIANTS=same,fresh,package picks the rows (all by default); a variant named again
    // is measured again on the same server (`same-off,same,same-off,same`: alternated, and the
    // first one measured is not the only one paying the server's warm-up).
    const variants = (process.env.BENCH_VARIANTS ?? 'same-off,same,fresh,fresh-off,package').split(',') as Variant[];
    const measured: Partial<Record<Variant, Measured>> = {};
    const rounds = new Map<Variant, number>();
    for (const variant of variants) {
      rounds.set(variant, (rounds.get(variant) ?? 0) + 1);
      measured[variant] = await executeLatency(server, variant, rounds.get(variant));
      Object.assign(rows, measured[variant]!.rows);
    }
    Object.assign(rows, issueRows(measured));
  } finally {
    await server.stop();
  }
}

await main();
