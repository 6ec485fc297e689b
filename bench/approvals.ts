// Runs parked on approvals (issue 38): RUNS one-off runs (BENCH_APPROVAL_RUNS, default 1000;
// smaller on a loaded machine) each make one ask-human fetch on one server (the default
// pool); every run must be listed as pending and parked with no isolate (svc_runs_parked),
// then each is approved and every run must complete with the far end's answer (resumed
// from its journal). The runs start BATCH at a time (BENCH_APPROVAL_BATCH, default 50), the
// next batch once the last one is parked, as a client that keeps some runs going would:
// 1,000 starts at once made the machine compile and run 1,000 isolates at the same moment
// (it did not finish in 13 min on a loaded 2-core machine). Printed: the memory per waiting
// run (RSS with them all waiting minus idle, divided by RUNS), for the server and its
// runners apart; the same after every run ended (what a burst leaves behind, not what the
// waiting runs hold); and how long parking and completing them took. Never asserted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startServer, type TestServer } from '../test/harness';
import fs from 'node:fs';
import { childPids } from './proc';

/** Resident memory of one process (0 once it has ended). */
function ownRss(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of the server process and, apart, of its runners (and other children). */
function memoryOf(pid: number): { server: number; runners: number } {
  return { server: ownRss(pid), runners: childPids(pid).reduce((sum, child) => sum + ownRss(child), 0) };
}

const RUNS = Number(process.env.BENCH_APPROVAL_RUNS ?? 1000);
/** Listings show at most 500: the runs are spread over Blueprints of at most that many each. */
const PER_BLUEPRINT = 500;
/** Runs started at once; the next ones once these are parked. */
const BATCH = Math.max(1, Number(process.env.BENCH_APPROVAL_BATCH ?? 50));
const MiB = 1048576;

async function parkedOf(server: TestServer): Promise<number> {
  const line = (await server.request('GET', '/metrics')).text.split('\n').find((l) => l.startsWith('svc_runs_parked '));
  return line ? Number(line.split(' ')[1]) : 0;
}

async function pendingOf(server: TestServer, blueprints: string[]): Promise<Array<{ approval_id: string }>> {
  const lists = await Promise.all(blueprints.map(async (name) => (await server.request('GET', `/v1/approvals?blueprint=${name}`)).json?.approvals ?? []));
  return lists.flat();
}

export async function measureApprovals(): Promise<Record<string, string>> {
  const far = http.createServer((req, res) => res.end(`ok ${req.url}`));
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  const port = (far.address() as AddressInfo).port;
  const server = await startServer({
    runners: 'server-default',
    args: ['--allow-localhost'],
    config: { logging: { audit: { enabled: false } }, max_runs_in_flight: RUNS + 16, max_runs_in_flight_per_token: RUNS + 16, max_connections_per_address: RUNS * 4, max_unauthenticated_connections: RUNS * 2, max_execution_memory: 16 },
  });
  try {
    const pid = server.child.pid!;
    const blueprints = Array.from({ length: Math.ceil(RUNS / PER_BLUEPRINT) }, (_, i) => `approve${i}`);
    for (const name of blueprints) {
      await server.request('POST', '/v1/blueprints', { body: { yaml: `name: ${name}\nallow_insecure_http: true\ndefault: allow\npermissions:\n  main:\n    - capability: http.post\n      action: ask-human\n` } });
    }
    // A warm-up run, so the idle figure includes started runners and a compiled program.
    await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: blueprints[0], code: 'export function main() { return 1; }' } });
    await sleep(1000);
    const idle = memoryOf(pid);
    const started = performance.now();
    // The runs' answers come only after the approvals, minutes later on a loaded machine: no client timeout.
    const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: RUNS + 8 });
    const start = async (i: number) => {
      const body = JSON.stringify({ blueprint: blueprints[Math.floor(i / PER_BLUEPRINT)], code: `export async function main() { return await (await fetch("http://127.0.0.1:${port}/pay/${i}", { method: "POST", body: "x" })).text(); }` });
      const reply = await request(`${server.url}/v1/execute`, { method: 'POST', headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' }, body, dispatcher: patient });
      return { json: (await reply.body.json()) as { result?: string } };
    };
    const runs: Array<Promise<{ json: { result?: string } }>> = [];
    let parked = 0;
    for (let first = 0; first < RUNS; first += BATCH) {
      for (let i = first; i < Math.min(RUNS, first + BATCH); i++) runs.push(start(i));
      for (let attempt = 0; attempt < 2400 && parked < runs.length; attempt++) {
        await sleep(100);
        parked = await parkedOf(server);
      }
      // Progress on stderr: a batch that does not park shows here, not only in the final table.
      process.stderr.write(`approvals bench: ${parked}/${runs.length} parked after ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    }
    let pending = await pendingOf(server, blueprints);
    for (let attempt = 0; attempt < 100 && pending.length < RUNS; attempt++) {
      await sleep(100);
      pending = await pendingOf(server, blueprints);
    }
    const parkedMs = performance.now() - started;
    // The isolates the parked runs left are collected: the figure is what waiting runs hold.
    await sleep(2000);
    const waiting = memoryOf(pid);
    const answering = performance.now();
    for (let i = 0; i < pending.length; i += 50) {
      await Promise.all(pending.slice(i, i + 50).map((a) => server.request('POST', `/v1/approvals/${a.approval_id}`, { body: { decision: 'approve' } })));
    }
    const results = await Promise.all(runs);
    await patient.close();
    const completedMs = performance.now() - answering;
    await sleep(2000);
    const after = memoryOf(pid);
    const ok = results.filter((r, i) => r.json?.result === `ok /pay/${i}`).length;
    const perRun = (part: 'server' | 'runners', at: { server: number; runners: number }) => `${((at[part] - idle[part]) / RUNS / MiB).toFixed(2)} (idle ${(idle[part] / MiB).toFixed(0)}, now ${(at[part] / MiB).toFixed(0)})`;
    return {
      [`${RUNS} runs parked on approvals at once, started ${BATCH} at a time (listed as pending / parked with no isolate)`]: `${pending.length}/${RUNS} / ${parked}/${RUNS} in ${(parkedMs / 1000).toFixed(1)} s`,
      [`memory per run waiting for approval, all ${RUNS} waiting: (RSS - idle) / ${RUNS} (MiB), server and runners together`]: `${((waiting.server + waiting.runners - idle.server - idle.runners) / RUNS / MiB).toFixed(2)}`,
      [`... the server process alone (MiB)`]: perRun('server', waiting),
      [`... its runners (the memory their ended isolates used, not yet given back) (MiB)`]: perRun('runners', waiting),
      [`... approved 50 at a time, completed with the far end's answer (resumed from the journal)`]: `${ok}/${RUNS} in ${(completedMs / 1000).toFixed(1)} s`,
      [`after every run ended, (RSS - idle) / ${RUNS} (MiB): what the burst left, not held by waiting runs (server / runners)`]: `${perRun('server', after)} / ${perRun('runners', after)}`,
    };
  } finally {
    await server.stop();
    far.closeAllConnections();
    far.close();
  }
}
