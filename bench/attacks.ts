// `node --no-node-snapshot --import tsx bench/attacks.ts`: how long `/healthz` waits while one
// BENCH_ATTACKS_ONLY=checker: only the checker wait (another token's small program behind a 1.5 MB one);
// =heavy: only issue 36's host-work attacks (bench/heavy-attacks.ts); =programs: only the program attacks.
// hostile request is in flight (issue 25, "one request stalls the server"). For each attack
// it sends the request and, until its answer arrives, asks `/healthz` one request after the
// other (from a child process, ./healthz-probe.ts; BENCH_HEALTHZ_PROBE=inline: from this one);
// it prints the worst and median health latency, how many health answers came back during the
// attack, the worst loop delay of this process and of the probe's, and the attack's own status
// and time. Numbers are printed, never
// asserted (the machine may be shared: compare runs made back to back).
import { Agent, request } from 'undici';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { newToken, startServer, tempDir, type TestServer } from '../test/harness';
import type { ProbeReport } from './healthz-probe';
import { heavyAttacks } from './heavy-attacks';

const HOSTILE_STACK = '"at " + "a (".repeat(100000)';

export const ATTACKS: Record<string, string> = {
  // Not an attack: how the machine answers health requests during an ordinary run (noise floor).
  'control: a 200 ms loop': 'export function main() { const end = Date.now() + 200; let n = 0; while (Date.now() < end) n++; return n > 0; }',
  'thrown error, 300 kB stack line': `export function main() { const e = new Error("x"); Object.defineProperty(e, "stack", { value: ${HOSTILE_STACK} }); throw e; }`,
  'thrown Proxy, stack getter': `export function main() { const text = ${HOSTILE_STACK}; throw new Proxy(new Error("x"), { get(target, key) { return key === "stack" ? text : Reflect.get(target, key); } }); }`,
  '1.5 MB program': `export function main() { return 1; }\n${Array.from({ length: 30_000 }, (_, i) => `function f${i}(a: number): number { return a * ${i} + 1; }`).join('\n')}`,
  '150,000-element array literal': `const data = [${Array.from({ length: 150_000 }, (_, i) => i % 10).join(',')}];\nexport function main() { return data.length; }`,
  'nesting 5,000 deep': `export function main() { return ${'['.repeat(5_000)}${']'.repeat(5_000)}; }`,
};

function median(sorted: number[]): number {
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
}

async function measure(server: TestServer, code: string, dispatcher: Agent): Promise<Record<string, string | number>> {
  const headers = { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' };
  return measureWhile(server, dispatcher, async () => {
    const response = await request(`${server.url}/v1/execute`, { method: 'POST', headers, body: JSON.stringify({ blueprint: 'attacks', code }), dispatcher });
    const text = await response.body.text();
    return `${response.statusCode} ${(JSON.parse(text) as { error?: { kind?: string } | null }).error?.kind ?? 'ok'}`;
  });
}

/**
 * With BENCH_LOOP_DELAY=<dir> (./loop-delay-hook.cjs in the server): the server's event-loop
 * delay during [from, to] (the longest stall, by the histogram or between two 1 ms ticks), worst and the median of its 200 ms intervals' p99, the most CPU
 * its main thread spent in one turn, and the CPU the server's process used meanwhile (all its threads).
 */
function loopDelayDuring(server: TestServer, from: number, to: number): Record<string, string> {
  const dir = process.env.BENCH_LOOP_DELAY;
  if (!dir) return {};
  let text = '';
  try {
    text = fs.readFileSync(path.join(path.resolve(dir), `${server.child.pid}.loop`), 'utf8');
  } catch {
    return { 'loop delay': 'no samples' };
  }
  const kinds = new Map<number[], string>();
  const rows = text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const fields = line.split(' ');
      const row = fields.map(Number);
      kinds.set(row, fields[6] ?? '');
      return row;
    })
    .filter(([at]) => at > from && at <= to + 200);
  if (rows.length === 0) return { 'loop delay': 'no samples' };
  const p99s = rows.map((row) => row[2]).sort((a, b) => a - b);
  return {
    // The histogram's worst, or the longest wall time between two 1 ms ticks where the histogram missed it.
    'loop worst ms': Math.max(...rows.map((row) => Math.max(row[1], row[9] ?? 0))).toFixed(0),
    'loop p99 (median of 200 ms) ms': median(p99s).toFixed(1),
    'loop worst CPU ms': Math.max(...rows.map((row) => row[4] ?? NaN)).toFixed(1),
    'GC worst ms': (() => {
      const worst = rows.reduce((a, b) => ((b[5] ?? 0) > (a[5] ?? 0) ? b : a));
      return `${(worst[5] ?? NaN).toFixed(0)} ${kinds.get(worst) ?? ''}`;
    })(),
    ...gcPausesDuring(dir, server, from, to),
    'heap max MiB': Math.max(...rows.map((row) => row[7] ?? NaN)).toFixed(0),
    'RSS max MiB': Math.max(...rows.map((row) => row[8] ?? NaN)).toFixed(0),
    'server CPU ms': rows.reduce((sum, row) => sum + row[3], 0).toFixed(0),
  };
}

interface GcPause {
  ms: number;
  kind: string;
}

/** The server's GC pauses (BENCH_LOOP_DELAY's <dir>/<pid>.gc) that began during [from, to]; none when not recorded. */
function gcPausesBetween(dir: string, server: TestServer, from: number, to: number): GcPause[] {
  let text = '';
  try {
    text = fs.readFileSync(path.join(path.resolve(dir), `${server.child.pid}.gc`), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .filter(([at]) => Number(at) >= from && Number(at) <= to)
    .map(([, ms, kind]) => ({ ms: Number(ms), kind }));
}

/** The p99 of the server's GC pauses during [from, to] and how much of the time they took. */
function gcPausesDuring(dir: string, server: TestServer, from: number, to: number): Record<string, string> {
  const pauses = gcPausesBetween(dir, server, from, to)
    .map((pause) => pause.ms)
    .sort((a, b) => a - b);
  if (pauses.length === 0) return {};
  return {
    'GC p99 ms': pauses[Math.min(pauses.length - 1, Math.floor(pauses.length * 0.99))].toFixed(0),
    'GC pauses (total ms)': `${pauses.length} (${pauses.reduce((a, b) => a + b, 0).toFixed(0)})`,
  };
}

/**
 * Who asks `/healthz` during an attack: by default a child process of its own
 * (./healthz-probe.ts), whose event loop does nothing else; with BENCH_HEALTHZ_PROBE=inline this
 * process, as before gc36, whose loop also drives the attack (its own
 * delays then count as the server's).
 */
interface HealthProbe {
  start(url: string, dispatcher: Agent): void;
  stop(): Promise<ProbeReport>;
  close(): void;
}

function childProbe(): HealthProbe {
  // A session of its own (detached: setsid): with the kernel's autogroup scheduling (Linux's
  // default, on here) CPU is shared between sessions first, and the bench's session is busy
  // serving the far ends; the runners are in sessions of their own already (bwrap --new-session).
  const child = fork(path.join(import.meta.dirname, 'healthz-probe.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
  return {
    start: (url) => child.send({ start: url }),
    stop: () =>
      new Promise((resolve, reject) => {
        const exited = (code: number | null) => reject(new Error(`the health probe exited (${code})`));
        child.once('exit', exited);
        child.once('message', (report) => {
          child.off('exit', exited);
          resolve(report as ProbeReport);
        });
        child.send({ stop: true });
      }),
    close: () => child.disconnect(),
  };
}

function inlineProbe(): HealthProbe {
  let stopping = false;
  let probing: Promise<ProbeReport> | null = null;
  return {
    start(url, dispatcher) {
      stopping = false;
      probing = (async () => {
        const latencies: number[] = [];
        const failures: string[] = [];
        while (!stopping) {
          const at = process.hrtime.bigint();
          try {
            const health = await request(`${url}/healthz`, { dispatcher });
            await health.body.text();
          } catch (error) {
            failures.push((error as Error).message);
          }
          latencies.push(Number(process.hrtime.bigint() - at) / 1e6);
        }
        return { latencies, failures, loopWorstMs: NaN, worstAt: NaN };
      })();
    },
    stop() {
      stopping = true;
      return probing!;
    },
    close() {},
  };
}

let healthProbe: HealthProbe | null = null;
function theHealthProbe(): HealthProbe {
  healthProbe ??= process.env.BENCH_HEALTHZ_PROBE === 'inline' ? inlineProbe() : childProbe();
  return healthProbe;
}

/**
 * The server's GC pauses (BENCH_LOOP_DELAY) that began while the slowest `/healthz` request
 * waited, as `count (total ms, longest kind)`: how much of that wait was the server's collector.
 */
function gcDuringWorst(server: TestServer, worstAt: number, worstMs: number): Record<string, string> {
  const dir = process.env.BENCH_LOOP_DELAY;
  if (!dir || Number.isNaN(worstAt)) return {};
  const pauses = gcPausesBetween(dir, server, worstAt - 1, worstAt + worstMs);
  if (pauses.length === 0) return { 'GC in worst healthz': '0' };
  const longest = pauses.reduce((a, b) => (b.ms > a.ms ? b : a));
  return { 'GC in worst healthz': `${pauses.length} (${pauses.reduce((sum, p) => sum + p.ms, 0).toFixed(0)} ms, ${longest.ms.toFixed(0)} ${longest.kind})` };
}

/**
 * The worst `/healthz` latency while `attack` is in flight (every health request started
 * meanwhile counts, answered or reset); the attack's own answer as its status; the worst
 * event-loop delay of this process (which serves the far ends) and of the probe's, so that a
 * slow health answer can be told from a stalled asker.
 */
export async function measureWhile(server: TestServer, dispatcher: Agent, attackWork: () => Promise<string>): Promise<Record<string, string | number>> {
  const started = process.hrtime.bigint();
  const startedAt = Date.now();
  const benchLoop = monitorEventLoopDelay({ resolution: 1 });
  benchLoop.enable();
  const probe = theHealthProbe();
  probe.start(server.url, dispatcher);
  const result = await attackWork().then(
    (status) => ({ status, ms: Number(process.hrtime.bigint() - started) / 1e6, kind: '' }),
    (error: Error) => ({ status: 'failed', ms: Number(process.hrtime.bigint() - started) / 1e6, kind: error.message }),
  );
  const { latencies, failures, loopWorstMs, worstAt } = await probe.stop();
  benchLoop.disable();
  latencies.sort((a, b) => a - b);
  const loop = loopDelayDuring(server, startedAt, Date.now());
  const worst = latencies.length ? latencies[latencies.length - 1] : NaN;
  return {
    ...loop,
    'healthz worst ms': latencies.length ? worst.toFixed(1) : 'none answered',
    ...gcDuringWorst(server, worstAt, worst),
    'healthz p50 ms': median(latencies).toFixed(1),
    'healthz answers': latencies.length,
    'healthz failures': failures.length ? `${failures.length} (${failures[0]})` : 0,
    'bench loop worst ms': (benchLoop.max / 1e6).toFixed(0),
    'probe loop worst ms': loopWorstMs.toFixed(0),
    'attack status': `${result.status}${result.kind ? ` ${result.kind}` : ''}`,
    'attack ms': result.ms.toFixed(0),
  };
}

/**
 * Issue 25's checker wait: another token's small new program sent while a 1.5 MB program is
 * in the type checker, against the same small program sent alone. Each small program is new
 * (no cached check).
 */
async function checkerWait(server: TestServer, otherToken: string, dispatcher: Agent): Promise<Record<string, string>> {
  let salt = 0;
  const oneOff = async (token: string, code: string) => {
    const started = process.hrtime.bigint();
    const reply = await request(`${server.url}/v1/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ blueprint: 'attacks', code }),
      dispatcher,
    });
    await reply.body.text();
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const small = () => `export function main() { const n: number = ${salt++}; return n; }`;
  const alone: number[] = [];
  for (let i = 0; i < 5; i++) alone.push(await oneOff(server.userToken, small()));
  const behind: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = server.audit({ event: 'started', principal: 'other' }).length;
    // A different large program each time: a cached check would not wait.
    const attack = oneOff(otherToken, `${ATTACKS['1.5 MB program']}\nexport const salt${i} = ${salt++};`);
    while (server.audit({ event: 'started', principal: 'other' }).length === before) await new Promise((resolve) => setTimeout(resolve, 5));
    behind.push(await oneOff(server.userToken, small()));
    large.push(await attack);
  }
  alone.sort((a, b) => a - b);
  behind.sort((a, b) => a - b);
  return {
    'small new program alone, median ms': median(alone).toFixed(0),
    'small new program behind a 1.5 MB program, median / worst ms': `${median(behind).toFixed(0)} / ${behind[behind.length - 1].toFixed(0)}`,
    'the 1.5 MB program itself, median ms': median(large.sort((a, b) => a - b)).toFixed(0),
  };
}

async function main(): Promise<void> {
  const home = tempDir();
  const otherToken = newToken();
  fs.writeFileSync(path.join(home, 'other.token'), `${otherToken}\n`);
  // BENCH_PROFILE=<dir>: the server and its runners write V8 CPU profiles there (bench/profile.ts reads them).
  const profile: Record<string, string> = process.env.BENCH_PROFILE
    ? { NODE_OPTIONS: `--require ${path.join(import.meta.dirname, 'cpu-profile-hook.cjs')}`, SVC_BENCH_PROFILE_DIR: path.resolve(process.env.BENCH_PROFILE) }
    : {};
  if (process.env.BENCH_PROFILE) fs.mkdirSync(path.resolve(process.env.BENCH_PROFILE), { recursive: true });
  // BENCH_LOOP_DELAY=<dir>: the server writes its event-loop delay and CPU there (./loop-delay-hook.cjs).
  const loopDelay = process.env.BENCH_LOOP_DELAY;
  if (loopDelay) {
    fs.mkdirSync(path.resolve(loopDelay), { recursive: true });
    const hook = `--require ${path.join(import.meta.dirname, 'loop-delay-hook.cjs')}`;
    profile.NODE_OPTIONS = profile.NODE_OPTIONS ? `${profile.NODE_OPTIONS} ${hook}` : hook;
    profile.SVC_BENCH_LOOP_DELAY_DIR = path.resolve(loopDelay);
    // BENCH_HEAP_SNAPSHOT=1 (with BENCH_RETAINED=1): a heap snapshot at each retained-heap measurement.
    if (process.env.BENCH_HEAP_SNAPSHOT === '1') profile.SVC_BENCH_HEAP_SNAPSHOT = '1';
  }
  // BENCH_SERVER_NODE_OPTIONS: Node/V8 flags for the server's process (GC settings tried against the attacks).
  if (process.env.BENCH_SERVER_NODE_OPTIONS) profile.NODE_OPTIONS = `${profile.NODE_OPTIONS ?? ''} ${process.env.BENCH_SERVER_NODE_OPTIONS}`.trim();
  const server = await startServer({
    runners: 'server-default',
    // As deployed: the server in a session of its own, apart from this process's far ends and
    // drivers (BENCH_SERVER_SESSION=shared: the bench's session, as before round 26).
    ownSession: process.env.BENCH_SERVER_SESSION !== 'shared',
    home,
    env: { RUST_LOG: 'warn,svc_server::serve=info', ...profile },
    // Loopback far ends for the fetch attacks; room for a 50 MiB body in a run.
    // BENCH_SERVER_ARGS: more flags for the server (e.g. `--runner-nice 10`, to compare settings).
    args: ['--allow-localhost', '--max-execution-memory', '200', '--max-execution-time', '60', ...(process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? [])],
    config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] },
  });
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 4 });
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: attacks\n' } });
    if (created.status >= 300) throw new Error(`could not register the Blueprint: ${created.text}`);
    // Warm: the first run of a server pays for loading.
    await measure(server, 'export function main() { return 1; }', dispatcher);
    const rows: Record<string, Record<string, string | number>> = {};
    // BENCH_ATTACKS_ONLY=checker measures only the checker wait below; =heavy only the
    // attacks of issue 36 (./heavy-attacks); =programs only the program attacks above.
    const only = process.env.BENCH_ATTACKS_ONLY;
    for (const [name, code] of only === 'checker' || only === 'heavy' ? [] : Object.entries(ATTACKS)) {
      try {
        rows[name] = await measure(server, code, dispatcher);
      } catch (error) {
        rows[name] = { 'attack status': `failed: ${(error as Error).message}` };
      }
    }
    // BENCH_HEAVY_ONLY=<text>: only the heavy attacks whose name holds it.
    const heavyOnly = process.env.BENCH_HEAVY_ONLY;
    for (const heavy of only === undefined || only === 'heavy' ? heavyAttacks(server).filter((h) => !heavyOnly || h.name.includes(heavyOnly)) : []) {
      try {
        await heavy.prepare();
        // A long preparation outlives the server's keep-alive: open fresh connections first.
        await request(`${server.url}/healthz`, { dispatcher }).then((r) => r.body.text(), () => '');
        await server.request('GET', '/healthz', { token: null }).catch(() => null);
        rows[heavy.name] = await measureWhile(server, dispatcher, heavy.attack);
        if (heavy.report) Object.assign(rows[heavy.name], await heavy.report());
      } catch (error) {
        rows[heavy.name] = { 'attack status': `failed: ${(error as Error).message}` };
      } finally {
        await heavy.cleanUp?.();
      }
    }
    if (Object.keys(rows).length > 0) console.table(rows);
    if (only === undefined || only === 'checker') console.table(await checkerWait(server, otherToken, dispatcher));
  } finally {
    healthProbe?.close();
    await dispatcher.close();
    await server.stop();
  }
}

await main();
