// What one server start costs (BENCH_ONLY=start): the CPU of the server and its runners
// from spawn to the listening line and until they are quiet, the idle resident memory, the
// time from SIGTERM to exit, and the latency of the first typed run after a start, on a new
// home (no code cache for the type checker yet) and on the same home again (with one), and
// after a Blueprint is applied.
// And, split by where the CPU went (the server's main thread, its other threads: checker,
// compile and host workers and V8's compiler threads; its runners), a test-like server's
// start, first unchecked run and first checked run, with V8's optimising compiler on and off
// (SVC_OPTIMIZING_COMPILER), in pairs.
// And (BENCH_START_PART=life) a test-like server's whole life, start to exit, phase by phase,
// with the runner's shelf floor at its default and at the suite's 0.
// Medians of BENCH_START_RUNS (5). The test suite starts well over a hundred servers.
import fs from 'node:fs';
import { startServer, tempDir, type TestServer } from '../test/harness';
import { childPids, cpuOf, cpuOfProcess, rssOf } from './proc';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const treeCpu = (server: TestServer) => {
  const { server: own, children } = cpuOf(server.child.pid!);
  return own + children;
};

/** Resolves once the server and its runners used under 10 ms of CPU in 250 ms (warm-ups done). */
export async function quiet(server: TestServer): Promise<void> {
  let last = treeCpu(server);
  for (let waited = 0; waited < 15_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = treeCpu(server);
    if (now - last < 10) return;
    last = now;
  }
}

async function startCosts(rows: Record<string, string>, runners: number): Promise<void> {
  const atListening: number[] = [];
  const settled: number[] = [];
  const rss: number[] = [];
  const stops: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const server = await startServer({ runners, env: { SVC_TYPECHECK_WARM_AFTER: undefined } });
    starts.push(performance.now() - started);
    atListening.push(treeCpu(server));
    await quiet(server);
    settled.push(treeCpu(server));
    rss.push(rssOf(server.child.pid!) / 1048576);
    const stopping = performance.now();
    await server.stop();
    stops.push(performance.now() - stopping);
  }
  const label = `${runners} runner${runners === 1 ? '' : 's'}${runners === 2 ? ', the default' : ''}`;
  rows[`server start (${label}): CPU to listening / until quiet, server + runners (ms)`] = `${median(atListening).toFixed(0)} / ${median(settled).toFixed(0)}`;
  rows[`server start (${label}): spawn to listening / SIGTERM to exit, wall (ms)`] = `${median(starts).toFixed(0)} / ${median(stops).toFixed(0)}`;
  rows[`server start (${label}): idle RSS, server + runners (MiB)`] = median(rss).toFixed(0);
}

const FIRST_PROGRAM = 'export function main(): string { const n: number = 1; return n > 0 ? "hello" : "x"; }';

/** Checks that waited for a cold checker so far (svc_typecheck_cold_checks): 0 when warming left the first run nothing to wait for. */
async function coldChecks(server: TestServer): Promise<number> {
  const match = /^svc_typecheck_cold_checks (\d+)/m.exec((await server.request('GET', '/metrics')).text);
  return match ? Number(match[1]) : NaN;
}

/** One typed run under `blueprint`: its latency and the CPU the server and runners spent on it until quiet. */
async function timedRun(server: TestServer, blueprint: string): Promise<[number, number]> {
  const before = treeCpu(server);
  const started = performance.now();
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code: FIRST_PROGRAM } });
  const latency = performance.now() - started;
  if (reply.json?.result !== 'hello') throw new Error(`unexpected answer ${reply.text}`);
  await quiet(server);
  return [latency, treeCpu(server) - before];
}

/**
 * The first typed run after a start, on a new home and on the same home restarted, and the
 * first run under a Blueprint applied to a running server (a new checker mode, so a new
 * warm checker), each once the server is quiet: what warming at start and at a Blueprint's
 * application leaves the first program. `typecheck_warm_after` is the default (at once),
 * not the test harness's 10 s.
 */
async function firstRuns(rows: Record<string, string>): Promise<void> {
  const kinds = ['after a start, new home', 'after a start, same home again', 'after a Blueprint is applied'] as const;
  const latencies: Record<(typeof kinds)[number], number[]> = { 'after a start, new home': [], 'after a start, same home again': [], 'after a Blueprint is applied': [] };
  const cpu: Record<(typeof kinds)[number], number[]> = { 'after a start, new home': [], 'after a start, same home again': [], 'after a Blueprint is applied': [] };
  let cold = 0;
  for (let i = 0; i < RUNS; i++) {
    const home = tempDir('svc-bench-start-');
    for (const which of ['after a start, new home', 'after a start, same home again'] as const) {
      // The cache in the home (its default place), not the harness's shared one.
      const server = await startServer({ home, env: { SVC_CODE_CACHE_DIR: undefined, SVC_TYPECHECK_WARM_AFTER: undefined } });
      try {
        if (which === 'after a start, new home') await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: bench\ndefault: deny\n' } });
        await quiet(server);
        const [latency, used] = await timedRun(server, 'bench');
        latencies[which].push(latency);
        cpu[which].push(used);
        if (which === 'after a start, same home again') {
          const applied = await server.request('POST', '/v1/blueprints', { body: { yaml: `name: bench-strict-${i}\ndefault: deny\ntypecheck: strict\n` } });
          if (applied.status >= 300) throw new Error(`could not apply a Blueprint: ${applied.text}`);
          await quiet(server);
          const [afterApply, usedAfterApply] = await timedRun(server, `bench-strict-${i}`);
          latencies['after a Blueprint is applied'].push(afterApply);
          cpu['after a Blueprint is applied'].push(usedAfterApply);
        }
        cold += await coldChecks(server);
      } finally {
        await server.stop();
      }
    }
  }
  for (const which of kinds) {
    rows[`first typed run ${which}: latency / server + runner CPU (ms)`] = `${median(latencies[which]).toFixed(0)} / ${median(cpu[which]).toFixed(0)}`;
  }
  rows['first typed runs that waited for a cold checker (svc_typecheck_cold_checks), all servers'] = String(cold);
}

interface CpuSplit {
  serverMain: number;
  serverThreads: number;
  runners: number;
}

/** CPU (ms) of the server's main thread, of its other threads, and of its child processes (runners, esbuild's service, with their threads). */
function cpuSplit(server: TestServer): CpuSplit {
  const pid = server.child.pid!;
  const serverMain = cpuOfProcess(pid, pid);
  let serverThreads = 0;
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`).map(Number)) if (tid !== pid) serverThreads += cpuOfProcess(pid, tid);
  } catch {
    // The server ended: nothing more to count.
  }
  return { serverMain, serverThreads, runners: childPids(pid).reduce((sum, child) => sum + cpuOfProcess(child), 0) };
}

const minus = (after: CpuSplit, before: CpuSplit): CpuSplit => ({ serverMain: after.serverMain - before.serverMain, serverThreads: after.serverThreads - before.serverThreads, runners: after.runners - before.runners });
const splitText = (splits: CpuSplit[]) => `${median(splits.map((s) => s.serverMain)).toFixed(0)} / ${median(splits.map((s) => s.serverThreads)).toFixed(0)} / ${median(splits.map((s) => s.runners)).toFixed(0)}`;

/**
 * A test-like server (the harness's settings: warming waits, one runner): its start to
 * listening, its first unchecked run and its first checked run, each split by where the CPU
 * went; with the optimising compiler on and off, one of each per round.
 */
async function startSplit(rows: Record<string, string>): Promise<void> {
  const modes = ['on', 'off'] as const;
  const phases = ['start to listening', 'first unchecked run', 'first checked run'] as const;
  const splits = Object.fromEntries(modes.map((mode) => [mode, Object.fromEntries(phases.map((phase) => [phase, [] as CpuSplit[]]))])) as Record<(typeof modes)[number], Record<(typeof phases)[number], CpuSplit[]>>;
  const zero: CpuSplit = { serverMain: 0, serverThreads: 0, runners: 0 };
  for (let i = 0; i < RUNS; i++) {
    for (const mode of modes) {
      const server = await startServer({ env: { SVC_OPTIMIZING_COMPILER: mode } });
      try {
        splits[mode]['start to listening'].push(minus(cpuSplit(server), zero));
        for (const yaml of ['name: unchecked\ndefault: deny\ntypecheck: off\n', 'name: checked\ndefault: deny\n']) await server.request('POST', '/v1/blueprints', { body: { yaml } });
        await quiet(server);
        for (const [phase, blueprint] of [['first unchecked run', 'unchecked'], ['first checked run', 'checked']] as const) {
          const before = cpuSplit(server);
          const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code: FIRST_PROGRAM } });
          if (reply.json?.result !== 'hello') throw new Error(`unexpected answer ${reply.text}`);
          await quiet(server);
          splits[mode][phase].push(minus(cpuSplit(server), before));
        }
      } finally {
        await server.stop();
      }
    }
  }
  for (const mode of modes) {
    for (const phase of phases) rows[`test-like server, optimising compiler ${mode}: ${phase}, CPU of server main / server threads / runners (ms)`] = splitText(splits[mode][phase]);
  }
}

/** Every thread of the server and of its child processes now, with its CPU (ms): what a stop is measured against. */
function threadCpu(server: TestServer): Map<string, { where: keyof CpuSplit; ms: number }> {
  const pid = server.child.pid!;
  const threads = new Map<string, { where: keyof CpuSplit; ms: number }>();
  for (const process of [pid, ...childPids(pid)]) {
    let tids: number[] = [];
    try {
      tids = fs.readdirSync(`/proc/${process}/task`).map(Number);
    } catch {
      continue; // ended meanwhile
    }
    const where = process !== pid ? 'runners' : null;
    for (const tid of tids) threads.set(`${process}/${tid}`, { where: where ?? (tid === pid ? 'serverMain' : 'serverThreads'), ms: cpuOfProcess(process, tid) });
  }
  return threads;
}

/**
 * SIGTERM to exit, split like the rest: each thread read until the server has exited (a
 * thread's last tick before it ends can be missed, so this is a floor).
 */
async function stopSplit(server: TestServer): Promise<CpuSplit> {
  const before = threadCpu(server);
  const last = new Map([...before].map(([key, value]) => [key, value.ms]));
  let exited = false;
  void server.stop().then(() => (exited = true));
  while (!exited) {
    for (const [key] of before) {
      const [process, tid] = key.split('/').map(Number);
      const ms = cpuOfProcess(process, tid);
      if (ms > 0) last.set(key, ms);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const split: CpuSplit = { serverMain: 0, serverThreads: 0, runners: 0 };
  for (const [key, { where, ms }] of before) split[where] += last.get(key)! - ms;
  return split;
}

/**
 * A test-like server's whole life, as the suite sees it (the test runner's settings: the
 * optimising compiler off, runners at the server's priority): start, a Blueprint, one
 * unchecked hello world, the runner's refill after it, stop; with `runner_shelf_floor` at
 * its default (32) and at the suite's 0, one of each per round. Not counted anywhere: the
 * sandbox probe's Node start (its CPU goes to no process this reads, nor to the server's
 * rusage: bubblewrap's pid namespace loses it), about 65-80 CPU-ms per start measured alone.
 */
async function lifeSplit(rows: Record<string, string>): Promise<void> {
  const floors = ['32', '0'] as const;
  const phases = ['start to listening', 'listening to quiet', 'Blueprint applied', 'first unchecked run, to its answer', 'after it until quiet (the refill)', 'SIGTERM to exit'] as const;
  const splits = Object.fromEntries(floors.map((floor) => [floor, Object.fromEntries(phases.map((phase) => [phase, [] as CpuSplit[]]))])) as Record<(typeof floors)[number], Record<(typeof phases)[number], CpuSplit[]>>;
  const zero: CpuSplit = { serverMain: 0, serverThreads: 0, runners: 0 };
  for (let i = 0; i < RUNS; i++) {
    for (const floor of floors) {
      const server = await startServer({ env: { SVC_OPTIMIZING_COMPILER: 'off', SVC_RUNNER_NICE: '0', SVC_RUNNER_SHELF_FLOOR: floor } });
      const at: CpuSplit[] = [cpuSplit(server)];
      try {
        await quiet(server);
        at.push(cpuSplit(server));
        await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: unchecked\ndefault: deny\ntypecheck: off\n' } });
        await quiet(server);
        at.push(cpuSplit(server));
        const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'unchecked', code: 'export function main() { return "hello"; }' } });
        if (reply.json?.result !== 'hello') throw new Error(`unexpected answer ${reply.text}`);
        at.push(cpuSplit(server));
        await quiet(server);
        at.push(cpuSplit(server));
      } finally {
        splits[floor]['SIGTERM to exit'].push(await stopSplit(server));
      }
      [zero, ...at].slice(0, -1).forEach((before, phase) => splits[floor][phases[phase]].push(minus(at[phase], before)));
    }
  }
  for (const floor of floors) {
    for (const phase of phases) rows[`test-like server's life, runner_shelf_floor ${floor}: ${phase}, CPU of server main / server threads / runners (ms)`] = splitText(splits[floor][phase]);
    const totals = splits[floor][phases[0]].map((_, i) => phases.reduce((sum, phase) => sum + splits[floor][phase][i].serverMain + splits[floor][phase][i].serverThreads + splits[floor][phase][i].runners, 0));
    rows[`test-like server's life, runner_shelf_floor ${floor}: whole life, all processes read (ms)`] = median(totals).toFixed(0);
  }
}

export async function measureServerStart(): Promise<Record<string, string>> {
  const rows: Record<string, string> = {};
  // BENCH_START_PART=first measures only the first runs; =split only the split by thread;
  // =life only a test-like server's whole life.
  if (process.env.BENCH_START_PART === 'split') {
    await startSplit(rows);
    return rows;
  }
  if (process.env.BENCH_START_PART === 'life') {
    await lifeSplit(rows);
    return rows;
  }
  if (process.env.BENCH_START_PART !== 'first') {
    await startCosts(rows, 2);
    await startCosts(rows, 1);
    await startSplit(rows);
  }
  await firstRuns(rows);
  return rows;
}
