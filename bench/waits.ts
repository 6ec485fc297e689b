// Runs that wait (issue 26): 64 concurrent runs each waiting 500 ms on svc:http against one
// such run; a program's fan-out of 8 (svc:http/async and fetch in Promise.all) against one
// call; the memory of a parked run (RSS of the server and runners with 64 runs parked,
// minus idle, divided by 64); the first burst after a start on several fresh servers.
// Printed, never asserted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { startServer, type StartOptions, type TestServer } from '../test/harness';
import path from 'node:path';
import fs from 'node:fs';
import { cpuOf, journalEnv, mainThreadCpuOf, rssOf } from './proc';
import { startMcpUpstream, upstreamServerOptions } from '../test/support/mcp-upstream';

const WAIT_MS = 500;
const RUNS = 64;
const FAN_OUT = 8;

interface FarEnd {
  port: number;
  /** When each request arrived (performance.now() of this process). */
  arrivals: number[];
  release(): void;
  close(): void;
}

/** /wait answers after WAIT_MS; /hold answers when released. */
async function farEnd(): Promise<FarEnd> {
  const held: http.ServerResponse[] = [];
  const far: FarEnd = {
    port: 0,
    arrivals: [],
    release: () => {
      for (const res of held.splice(0)) res.end('released');
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
  const server = http.createServer((req, res) => {
    far.arrivals.push(performance.now());
    if (req.url?.startsWith('/hold')) held.push(res);
    else setTimeout(() => res.end('waited'), WAIT_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  far.port = (server.address() as AddressInfo).port;
  return far;
}

/** When the last request since `seen` arrived, in ms after `started` (NaN if none did). */
function lastArrival(far: FarEnd, seen: number, started: number): number {
  return far.arrivals.length > seen ? Math.max(...far.arrivals.slice(seen)) - started : NaN;
}

/** A server with the default pool and audit off, the far end reachable on loopback, and the `waits` Blueprint. */
async function waitsServer(env: StartOptions['env'] = {}): Promise<TestServer> {
  // BENCH_JOURNAL=off here too: the fan-out rows are where journals hold the most (every reply).
  const server = await startServer({ runners: 'server-default', args: ['--allow-localhost'], env: { ...journalEnv(), ...env }, config: { logging: { audit: { enabled: false } } } });
  await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: waits\nallow_insecure_http: true\ndefault: allow\n' } });
  return server;
}

/** A run that waits on one svc:http call to `url`. */
const waitingRun = (url: string) => `import * as http from "svc:http";\nexport function main() { return http.get("${url}").status; }`;

/**
 * The harness's client, as in the http bench: undici's request() on a keep-alive pool. It
 * shares the two cores with the server, and the test harness's fetch() spent 80-180 ms of
 * CPU per burst of 64 (PROFILE.md, round 7); a harness elsewhere costs the server nothing.
 */
const clientPool = new Agent({ keepAliveTimeout: 30_000, connections: 2 * RUNS });

async function execute(server: TestServer, code: string): Promise<void> {
  const reply = await request(`${server.url}/v1/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ blueprint: 'waits', code }),
    dispatcher: clientPool,
  });
  const text = await reply.body.text();
  const body = JSON.parse(text) as { error: { message: string } | null };
  if (reply.statusCode !== 200 || body.error) throw new Error(`bench run failed: ${text}`);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** CPU time (ms) the server and its children (runners, esbuild) spent on `work`: what load on a shared machine distorts least. */
async function cpuSpent(server: TestServer, work: () => Promise<unknown>, far?: FarEnd): Promise<{ server: number; children: number; serverMain: number; runnersMain: number; wall: number; lastArrival: number }> {
  const before = cpuOf(server.child.pid!);
  const mainBefore = mainThreadCpuOf(server.child.pid!);
  const seen = far?.arrivals.length ?? 0;
  const started = performance.now();
  const wall = await timed(work);
  const last = far ? lastArrival(far, seen, started) : NaN;
  const after = cpuOf(server.child.pid!);
  const mainAfter = mainThreadCpuOf(server.child.pid!);
  return {
    server: after.server - before.server,
    children: after.children - before.children,
    serverMain: mainAfter.server - mainBefore.server,
    runnersMain: mainAfter.runners - mainBefore.runners,
    wall,
    lastArrival: last,
  };
}

const cpuText = (cpu: { server: number; children: number; serverMain: number; runnersMain: number; lastArrival: number }) =>
  `last request at the far end after ${cpu.lastArrival.toFixed(0)}; server ${cpu.server.toFixed(0)} (main thread ${cpu.serverMain.toFixed(0)}), runners ${cpu.children.toFixed(0)} (main threads ${cpu.runnersMain.toFixed(0)})`;

export async function measureWaits(): Promise<Record<string, string>> {
  const far = await farEnd();
  // BENCH_PROFILE=<dir>: CPU profiles of the server and its runners (bench/profile.ts reads them).
  const profile = process.env.BENCH_PROFILE
    ? { NODE_OPTIONS: `--require ${path.join(import.meta.dirname, 'cpu-profile-hook.cjs')}`, SVC_BENCH_PROFILE_DIR: path.resolve(process.env.BENCH_PROFILE) }
    : {};
  if (process.env.BENCH_PROFILE) fs.mkdirSync(path.resolve(process.env.BENCH_PROFILE), { recursive: true });
  const server = await waitsServer({ RUST_LOG: 'warn,svc_server::serve=info', ...profile });
  try {
    const url = `http://127.0.0.1:${far.port}`;
    const one = waitingRun(`${url}/wait`);
    await execute(server, one);
    const single = await timed(() => execute(server, one));
    const manyCpu = await cpuSpent(server, () => Promise.all(Array.from({ length: RUNS }, () => execute(server, one))), far);
    const many = manyCpu.wall;
    const againCpu = await cpuSpent(server, () => Promise.all(Array.from({ length: RUNS }, () => execute(server, one))), far);
    const manyAgain = againCpu.wall;
    const oneAsync = `import * as http from "svc:http/async";\nexport async function main() { return (await http.get("${url}/wait")).status; }`;
    const fanAsync = `import * as http from "svc:http/async";\nexport async function main() { return (await Promise.all(Array.from({ length: ${FAN_OUT} }, () => http.get("${url}/wait")))).length; }`;
    const oneFetch = `export async function main() { return (await fetch("${url}/wait")).status; }`;
    const fanFetch = `export async function main() { return (await Promise.all(Array.from({ length: ${FAN_OUT} }, () => fetch("${url}/wait")))).length; }`;
    for (const code of [oneAsync, fanAsync, oneFetch, fanFetch]) await execute(server, code);
    const asyncOne = await timed(() => execute(server, oneAsync));
    const asyncFan = await timed(() => execute(server, fanAsync));
    const timerWait = `export async function main() { await new Promise((r) => setTimeout(r, ${WAIT_MS})); return 1; }`;
    await execute(server, timerWait);
    const manyTimers = await timed(() => Promise.all(Array.from({ length: RUNS }, () => execute(server, timerWait))));
    const manyHello = await timed(() => Promise.all(Array.from({ length: RUNS }, () => execute(server, 'export function main() { return 1; }'))));
    const manyAsync = await timed(() => Promise.all(Array.from({ length: RUNS }, () => execute(server, oneAsync))));
    const fetchOne = await timed(() => execute(server, oneFetch));
    const fetchFan = await timed(() => execute(server, fanFetch));

    const idle = rssOf(server.child.pid!);
    const before = far.arrivals.length;
    const parked = Promise.all(Array.from({ length: RUNS }, (_, i) => execute(server, `import * as http from "svc:http";\nexport function main() { return http.get("${url}/hold/${i}").status; }`)));
    while (far.arrivals.length - before < RUNS) await new Promise((resolve) => setTimeout(resolve, 20));
    const loaded = rssOf(server.child.pid!);
    far.release();
    await parked;
    return {
      [`one run waiting ${WAIT_MS} ms on svc:http (ms)`]: single.toFixed(0),
      [`${RUNS} such runs at once (ms; ratio to one)`]: `${many.toFixed(0)} (${(many / single).toFixed(2)}x)`,
      [`  that burst (ms)`]: cpuText(manyCpu),
      [`the same ${RUNS} again (ms; ratio)`]: `${manyAgain.toFixed(0)} (${(manyAgain / single).toFixed(2)}x)`,
      [`  that burst (ms) `]: cpuText(againCpu),
      [`${RUNS} runs each awaiting a ${WAIT_MS} ms timer (ms; ratio)`]: `${manyTimers.toFixed(0)} (${(manyTimers / single).toFixed(2)}x)`,
      [`${RUNS} hello-world runs at once (ms)`]: manyHello.toFixed(0),
      [`${RUNS} runs each awaiting one svc:http/async call (ms; ratio)`]: `${manyAsync.toFixed(0)} (${(manyAsync / single).toFixed(2)}x)`,
      [`fan-out of ${FAN_OUT} svc:http/async calls vs one (ms)`]: `${asyncFan.toFixed(0)} vs ${asyncOne.toFixed(0)} (${(asyncFan / asyncOne).toFixed(2)}x)`,
      [`fan-out of ${FAN_OUT} fetches vs one (ms)`]: `${fetchFan.toFixed(0)} vs ${fetchOne.toFixed(0)} (${(fetchFan / fetchOne).toFixed(2)}x)`,
      [`memory per parked run: (RSS with ${RUNS} parked - idle) / ${RUNS} (MiB)`]: `${((loaded - idle) / RUNS / 1048576).toFixed(2)} (idle ${(idle / 1048576).toFixed(0)}, parked ${(loaded / 1048576).toFixed(0)})`,
    };
  } finally {
    await server.stop();
    far.close();
  }
}

const COLD_SERVERS = 7;

/**
 * The first burst after a start, on fresh servers: one run, then RUNS at once. One such
 * burst varies by ±0.15x on this 2-core VM, so the median of COLD_SERVERS is the number to
 * compare; each burst also says when its last request reached the far end (the rest is the
 * 500 ms wait and the answers) and how much CPU this process, the client, spent on it (it
 * shares the cores with the server).
 */
export async function measureColdBursts(): Promise<Record<string, string>> {
  const far = await farEnd();
  const one = waitingRun(`http://127.0.0.1:${far.port}/wait`);
  const ratios: number[] = [];
  const bursts: string[] = [];
  try {
    for (let round = 0; round < COLD_SERVERS; round++) {
      const server = await waitsServer();
      try {
        await execute(server, one);
        const single = await timed(() => execute(server, one));
        const seen = far.arrivals.length;
        const clientBefore = process.cpuUsage();
        const started = performance.now();
        await Promise.all(Array.from({ length: RUNS }, () => execute(server, one)));
        const burst = performance.now() - started;
        const clientCpu = process.cpuUsage(clientBefore);
        ratios.push(burst / single);
        bursts.push(`${(burst / single).toFixed(2)}x (last at ${lastArrival(far, seen, started).toFixed(0)}, client ${((clientCpu.user + clientCpu.system) / 1000).toFixed(0)})`);
      } finally {
        await server.stop();
      }
    }
  } finally {
    far.close();
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  return {
    [`first burst of ${RUNS} after a start, ${COLD_SERVERS} fresh servers (ratio to one run; median, range)`]: `${sorted[Math.floor(sorted.length / 2)].toFixed(2)}x (${sorted[0].toFixed(2)}-${sorted[sorted.length - 1].toFixed(2)}x)`,
    [`  each (last request at the far end, client CPU; ms)`]: bursts.join(', '),
  };
}

/** `@mcp/<server>/async`: a fan-out of 8 tool calls to one server (each answering after WAIT_MS) against one call. */
export async function measureMcpFanOut(): Promise<Record<string, string>> {
  const upstream = await startMcpUpstream({
    host: 'mcp.bench-example.com',
    tools: [{ name: 'slow', call: () => new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: 'text', text: '1' }] }), WAIT_MS)) }],
  });
  const network = upstreamServerOptions(upstream);
  const server = await startServer({ runners: 'server-default', args: network.args, env: network.env, config: { logging: { audit: { enabled: false } } } });
  try {
    await server.request('POST', '/v1/blueprints', { body: { yaml: `name: mcpbench\nvfs: none\nmcp:\n  slow:\n    url: ${upstream.url}\npermissions:\n  main:\n    - {capability: mcp.slow, action: allow}\n` } });
    const run = async (code: string) => {
      const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'mcpbench', code } });
      if (reply.status !== 200 || reply.json.error) throw new Error(`bench run failed: ${reply.text}`);
    };
    const one = 'import s from "@mcp/slow/async";\nexport async function main() { return await s.slow(); }';
    const fan = `import s from "@mcp/slow/async";\nexport async function main() { return (await Promise.all(Array.from({ length: ${FAN_OUT} }, () => s.slow()))).length; }`;
    for (const code of [one, fan]) await run(code);
    const single = await timed(() => run(one));
    const fanned = await timed(() => run(fan));
    return { [`fan-out of ${FAN_OUT} @mcp/<server>/async calls to one server vs one (${WAIT_MS} ms each; ms)`]: `${fanned.toFixed(0)} vs ${single.toFixed(0)} (${(fanned / single).toFixed(2)}x)` };
  } finally {
    await server.stop();
    await upstream.close();
  }
}

/** CPU the server and its runners spend in one second while RUNS runs wait on a timer far ahead, against idle. */
export async function measureParkedCpu(): Promise<Record<string, string>> {
  const server = await startServer({ runners: 'server-default', config: { logging: { audit: { enabled: false } } } });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const second = async () => {
    const before = cpuOf(server.child.pid!);
    await pause(1000);
    const after = cpuOf(server.child.pid!);
    return after.server + after.children - before.server - before.children;
  };
  try {
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: parked\n' } });
    const run = (code: string) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'parked', code } });
    await run('export function main() { return 1; }');
    const idle = await second();
    const parked = Promise.all(Array.from({ length: RUNS }, () => run('export async function main() { await new Promise((r) => setTimeout(r, 6000)); return 1; }')));
    // The runs start during the first seconds; the later ones are all parked.
    const seconds: number[] = [];
    for (let i = 0; i < 5; i++) seconds.push(await second());
    await parked;
    return { [`CPU of server + runners per second, seconds 1-5 of ${RUNS} runs awaiting a 6 s timer, vs idle (ms)`]: `${seconds.join(', ')} vs ${idle}` };
  } finally {
    await server.stop();
  }
}
