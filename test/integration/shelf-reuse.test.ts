// The runner keeps as many warm isolates as it recently had runs in flight, and the
// isolates a burst gives back become the next burst's contexts. Reuse is of isolates,
// never of contexts: a burst of runs that pollute globals and built-ins, all in flight at
// once on one runner (a barrier at the far end proves it, no clock), leaves nothing that
// the next burst, again all in flight at once on the same isolates, can see.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer, type TestServer } from '../harness';

/** Runs per burst: more than the runner keeps prepared at start, so the first burst makes isolates too. */
const BURST = 20;

interface Barriers {
  port: number;
  /** Requests that arrived, by barrier name. */
  arrived: Map<string, number>;
  close(): void;
}

/** /<name> answers every waiting request of that name once BURST of them wait. */
async function barriers(): Promise<Barriers> {
  const waiting = new Map<string, http.ServerResponse[]>();
  const arrived = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    arrived.set(name, (arrived.get(name) ?? 0) + 1);
    const list = waiting.get(name) ?? [];
    list.push(res);
    waiting.set(name, list);
    if (list.length >= BURST) for (const r of list.splice(0)) r.end('met');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    arrived,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function execute(server: TestServer, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'bursts', code } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json as { result: string | null; error: { kind: string; message: string } | null; console: string[] };
}

describe('warm isolates recycled between bursts on one runner', () => {
  let server: TestServer;
  let far: Barriers;
  before(async () => {
    far = await barriers();
    server = await startServer({ args: ['--allow-localhost', '--runner-pool-size', '1', '--max-runs-in-flight', String(BURST * 2)], config: { max_execution_time: 120 } });
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: bursts\nallow_insecure_http: true\ndefault: allow\n' } });
    assert.ok(created.status < 300, created.text);
  });
  after(async () => {
    await server.stop();
    far.close();
  });

  test('a burst that pollutes globals and built-ins leaves nothing for the next burst on the same isolates', async () => {
    const pollute = (round: number) => `import * as http from "svc:http";
      let calls = 0;
      export function main() {
        calls++;
        (globalThis as any).shared = "left by burst ${round}";
        (Object.prototype as any).polluted = true;
        (Array.prototype as any).map = () => ["hijacked"];
        (JSON as any).stringify = () => "hijacked";
        (Error as any).stackTraceLimit = 0;
        console.log("a line of burst ${round}");
        // A failed run reports its console (a successful one reports none).
        throw new Error(http.get("http://127.0.0.1:${far.port}/pollute-${round}").body + " " + calls);
      }`;
    const inspect = `import * as http from "svc:http";
      export function main() {
        const met = http.get("http://127.0.0.1:${far.port}/inspect").body;
        return [met, typeof (globalThis as any).shared, typeof ({} as any).polluted, [1, 2].map((x) => x * 2).join("+"), JSON.stringify({ a: 1 }), (Error as any).stackTraceLimit].join(",");
      }`;
    // Two polluting bursts: the second runs on the isolates the first gave back.
    for (const round of [1, 2]) {
      const polluted = await Promise.all(Array.from({ length: BURST }, () => execute(server, pollute(round))));
      for (const reply of polluted) {
        assert.match(reply.error?.message ?? '', /met 1/, JSON.stringify(reply.error));
        assert.deepEqual(reply.console, [`a line of burst ${round}`]);
      }
      assert.equal(far.arrived.get(`pollute-${round}`), BURST);
    }
    const seen = await Promise.all(Array.from({ length: BURST }, () => execute(server, inspect)));
    assert.equal(far.arrived.get('inspect'), BURST);
    for (const reply of seen) {
      assert.equal(reply.error, null, JSON.stringify(reply.error));
      assert.equal(reply.result, 'met,undefined,undefined,2+4,{"a":1},10');
    }
  });
});
