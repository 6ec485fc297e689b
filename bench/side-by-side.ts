// `node --import tsx bench/side-by-side.ts <other worktree>`: this tree's server and another
// tree's (built: `node scripts/build.mjs` there), started at once and driven in turns with the
// same-program hello world (or a new program per request: `fresh`, `fresh-off`), so both
// see the same load on a shared machine. Per block: a
// variant's sequential runs on one server, then the other (the order flips each block), then
// runs with 16 clients. Prints the server's CPU per sequential run (main thread, all threads),
// the runners' (main thread, all threads), esbuild's service's, this process's own (the client), p50 and runs/s, per block and their mean,
// and the server's and runners' CPU per run with 16 clients. Numbers are
// printed, never asserted. SIDE_BLOCKS (6), SIDE_SEQUENTIAL (400), SIDE_CONCURRENT (800),
// SIDE_VARIANTS (same-off,same; also fresh, fresh-off), SIDE_WARM (400 runs of each variant on
// each server before the blocks; a new checker thread warms V8's optimizing compiler for
// thousands of checks, so `fresh` at 400 measures that warm-up: 8,000 reaches a lasting
// server's state: bench/PROFILE.md).
import path from 'node:path';
import { executeClient, type ExecuteClient } from './lean-client';
import { cpuOf, esbuildBetween, mainThreadCpuOf } from './proc';

interface Started {
  url: string;
  userToken: string;
  child: { pid?: number; exitCode: number | null; signalCode: string | null };
  stderr(): string;
  request(method: string, route: string, options: { body: unknown }): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

const BLOCKS = Number(process.env.SIDE_BLOCKS ?? 6);
const SEQUENTIAL = Number(process.env.SIDE_SEQUENTIAL ?? 400);
const CONCURRENT = Number(process.env.SIDE_CONCURRENT ?? 800);
const CLIENTS = 16;
const VARIANTS = (process.env.SIDE_VARIANTS ?? 'same-off,same').split(',');
const WARM = Number(process.env.SIDE_WARM ?? 400);
const CHECKED = 'name: bench\ndefault: deny\n';
const OFF = 'name: bench-off\ndefault: deny\ntypecheck: off\n';
const BLUEPRINTS: Record<string, string> = { same: CHECKED, 'same-off': OFF, fresh: CHECKED, 'fresh-off': OFF };

async function start(tree: string): Promise<Started> {
  const harness = (await import(path.join(tree, 'test', 'harness.ts'))) as { startServer(options: object): Promise<Started> };
  const server = await harness.startServer({ runners: 'server-default', env: { RUST_LOG: 'warn,svc_server::serve=info' }, config: { logging: { audit: { enabled: false } } } });
  for (const yaml of new Set(VARIANTS.map((variant) => BLUEPRINTS[variant]))) {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml } });
    if (created.status >= 300) throw new Error(`could not register the Blueprint ${JSON.stringify(yaml)}: ${created.text}`);
  }
  clients.set(server, executeClient(server.url, server.userToken, CLIENTS));
  return server;
}

/** Each server's client (bench/lean-client.ts), made at its start. */
const clients = new Map<Started, ExecuteClient>();

/** Sources of the `fresh` variants: both servers get the same sequence, each source once (no compile-cache hit). */
let programCounter = 0;
function programFor(variant: string): string {
  if (!variant.startsWith('fresh')) return 'export function main() { return "hello"; }';
  return `export function main() { const n = ${programCounter++}; return n >= 0 ? "hello" : "x"; }`;
}

async function once(server: Started, variant: string): Promise<number> {
  const body = JSON.stringify({ blueprint: variant.endsWith('-off') ? 'bench-off' : 'bench', code: programFor(variant) });
  const started = process.hrtime.bigint();
  const json = await clients.get(server)!.run(body);
  if (json.result !== 'hello') throw new Error(`unexpected answer ${JSON.stringify(json)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

interface Block {
  main: number;
  server: number;
  runners: number;
  runnersMain: number;
  esbuild: number;
  /** This process's own CPU per sequential run (the load generator's share). */
  client: number;
  p50: number;
  runsPerSecond: number;
  /** CPU per run with 16 clients in flight: the server's main thread, all its threads, the runners. */
  concurrentMain: number;
  concurrentServer: number;
  concurrentRunners: number;
}

async function block(server: Started, variant: string): Promise<Block> {
  const pid = server.child.pid!;
  const mainBefore = mainThreadCpuOf(pid);
  const before = cpuOf(pid);
  const times: number[] = [];
  const clientBefore = process.cpuUsage();
  for (let i = 0; i < SEQUENTIAL; i++) times.push(await once(server, variant));
  const client = process.cpuUsage(clientBefore);
  const mainAfter = mainThreadCpuOf(pid);
  const after = cpuOf(pid);
  let next = 0;
  const began = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < CONCURRENT) {
      next++;
      await once(server, variant);
    }
  }));
  const ended = Date.now();
  const mainEnd = mainThreadCpuOf(pid);
  const end = cpuOf(pid);
  times.sort((a, b) => a - b);
  return {
    main: (mainAfter.server - mainBefore.server) / SEQUENTIAL,
    server: (after.server - before.server) / SEQUENTIAL,
    runners: (after.children - before.children - esbuildBetween(before, after)) / SEQUENTIAL,
    esbuild: esbuildBetween(before, after) / SEQUENTIAL,
    runnersMain: (mainAfter.runners - mainBefore.runners) / SEQUENTIAL,
    client: (client.user + client.system) / 1000 / SEQUENTIAL,
    p50: times[Math.floor(times.length / 2)],
    runsPerSecond: CONCURRENT / ((ended - began) / 1000),
    concurrentMain: (mainEnd.server - mainAfter.server) / CONCURRENT,
    concurrentServer: (end.server - after.server) / CONCURRENT,
    concurrentRunners: (end.children - after.children - esbuildBetween(after, end)) / CONCURRENT,
  };
}

async function main(): Promise<void> {
  const other = process.argv[2];
  if (!other) throw new Error('usage: bench/side-by-side.ts <other worktree>');
  const trees = { this: path.resolve(import.meta.dirname, '..'), other: path.resolve(other) };
  const servers = { this: await start(trees.this), other: await start(trees.other) };
  try {
    // Both servers past their warm-up (the first variant measured otherwise pays it, bench/PROFILE.md lean39s).
    for (const server of Object.values(servers)) for (const variant of VARIANTS) for (let i = 0; i < WARM; i++) await once(server, variant);
    const results = new Map<string, Block[]>();
    for (let b = 0; b < BLOCKS; b++) {
      for (const variant of VARIANTS) {
        const order = b % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const);
        for (const name of order) {
          const key = `${variant} ${name}`;
          results.set(key, [...(results.get(key) ?? []), await block(servers[name], variant)]);
        }
      }
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const list = (values: number[], digits: number) => values.map((value) => value.toFixed(digits)).join(' ');
    console.log(`this: ${trees.this}\nother: ${trees.other}\nper sequential run, ms (mean of ${BLOCKS} blocks; then each block)`);
    for (const [key, blocks] of results) {
      const of = (field: keyof Block) => blocks.map((b) => b[field]);
      console.log(`${key.padEnd(16)} server main ${mean(of('main')).toFixed(2)} [${list(of('main'), 2)}], server all ${mean(of('server')).toFixed(2)}, runners ${mean(of('runners')).toFixed(2)} (main ${mean(of('runnersMain')).toFixed(2)}), esbuild ${mean(of('esbuild')).toFixed(2)}, client ${mean(of('client')).toFixed(2)}, p50 ${mean(of('p50')).toFixed(2)} [${list(of('p50'), 2)}], runs/s ${mean(of('runsPerSecond')).toFixed(0)} [${list(of('runsPerSecond'), 0)}]`);
      console.log(`${''.padEnd(16)} 16 clients, per run: server main ${mean(of('concurrentMain')).toFixed(2)} [${list(of('concurrentMain'), 2)}], server all ${mean(of('concurrentServer')).toFixed(2)}, runners ${mean(of('concurrentRunners')).toFixed(2)}`);
    }
  } catch (error) {
    // Which server failed, and what it said last (a crash's reason is in its stderr).
    for (const [name, server] of Object.entries(servers)) console.error(`${name} server: exit code ${server.child.exitCode ?? 'none'}, signal ${server.child.signalCode ?? 'none'}; stderr ends:\n${server.stderr().slice(-2000)}`);
    throw error;
  } finally {
    await Promise.all([...clients.values()].map((client) => client.close()));
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

await main();
