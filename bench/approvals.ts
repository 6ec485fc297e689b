// Runs parked on approvals (issue 38): RUNS one-off runs (BENCH_APPROVAL_RUNS, default 1000;
// smaller on a loaded machine) each make one ask-human fetch on one server (the default
// pool); every run must be listed as pending and parked with no isolate (svc_runs_parked),
// then each is approved and every run must complete with the far end's answer (resumed
// from its journal). Printed: the memory per waiting run (RSS of the server and runners
// with them all waiting, minus idle, divided by RUNS), and how long parking and completing
// them took. Never asserted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { startServer, type TestServer } from '../test/harness';
import fs from 'node:fs';
import { rssOf } from './proc';

/** Resident memory of the server process alone (its runners left out). */
function ownRss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

const RUNS = Number(process.env.BENCH_APPROVAL_RUNS ?? 1000);
/** Listings show at most 500: the runs are spread over Blueprints of at most that many each. */
const PER_BLUEPRINT = 500;

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
    const blueprints = Array.from({ length: Math.ceil(RUNS / PER_BLUEPRINT) }, (_, i) => `approve${i}`);
    for (const name of blueprints) {
      await server.request('POST', '/v1/blueprints', { body: { yaml: `name: ${name}\nallow_insecure_http: true\ndefault: allow\npermissions:\n  main:\n    - capability: http.post\n      action: ask-human\n` } });
    }
    // A warm-up run, so the idle figure includes started runners and a compiled program.
    await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: blueprints[0], code: 'export function main() { return 1; }' } });
    await sleep(1000);
    const idle = rssOf(server.child.pid!);
    const idleServer = ownRss(server.child.pid!);
    const started = performance.now();
    // The runs' answers come only after the approvals, minutes later on a loaded machine: no client timeout.
    const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
    const runs = Array.from({ length: RUNS }, async (_, i) => {
      const body = JSON.stringify({ blueprint: blueprints[Math.floor(i / PER_BLUEPRINT)], code: `export async function main() { return await (await fetch("http://127.0.0.1:${port}/pay/${i}", { method: "POST", body: "x" })).text(); }` });
      const reply = await request(`${server.url}/v1/execute`, { method: 'POST', headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' }, body, dispatcher: patient });
      return { json: (await reply.body.json()) as { result?: string } };
    });
    let pending: Array<{ approval_id: string }> = [];
    let parked = 0;
    for (let attempt = 0; attempt < 2400 && (pending.length < RUNS || parked < RUNS); attempt++) {
      await sleep(250);
      pending = await pendingOf(server, blueprints);
      parked = await parkedOf(server);
    }
    const parkedMs = performance.now() - started;
    // The isolates the parked runs left are collected: the figure is what waiting runs hold.
    await sleep(2000);
    const waiting = rssOf(server.child.pid!);
    const waitingServer = ownRss(server.child.pid!);
    const answering = performance.now();
    for (let i = 0; i < pending.length; i += 50) {
      await Promise.all(pending.slice(i, i + 50).map((a) => server.request('POST', `/v1/approvals/${a.approval_id}`, { body: { decision: 'approve' } })));
    }
    const results = await Promise.all(runs);
    await patient.close();
    const completedMs = performance.now() - answering;
    const ok = results.filter((r, i) => r.json?.result === `ok /pay/${i}`).length;
    return {
      [`${RUNS} runs parked on approvals at once (listed as pending / parked with no isolate)`]: `${pending.length}/${RUNS} / ${parked}/${RUNS} in ${(parkedMs / 1000).toFixed(1)} s`,
      [`memory per run waiting for approval: (RSS with ${RUNS} waiting - idle) / ${RUNS} (MiB)`]: `${((waiting - idle) / RUNS / 1048576).toFixed(2)} (idle ${(idle / 1048576).toFixed(0)}, waiting ${(waiting / 1048576).toFixed(0)})`,
      [`... of which the server process alone (the runners keep what their ended isolates used) (MiB)`]: `${((waitingServer - idleServer) / RUNS / 1048576).toFixed(2)} (idle ${(idleServer / 1048576).toFixed(0)}, waiting ${(waitingServer / 1048576).toFixed(0)})`,
      [`... approved one by one (50 at a time), completed with the far end's answer`]: `${ok}/${RUNS} in ${(completedMs / 1000).toFixed(1)} s`,
    };
  } finally {
    await server.stop();
    far.closeAllConnections();
    far.close();
  }
}
