// CPU fairness across tokens (issue 26): the latency of token B's brief run while token A
// runs 8 runaway loops, with CPU slots (max_computing_runs, the default) and without them
// (max_computing_runs 4096: every run computes at once, as before slots). Printed, never asserted.
import os from 'node:os';
import { startServer, type TestServer } from '../test/harness';

const RUNAWAYS = 8;
const SAMPLES = 10;
const BRIEF = 'export function main() { let sum = 0; for (let i = 0; i < 200000; i++) sum += i % 7; return sum; }';

async function execute(server: TestServer, token: string, code: string): Promise<void> {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint: 'fair', code } });
  const body = reply.json as { error: { message: string } | null };
  if (reply.status !== 200 || body.error) throw new Error(`bench run failed: ${reply.text}`);
}

async function gauge(server: TestServer, name: string): Promise<number> {
  const text = (await server.request('GET', '/metrics')).text;
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

/** Median latency (ms) of B's brief run, sequential, with `runaways` of A's loops in flight. */
async function briefLatency(slots: string[], runaways: number): Promise<number> {
  const server = await startServer({ runners: 'server-default', args: slots, env: { RUST_LOG: 'warn,svc_server::serve=info' }, config: { max_execution_time: 600, logging: { audit: { enabled: false } } } });
  try {
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: fair\ndefault: allow\n' } });
    await execute(server, server.userToken, BRIEF);
    const loops = Array.from({ length: runaways }, () => server.request('POST', '/v1/execute', { token: server.adminToken, body: { blueprint: 'fair', code: 'export function main() { for (;;) {} }' } }).catch(() => null));
    while ((await gauge(server, 'svc_runs_computing')) + (await gauge(server, 'svc_runs_waiting_for_cpu')) < runaways) await new Promise((resolve) => setTimeout(resolve, 20));
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      await execute(server, server.userToken, BRIEF);
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    await server.stop();
    await Promise.all(loops);
    return samples[Math.floor(samples.length / 2)];
  } finally {
    await server.stop();
  }
}

export async function measureFairness(): Promise<Record<string, string>> {
  const alone = await briefLatency([], 0);
  const without = await briefLatency(['--max-computing-runs', '4096'], RUNAWAYS);
  // Slots at one per core, as an operator hosting many tenants would set them (the default,
  // eight per core, keeps compute throughput and lets a token's first 16 loops all compute).
  const perCore = await briefLatency(['--max-computing-runs', String(Math.max(2, os.availableParallelism()))], RUNAWAYS);
  const withSlots = await briefLatency([], RUNAWAYS);
  return {
    "token B's brief run alone, p50 (ms)": alone.toFixed(1),
    [`... while token A runs ${RUNAWAYS} runaway loops, no CPU slots (before; ms, ratio)`]: `${without.toFixed(1)} (${(without / alone).toFixed(1)}x)`,
    [`... while token A runs ${RUNAWAYS} runaway loops, one CPU slot per core (ms, ratio)`]: `${perCore.toFixed(1)} (${(perCore / alone).toFixed(1)}x)`,
    [`... while token A runs ${RUNAWAYS} runaway loops, CPU slots by default (ms, ratio)`]: `${withSlots.toFixed(1)} (${(withSlots / alone).toFixed(1)}x)`,
  };
}
