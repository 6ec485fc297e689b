// Memory over many new programs (`BENCH_ONLY=soak`): SOAK_PROGRAMS (20,000 by default) distinct
// hello-world programs through `POST /v1/execute`, once with `typecheck: off` and once checked,
// each on a fresh server. The RSS of the server and of each runner is sampled every tenth of the
// runs; the goal is that it levels off: growth from the end of the first quarter to the end
// under 32 MiB (issue 39). A sample can fall at the bottom or the top of a sawtooth (a heap
// between two full collections), so each process is also reported by its band: the lowest and
// highest sample over the last three quarters, and how far that band's top rose above the
// highest sample of the first quarter (bench/PROFILE.md, round 32). SOAK_MODES=off or checked
// runs one of the two. Each runner reports what its memory holds, part by part, on its stderr
// (sandbox/runner/memory-report.ts): the largest runner's parts are printed at the first
// quarter and at the end.
import { Agent, request } from 'undici';
import fs from 'node:fs';
import path from 'node:path';
import { startServer } from '../test/harness';
import { MEMORY_REPORT_VARIABLE } from '../sandbox/confine/environment';
import { MEMORY_REPORT_PREFIX } from '../sandbox/runner/memory-report';

const PROGRAMS = Number(process.env.SOAK_PROGRAMS ?? 20_000);
const CLIENTS = 8;
const SAMPLES = 10;

/** Resident MiB of one process and its descendants (a runner's confinement wrapper and the runner), 0 once it has ended. */
function residentMiB(pid: number, descendants = true): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return (match ? Number(match[1]) / 1024 : 0) + (descendants ? childrenOf(pid) : []).reduce((sum, child) => sum + residentMiB(child), 0);
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The server's runner processes (children whose command line names the runner). */
function runnerPids(server: number): number[] {
  try {
    return childrenOf(server).filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('runner');
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

/** The runner process itself beneath its confinement wrappers: the deepest descendant. */
function innermost(pid: number): number {
  const children = childrenOf(pid);
  return children.length === 0 ? pid : innermost(children[0]);
}

/**
 * Resident MiB of a process by kind of memory (/proc/<pid>/smaps): `brk`, glibc's main malloc
 * arena; `arenas`, glibc's thread arenas (64 MiB-aligned reservations of 64 MiB, rw then
 * reserved); `mmap`, every other anonymous mapping (V8's heaps, isolated-vm's isolates, large
 * allocations); `file`, code and data mapped from files.
 */
interface Kinds {
  brk: number;
  arenas: number;
  mmap: number;
  file: number;
}

const ARENA = 64 * 1048576;

function residentKinds(pid: number): Kinds {
  const kinds: Kinds = { brk: 0, arenas: 0, mmap: 0, file: 0 };
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return kinds;
  }
  const maps: Array<{ start: number; end: number; name: string; rss: number }> = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push({ start: parseInt(head[1], 16), end: parseInt(head[2], 16), name: head[3], rss: 0 });
    else if (line.startsWith('Rss:') && maps.length > 0) maps[maps.length - 1].rss = Number(line.split(/\s+/)[1]) / 1024;
  }
  for (let i = 0; i < maps.length; i++) {
    const map = maps[i];
    if (map.name === '[heap]') kinds.brk += map.rss;
    else if (map.name !== '') kinds.file += map.name.startsWith('/') ? map.rss : 0;
    else if (map.start % ARENA === 0) {
      // A thread arena: contiguous anonymous mappings from an aligned start that add up to 64 MiB.
      let end = map.end;
      let rss = map.rss;
      let j = i;
      while (end - map.start < ARENA && j + 1 < maps.length && maps[j + 1].start === end && maps[j + 1].name === '') {
        j++;
        end = maps[j].end;
        rss += maps[j].rss;
      }
      if (end - map.start === ARENA) {
        kinds.arenas += rss;
        i = j;
      } else kinds.mmap += map.rss;
    } else kinds.mmap += map.rss;
  }
  return kinds;
}

interface Sample {
  server: number;
  /** The server's V8 heap in use and its external memory (MiB), from /metrics: RSS that grows while these stay flat is native. */
  heap: number;
  external: number;
  /** The type-checker threads' V8 heap reserved (MiB, svc_typecheck_heap_bytes). */
  checkers: number;
  /** Compiled programs the server keeps (MiB, svc_compile_cache_bytes: its own estimate). */
  compileCache: number;
  /** Each kind of thread's V8 heap reserved (MiB, svc_thread_heap_bytes state total: main, checker, compile, host, ...). */
  threads: Record<string, number>;
  /** The RSS of each runner alive at the sample (a runner past runner_memory_recycle is replaced by a new one). */
  runners: number[];
  /** Their pids, in the same order (a runner's band is over the samples it was alive for). */
  runnerPids: number[];
  /** The largest runner's own report of its parts (its latest line before the sample), if it sent one. */
  runnerParts: RunnerParts | null;
  /** Runners replaced for their memory so far (svc_runner_restarts_total{reason="memory"}). */
  recycled: number;
  /** Times the compile threads were replaced so far (svc_compile_thread_recycles_total, compile_thread_recycle). */
  compileRecycles: number;
  /** Compiled programs the server keeps (svc_compile_cache_entries). */
  compileEntries: number;
  serverKinds: Kinds;
  runnerKinds: Kinds[];
}

/** One runner's report of its parts (sandbox/runner/memory-report.ts), MiB. */
interface RunnerParts {
  id: string;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  spaces: Record<string, number>;
  isolates: { idle: number; ready: number; busy: number; heap: { total: number; used: number; external: number; malloced: number } };
  scriptCache: { entries: number; mib: number; compiledOnce: number };
}

/** Each runner's latest report in the server's stderr (one line per runner every 2 s), largest first. */
function latestRunnerParts(stderr: string): RunnerParts[] {
  const latest = new Map<string, RunnerParts>();
  // The last 64 KiB hold several reports of each runner.
  for (const line of stderr.slice(-65536).split('\n')) {
    const at = line.indexOf(MEMORY_REPORT_PREFIX);
    if (at < 0) continue;
    try {
      const parts = JSON.parse(line.slice(at + MEMORY_REPORT_PREFIX.length)) as RunnerParts;
      latest.set(parts.id, parts);
    } catch {
      // A line cut by the 64 KiB window.
    }
  }
  return [...latest.values()].sort((a, b) => b.rss - a.rss);
}

function partsOf(parts: RunnerParts | null | undefined): string {
  if (!parts) return '-';
  const { isolates, scriptCache, spaces } = parts;
  return [
    `rss ${parts.rss.toFixed(0)}`,
    `own heap ${parts.heapUsed.toFixed(0)}/${parts.heapTotal.toFixed(0)} (young ${(spaces.new_space ?? 0).toFixed(1)}, old ${(spaces.old_space ?? 0).toFixed(1)}, code ${(spaces.code_space ?? 0).toFixed(1)}), external ${parts.external.toFixed(0)}`,
    `isolates ${isolates.idle} idle + ${isolates.ready} ready + ${isolates.busy} busy, shelf heaps ${isolates.heap.used.toFixed(0)}/${isolates.heap.total.toFixed(0)} malloced ${isolates.heap.malloced.toFixed(1)} external ${isolates.heap.external.toFixed(1)}`,
    `script cache ${scriptCache.entries} (${scriptCache.mib.toFixed(1)}), compiled once ${scriptCache.compiledOnce}`,
  ].join('; ');
}

/**
 * The steadier figure: the band (lowest and highest sample) over the last three quarters, and
 * how far its top rose above the first quarter's highest sample. `values[i]` is the sample at
 * tenth i + 1 (undefined while the process was not alive).
 */
export function band(values: Array<number | undefined>): { low: number; high: number; growth: number } | null {
  const quarter = Math.ceil(values.length / 4) - 1;
  const first = values.slice(0, quarter).filter((v): v is number => v !== undefined);
  const rest = values.slice(quarter).filter((v): v is number => v !== undefined);
  if (first.length === 0 || rest.length === 0) return null;
  const high = Math.max(...rest);
  return { low: Math.min(...rest), high, growth: high - Math.max(...first) };
}

function bandOf(values: Array<number | undefined>): string {
  const b = band(values);
  return b ? `${b.low.toFixed(0)}-${b.high.toFixed(0)}, ${b.growth >= 0 ? '+' : ''}${b.growth.toFixed(0)}` : '-';
}

/** The reserved heap of each kind of thread (MiB). */
function threadHeaps(text: string): Record<string, number> {
  const heaps: Record<string, number> = {};
  for (const match of text.matchAll(/^svc_thread_heap_bytes\{thread="([^"]+)",state="total"\} (\S+)$/gm)) heaps[match[1]] = Number(match[2]) / 1048576;
  return heaps;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) / 1048576 : NaN;
}

async function soak(mode: 'off' | 'checked'): Promise<Record<string, string>> {
  // SOAK_SERVER_ENV=NAME=value,… sets variables of the server process (an allocator setting, say).
  const env = Object.fromEntries((process.env.SOAK_SERVER_ENV ?? '').split(',').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  // SOAK_DIAGNOSE=<dir>: the server logs its heap after each full collection there, and with
  // SOAK_SNAPSHOTS=1 writes a heap snapshot of the main thread at the first quarter and at the end
  // (./soak-hook.cjs; a snapshot holds the server's main thread for seconds), SOAK_SNAPSHOTS=all
  // of every worker thread too (a checker thread's took minutes under the soak's load).
  const diagnose = process.env.SOAK_DIAGNOSE ? path.resolve(process.env.SOAK_DIAGNOSE, mode) : null;
  if (diagnose) {
    fs.mkdirSync(diagnose, { recursive: true });
    env.NODE_OPTIONS = `--require ${path.join(import.meta.dirname, 'soak-hook.cjs')}`;
    env.SVC_BENCH_SOAK_DIR = diagnose;
    // The worker threads write theirs beside the main thread's (sandbox/thread-heap.ts).
    if (process.env.SOAK_SNAPSHOTS === 'all') env.SVC_THREAD_HEAP_SNAPSHOTS = diagnose;
  }
  // Each runner reports its parts on its stderr (the server's: the harness keeps it).
  env[MEMORY_REPORT_VARIABLE] = '1';
  const server = await startServer({ runners: 'server-default', config: { logging: { audit: { enabled: false } } }, env });
  const samples: Sample[] = [];
  const started = Date.now();
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: `name: soak\ndefault: deny\n${mode === 'off' ? 'typecheck: off\n' : ''}` } });
    if (created.status >= 300) throw new Error(`could not register the soak Blueprint: ${created.text}`);
    const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: CLIENTS });
    const headers = { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' };
    const pid = server.child.pid!;
    let next = 0;
    let done = 0;
    const sample = async () => {
      const resident = residentMiB(pid, false);
      // The runners alive now, largest first: one past runner_memory_recycle is replaced by a new one.
      const runners = runnerPids(pid).sort((a, b) => residentMiB(b) - residentMiB(a));
      const runnerMiB = runners.map((runner) => residentMiB(runner));
      const metrics = (await server.request('GET', '/metrics')).text;
      samples.push({
        runnerPids: runners,
        runnerParts: latestRunnerParts(server.stderr())[0] ?? null,
        server: resident,
        heap: metric(metrics, 'svc_nodejs_heap_size_used_bytes'),
        external: metric(metrics, 'svc_nodejs_external_memory_bytes'),
        checkers: metric(metrics, 'svc_typecheck_heap_bytes{state="total"}'),
        compileCache: metric(metrics, 'svc_compile_cache_bytes'),
        threads: threadHeaps(metrics),
        runners: runnerMiB,
        recycled: metric(metrics, 'svc_runner_restarts_total{reason="memory"}') * 1048576 || 0,
        compileRecycles: metric(metrics, 'svc_compile_thread_recycles_total') * 1048576 || 0,
        compileEntries: metric(metrics, 'svc_compile_cache_entries') * 1048576 || 0,
        serverKinds: residentKinds(pid),
        runnerKinds: runners.map((runner) => residentKinds(innermost(runner))),
      });
      if (diagnose && process.env.SOAK_SNAPSHOTS && (samples.length === Math.floor(SAMPLES / 4) || samples.length === SAMPLES)) process.kill(pid, 'SIGUSR2');
    };
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < PROGRAMS) {
          const n = next++;
          // A distinct program each time, of a realistic few hundred bytes, with a type to check.
          const code = `interface Greeting${n} { text: string; count: number }\nconst greeting${n}: Greeting${n} = { text: "hello", count: ${n} };\nexport function main(): string {\n  return greeting${n}.count === ${n} ? greeting${n}.text : "x";\n}\n`;
          const response = await request(`${server.url}/v1/execute`, { method: 'POST', body: JSON.stringify({ blueprint: 'soak', code }), headers, dispatcher });
          const json = (await response.body.json()) as { result: unknown };
          if (json.result !== 'hello') throw new Error(`unexpected answer ${JSON.stringify(json).slice(0, 300)}`);
          done++;
          if (done % (PROGRAMS / SAMPLES) === 0) await sample();
        }
      }),
    );
    await dispatcher.close();
  } catch (error) {
    // What the server said before it failed (a crash's reason is on its stderr).
    process.stderr.write(server.stderr().slice(-4000));
    throw error;
  } finally {
    await server.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  const fmt = (values: number[]) => values.map((v) => v.toFixed(0)).join(' → ');
  const quarter = samples[Math.floor(SAMPLES / 4) - 1] ?? samples[0];
  const last = samples[samples.length - 1];
  const label = `soak, ${PROGRAMS} new programs, typecheck ${mode}`;
  const rows: Record<string, string> = {
    [`${label}: server RSS per tenth (MiB)`]: fmt(samples.map((s) => s.server)),
    [`${label}: server V8 heap used / external per tenth (MiB)`]: samples.map((s) => `${s.heap.toFixed(0)}/${s.external.toFixed(0)}`).join(' → '),
    [`${label}: type-checker threads' V8 heap per tenth (MiB)`]: fmt(samples.map((s) => s.checkers)),
    ...Object.fromEntries(
      [...new Set(samples.flatMap((s) => Object.keys(s.threads)))].sort().map((thread) => [`${label}: ${thread} threads' V8 heap reserved per tenth (MiB)`, fmt(samples.map((s) => s.threads[thread] ?? 0))]),
    ),
    [`${label}: growth first quarter → end, server / largest runner (MiB)`]: `${(last.server - quarter.server).toFixed(0)} / ${(Math.max(...last.runners) - Math.max(...quarter.runners)).toFixed(0)}`,
    [`${label}: band over the last three quarters, growth of its top over the first quarter's top: server (MiB)`]: bandOf(samples.map((s) => s.server)),
    [`${label}: the same, each runner (MiB, by pid)`]: runnerBands(samples),
    [`${label}: the same, server brk (glibc main arena) / mmap (MiB)`]: `${bandOf(samples.map((s) => s.serverKinds.brk))} / ${bandOf(samples.map((s) => s.serverKinds.mmap))}`,
    [`${label}: largest runner's parts, first quarter`]: partsOf(quarter.runnerParts),
    [`${label}: largest runner's parts, end`]: partsOf(last.runnerParts),
    [`${label}: largest runner's own heap reserved / its young generation, per tenth (MiB)`]: samples.map((s) => (s.runnerParts ? `${s.runnerParts.heapTotal.toFixed(0)}/${(s.runnerParts.spaces.new_space ?? 0).toFixed(0)}` : '-')).join(' → '),
    // The shelf keeps what the recent demand asks (sandbox/runner/shelf.ts): its idle isolates move a runner's RSS between samples.
    [`${label}: largest runner's shelf isolates (idle + ready) / their heaps reserved + external, per tenth (MiB)`]: samples.map((s) => (s.runnerParts ? `${s.runnerParts.isolates.idle + s.runnerParts.isolates.ready}/${(s.runnerParts.isolates.heap.total + s.runnerParts.isolates.heap.external).toFixed(0)}` : '-')).join(' → '),
    // Busy ones too: under steady load the shelf makes new isolates only up to the recent demand plus spares, counting them.
    [`${label}: largest runner's isolates held (busy + idle + ready), per tenth`]: samples.map((s) => (s.runnerParts ? String(s.runnerParts.isolates.busy + s.runnerParts.isolates.idle + s.runnerParts.isolates.ready) : '-')).join(' → '),
    [`${label}: runners replaced for memory (runner_memory_recycle) per tenth`]: samples.map((s) => s.recycled).join(' → '),
    [`${label}: compile cache per tenth (MiB, its estimate)`]: fmt(samples.map((s) => s.compileCache)),
    [`${label}: compile cache entries / compile threads replaced, per tenth`]: samples.map((s) => `${s.compileEntries}/${s.compileRecycles}`).join(' → '),
    [`${label}: server brk/arenas/mmap/file, first quarter → end (MiB)`]: `${kindsOf(quarter.serverKinds)} → ${kindsOf(last.serverKinds)}`,
    [`${label}: runs/s`]: (PROGRAMS / seconds).toFixed(0),
  };
  rows[`${label}: runners' RSS per tenth, largest first (MiB)`] = samples.map((s) => s.runners.map((v) => v.toFixed(0)).join('/')).join(' → ');
  rows[`${label}: largest runner brk/arenas/mmap/file, first quarter → end (MiB)`] = `${kindsOf(quarter.runnerKinds[0])} → ${kindsOf(last.runnerKinds[0])}`;
  return rows;
}

/** Each runner's band (over the tenths it was alive) and its brk's (glibc main arena). */
function runnerBands(samples: Sample[]): string {
  const pids = [...new Set(samples.flatMap((s) => s.runnerPids))];
  return pids
    .map((pid) => {
      const at = (s: Sample) => s.runnerPids.indexOf(pid);
      const rss = samples.map((s) => (at(s) >= 0 ? s.runners[at(s)] : undefined));
      const brk = samples.map((s) => (at(s) >= 0 ? s.runnerKinds[at(s)]?.brk : undefined));
      return `${pid}: ${bandOf(rss)} (brk ${bandOf(brk)})`;
    })
    .join('; ');
}

function kindsOf(kinds: Kinds | undefined): string {
  return kinds ? [kinds.brk, kinds.arenas, kinds.mmap, kinds.file].map((v) => v.toFixed(0)).join('/') : '-';
}

export async function measureSoak(): Promise<Record<string, string>> {
  const modes = (process.env.SOAK_MODES ?? 'off,checked').split(',') as Array<'off' | 'checked'>;
  const rows: Record<string, string> = {};
  for (const mode of modes) Object.assign(rows, await soak(mode));
  return rows;
}
