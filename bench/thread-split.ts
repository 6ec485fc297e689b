// `node --no-node-snapshot --import tsx bench/thread-split.ts`: one server (this tree's, as
// side-by-side.ts starts it) driven in phases of new programs, checked (`fresh`) or not
// (`off`), printing each of the server's threads' CPU per run from /proc (schedstat: ns, not
// ticks) and its minor page faults. Node names none of its threads, so they are printed by
// id: the main thread, V8's platform threads (the lowest ids after it), and the workers (the
// checker thread is the one busy only in checked phases). Phases named `warm:…` run
// unmeasured. Numbers are printed, never asserted. THREAD_PHASES
// (warm:fresh,warm:off,fresh,off,fresh,off), THREAD_RUNS (400 a phase), THREAD_WARM_RUNS
// (the warm phases'; THREAD_RUNS if unset), THREAD_CLIENTS (1).
import fs from 'node:fs';
import path from 'node:path';
import { executeClient } from './lean-client';

interface Started {
  url: string;
  userToken: string;
  child: { pid?: number };
  request(method: string, route: string, options: { body: unknown }): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

interface ThreadReading {
  /** ns on a CPU. */
  cpu: number;
  minorFaults: number;
}

const PHASES = (process.env.THREAD_PHASES ?? 'warm:fresh,warm:off,fresh,off,fresh,off').split(',');
const RUNS = Number(process.env.THREAD_RUNS ?? 400);
const WARM_RUNS = Number(process.env.THREAD_WARM_RUNS ?? RUNS);
const CLIENTS = Number(process.env.THREAD_CLIENTS ?? 1);

function readThreads(pid: number): Map<number, ThreadReading> {
  const threads = new Map<number, ThreadReading>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const cpu = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      threads.set(Number(tid), { cpu, minorFaults: Number(stat[7]) });
    } catch {
      // The thread ended between listing and reading: its CPU is no longer known apart.
    }
  }
  return threads;
}

const harness = (await import(path.join(import.meta.dirname, '..', 'test', 'harness.ts'))) as { startServer(options: object): Promise<Started> };
const server = await harness.startServer({ runners: 'server-default', env: { RUST_LOG: 'warn,svc_server::serve=info' }, config: { logging: { audit: { enabled: false } } } });
for (const yaml of ['name: bench\ndefault: deny\n', 'name: bench-off\ndefault: deny\ntypecheck: off\n']) {
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml } });
  if (created.status >= 300) throw new Error(`could not register the Blueprint ${JSON.stringify(yaml)}: ${created.text}`);
}
const client = executeClient(server.url, server.userToken, CLIENTS);
const pid = server.child.pid!;
let counter = 0;

async function once(checked: boolean): Promise<void> {
  const body = JSON.stringify({ blueprint: checked ? 'bench' : 'bench-off', code: `export function main() { const n = ${counter++}; return n >= 0 ? "hello" : "x"; }` });
  const json = await client.run(body);
  if (json.result !== 'hello') throw new Error(`unexpected answer ${JSON.stringify(json)}`);
}

try {
  for (const phase of PHASES) {
    const runs = phase.startsWith('warm:') ? WARM_RUNS : RUNS;
    const checked = !phase.endsWith('off');
    const before = readThreads(pid);
    let next = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < runs) {
        next++;
        await once(checked);
      }
    }));
    const after = readThreads(pid);
    if (phase.startsWith('warm:')) continue;
    let total = 0;
    const rows: string[] = [];
    for (const [tid, reading] of after) {
      const earlier = before.get(tid) ?? { cpu: 0, minorFaults: 0 };
      const us = (reading.cpu - earlier.cpu) / 1e3 / runs;
      total += us;
      if (us >= 5) rows.push(`${tid === pid ? 'main' : tid} ${us.toFixed(0)} (${((reading.minorFaults - earlier.minorFaults) / runs).toFixed(1)} faults)`);
    }
    console.log(`${phase.padEnd(6)} ${runs} runs, ${CLIENTS} clients: server ${total.toFixed(0)} us per run; by thread: ${rows.join(', ')}`);
  }
} finally {
  await client.close();
  await server.stop();
}
