// One tenant's crashes are not another's (issue 36): token A loops the allocation attack
// (`new Array(2e8).fill(0)`, which V8 cannot interrupt and which takes its runner down)
// while token B keeps sending short runs; prints the share of B's runs that succeed with
// the right answer, how many runners were replaced, and how A's runs ended. Counts, not
// clocks: the measurement lasts until A has sent its attacks. Printed, never asserted.
// `BENCH_ONLY=tenancy npm run bench`.
import { startServer, type TestServer } from '../test/harness';

const ATTACKS = 12;
const ATTACKERS = 2;
const VICTIMS = 4;
const ATTACK = 'export function main() { return new Array(2e8).fill(0).length; }';
// Some computing, one timer: B's runs are in flight when a runner goes down.
const VICTIM = 'export async function main() { let sum = 0; for (let i = 0; i < 300000; i++) sum += i % 7; await new Promise((r) => setTimeout(r, 20)); return sum; }';
const VICTIM_ANSWER = String(Array.from({ length: 300000 }, (_, i) => i % 7).reduce((a, b) => a + b, 0));

async function counter(server: TestServer, name: string): Promise<number> {
  const text = (await server.request('GET', '/metrics')).text;
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)$`, 'gm'))) sum += Number(match[1]);
  return sum;
}

async function execute(server: TestServer, token: string, code: string): Promise<{ ok: boolean; result: string | null; kind: string; message: string }> {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint: 'tenancy', code } });
  const body = reply.json as { result: string | null; error: { kind: string; message: string } | null } | null;
  if (reply.status !== 200 || !body) return { ok: false, result: null, kind: `HTTP ${reply.status}`, message: reply.text.slice(0, 200) };
  return { ok: body.error === null, result: body.result, kind: body.error?.kind ?? 'ok', message: body.error?.message.split('\n')[0] ?? '' };
}

export async function measureTenancy(): Promise<Record<string, string>> {
  const server = await startServer({ runners: 'server-default', env: { RUST_LOG: 'warn,svc_server::serve=info' }, config: { max_execution_time: 60, logging: { audit: { enabled: false } } } });
  try {
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: tenancy\ndefault: allow\n' } });
    await execute(server, server.userToken, VICTIM);
    const restartsBefore = await counter(server, 'svc_runner_restarts_total');
    let attacking = true;
    const attackKinds = new Map<string, number>();
    let sent = 0;
    const attackers = Array.from({ length: ATTACKERS }, async () => {
      while (sent < ATTACKS) {
        sent++;
        const outcome = await execute(server, server.adminToken, ATTACK);
        attackKinds.set(outcome.kind, (attackKinds.get(outcome.kind) ?? 0) + 1);
      }
    });
    let victimRuns = 0;
    let victimOk = 0;
    const failures = new Map<string, number>();
    const victims = Array.from({ length: VICTIMS }, async () => {
      while (attacking) {
        const outcome = await execute(server, server.userToken, VICTIM);
        victimRuns++;
        if (outcome.ok && outcome.result === VICTIM_ANSWER) victimOk++;
        else failures.set(`${outcome.kind}: ${outcome.message}`, (failures.get(`${outcome.kind}: ${outcome.message}`) ?? 0) + 1);
      }
    });
    await Promise.all(attackers);
    attacking = false;
    await Promise.all(victims);
    const restarts = (await counter(server, 'svc_runner_restarts_total')) - restartsBefore;
    return {
      [`token B's runs that succeeded while token A ran ${ATTACKS} allocation attacks`]: `${victimOk}/${victimRuns} (${((100 * victimOk) / Math.max(1, victimRuns)).toFixed(1)} %)`,
      "... token B's failures": failures.size === 0 ? 'none' : [...failures].map(([what, n]) => `${n}x ${what}`).join('; ').slice(0, 400),
      "... token A's attacks ended as": [...attackKinds].map(([kind, n]) => `${n}x ${kind}`).join(', '),
      '... runners replaced': String(restarts),
    };
  } finally {
    await server.stop();
  }
}

const LARGE_RESULTS = 30;
const LARGE = 'export function main() { return "x".repeat(15_000_000); }';
const BRIEF = 'export function main() { return 1; }';

/**
 * Token B's brief runs, one after the other, while token A's 30 runs each return a 15 MB
 * result at once (one runner, so they share its main thread): B's worst and median latency.
 */
export async function measureLargeResults(): Promise<Record<string, string>> {
  const server = await startServer({ runners: 1, env: { RUST_LOG: 'warn,svc_server::serve=info' }, config: { max_execution_time: 120, logging: { audit: { enabled: false } } } });
  try {
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: tenancy\ndefault: allow\n' } });
    await execute(server, server.userToken, BRIEF);
    const alone: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await execute(server, server.userToken, BRIEF);
      alone.push(performance.now() - started);
    }
    let done = 0;
    const started = performance.now();
    const large = Array.from({ length: LARGE_RESULTS }, () => execute(server, server.adminToken, LARGE).then((outcome) => {
      done++;
      return outcome.ok && outcome.result?.length === 15_000_000;
    }));
    const during: number[] = [];
    let briefOk = 0;
    const health: number[] = [];
    const probing = (async () => {
      while (done < LARGE_RESULTS) {
        const at = performance.now();
        await server.request('GET', '/healthz');
        health.push(performance.now() - at);
      }
    })();
    while (done < LARGE_RESULTS) {
      const at = performance.now();
      const outcome = await execute(server, server.userToken, BRIEF);
      if (outcome.ok && outcome.result === '1') briefOk++;
      during.push(performance.now() - at);
    }
    const correct = (await Promise.all(large)).filter(Boolean).length;
    await probing;
    const burstMs = performance.now() - started;
    alone.sort((a, b) => a - b);
    during.sort((a, b) => a - b);
    return {
      "token B's brief run alone, p50 (ms)": alone[5].toFixed(1),
      [`... while token A's ${LARGE_RESULTS} runs return 15 MB results at once: right, p50 / worst (ms)`]: `${briefOk}/${during.length}, ${during[Math.floor(during.length / 2)].toFixed(1)} / ${during[during.length - 1].toFixed(1)}`,
      [`... token A's ${LARGE_RESULTS} large results: right / total time (ms)`]: `${correct} / ${burstMs.toFixed(0)}`,
      // The server's own event loop (parsing the reports, encoding the responses) is the other part of B's wait.
      '... the server\'s /healthz meanwhile, worst (ms)': Math.max(...health).toFixed(1),
    };
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = process.env.BENCH_TENANCY_ONLY === 'large' ? await measureLargeResults() : { ...(await measureTenancy()), ...(await measureLargeResults()) };
  for (const [name, value] of Object.entries(rows)) console.log(`${name}: ${value}`);
}
