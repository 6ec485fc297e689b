// `node --no-node-snapshot --import tsx bench/attacks.ts`: how long `/healthz` waits while one
// hostile request is in flight (issue 25, "one request stalls the server"). For each attack
// it sends the request and, until its answer arrives, asks `/healthz` one request after the
// other; it prints the worst and median health latency, how many health answers came back
// during the attack, and the attack's own status and time. Numbers are printed, never
// asserted (the machine may be shared: compare runs made back to back).
import { Agent, request } from 'undici';
import { startServer, type TestServer } from '../test/harness';

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
  const started = process.hrtime.bigint();
  let done = false;
  const attack = request(`${server.url}/v1/execute`, { method: 'POST', headers, body: JSON.stringify({ blueprint: 'attacks', code }), dispatcher }).then(async (response) => {
    const text = await response.body.text();
    done = true;
    return { status: response.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, kind: (JSON.parse(text) as { error?: { kind?: string } | null }).error?.kind ?? 'ok' };
  });
  const latencies: number[] = [];
  const healthFailures: string[] = [];
  while (!done) {
    const at = process.hrtime.bigint();
    try {
      const health = await request(`${server.url}/healthz`, { dispatcher });
      await health.body.text();
    } catch (error) {
      // A stalled server may drop the connection: the wait until then still counts.
      healthFailures.push((error as Error).message);
    }
    // Every health request started while the attack was in flight counts, answered or reset.
    latencies.push(Number(process.hrtime.bigint() - at) / 1e6);
  }
  const result = await attack.catch((error: Error) => ({ status: 'failed', ms: Number(process.hrtime.bigint() - started) / 1e6, kind: error.message }));
  latencies.sort((a, b) => a - b);
  return {
    'healthz worst ms': latencies.length ? latencies[latencies.length - 1].toFixed(1) : 'none answered',
    'healthz p50 ms': median(latencies).toFixed(1),
    'healthz answers': latencies.length,
    'healthz failures': healthFailures.length ? `${healthFailures.length} (${healthFailures[0]})` : 0,
    'attack status': `${result.status} ${result.kind}`,
    'attack ms': result.ms.toFixed(0),
  };
}

async function main(): Promise<void> {
  const server = await startServer({ env: { RUST_LOG: 'warn,svc_server::serve=info' } });
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 4 });
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: attacks\n' } });
    if (created.status >= 300) throw new Error(`could not register the Blueprint: ${created.text}`);
    // Warm: the first run of a server pays for loading.
    await measure(server, 'export function main() { return 1; }', dispatcher);
    const rows: Record<string, Record<string, string | number>> = {};
    for (const [name, code] of Object.entries(ATTACKS)) {
      try {
        rows[name] = await measure(server, code, dispatcher);
      } catch (error) {
        rows[name] = { 'attack status': `failed: ${(error as Error).message}` };
      }
    }
    console.table(rows);
  } finally {
    await dispatcher.close();
    await server.stop();
  }
}

await main();
