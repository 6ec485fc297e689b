// Varied recorded runs for replay checks (test/integration/journal-replays.test.ts and
// bench/replays.ts): programs that read clocks and randomness, wait on timers, fan out
// fetches and svc:http/async calls, call an @mcp tool, and fail or catch failures, each
// against a loopback far end and an MCP stand-in, then replayed offline from their tapes.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RunnerPool } from '../../sandbox';
import { readTape, replayTape } from '../../src/journal';
import { startServer, type TestServer } from '../harness';
import { startMcpUpstream, upstreamServerOptions, type McpUpstream } from './mcp-upstream';

export interface VariedRig {
  server: TestServer;
  /** The program of run `i` (the kinds rotate; the numbers vary with i). */
  program(i: number): string;
  /** Records `count` runs (`parallel` at once) and replays each tape; returns the mismatches' descriptions. */
  recordAndReplay(count: number, parallel: number): Promise<{ replayed: number; mismatches: string[]; kinds: Record<string, number> }>;
  stop(): Promise<void>;
}

const KINDS = ['timers', 'fan-out', 'random', 'errors', 'mcp', 'mixed'] as const;

/**
 * `typecheck: 'off'` registers the Blueprint unchecked (types stripped): a test about replays
 * then does not pay for a type checker (about 1 CPU-s to load, then each of the 60 programs).
 * The benchmark keeps the default, as an operator's Blueprint has it.
 */
export async function startVariedRig(options: { typecheck?: 'off' } = {}): Promise<VariedRig> {
  const far = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    // Answers in an order of their own (some later than others), so completions interleave.
    setTimeout(() => res.end(`far ${req.url}`), (req.url?.length ?? 0) % 3);
  });
  await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
  const port = (far.address() as AddressInfo).port;
  const upstream: McpUpstream = await startMcpUpstream({
    host: 'mcp.replay-example.com',
    tools: [{ name: 'add', call: (args) => ({ content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] }) }],
  });
  const network = upstreamServerOptions(upstream);
  const server = await startServer({ runners: 1, args: network.args, env: network.env, config: { logging: { audit: { enabled: false } } }, timeoutMs: 60_000 });
  const created = await server.request('POST', '/v1/blueprints', {
    body: { yaml: `name: varied\nallow_insecure_http: true\ndefault: allow\n${options.typecheck ? `typecheck: ${options.typecheck}\n` : ''}mcp:\n  calc:\n    url: ${upstream.url}\n` },
  });
  assert.ok(created.status < 300, created.text);
  const url = `http://127.0.0.1:${port}`;

  const program = (i: number): string => {
    const kind = KINDS[i % KINDS.length];
    const n = 1 + (i % 5);
    switch (kind) {
      case 'timers':
        return `export async function main() {
  const order: number[] = [];
  await Promise.all(Array.from({ length: ${n + 1} }, (_, k) => new Promise<void>((resolve) => setTimeout(() => { order.push(k); resolve(); }, (k * ${i % 7}) % 4))));
  const tick = await new Promise<number>((resolve) => { let c = 0; const t = setInterval(() => { if (++c === ${n}) { clearInterval(t); resolve(c); } }, 1); });
  console.log("timers", order.join(","), tick, Date.now() > 0);
  return { order, tick, at: performance.now() >= 0 };
}`;
      case 'fan-out':
        return `import * as httpAsync from "svc:http/async";
export async function main() {
  const viaFetch = await Promise.all(Array.from({ length: ${n + 2} }, (_, k) => fetch("${url}/f${i}-" + "x".repeat(k)).then((r) => r.text())));
  const viaHttp = await Promise.all(Array.from({ length: ${n} }, (_, k) => httpAsync.get("${url}/h${i}-" + k)));
  return { viaFetch, statuses: viaHttp.map((r) => r.status) };
}`;
      case 'random':
        return `export function main() {
  const rolls = Array.from({ length: ${n * 3} }, () => Math.floor(Math.random() * 1000));
  const bytes = [...crypto.getRandomValues(new Uint8Array(${n}))];
  const ids = Array.from({ length: ${n} }, () => crypto.randomUUID());
  const stamp = new Date().toISOString().length;
  console.log("rolled", rolls.length);
  return { rolls, bytes, ids, stamp, d: Date() !== "" };
}`;
      case 'errors':
        return `export async function main() {
  const seen: string[] = [];
  try { await fetch("http://127.0.0.1:1/refused-${i}"); } catch (error) { seen.push(String(error.name)); }
  try { JSON.parse("{${i}"); } catch (error) { seen.push(String(error.name)); }
  console.log("seen", seen.join(" "));
  if (${i % 12 === 3}) throw new Error("failing on purpose " + Math.random().toString().length);
  return seen;
}`;
      case 'mcp':
        return `import calc from "@mcp/calc/async";
export async function main() {
  const sums = await Promise.all(Array.from({ length: ${n} }, (_, k) => calc.add({ a: k, b: ${i} })));
  return sums;
}`;
      default:
        return `export async function main() {
  const started = Date.now();
  const first = await fetch("${url}/m${i}").then((r) => r.text());
  await new Promise((resolve) => setTimeout(resolve, ${i % 3}));
  const roll = Math.random();
  const late = Date.now() - started >= 0;
  console.log(first, roll < 1, late);
  return { first, roll, late };
}`;
    }
  };

  const execute = async (code: string) => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'varied', code } });
    assert.equal(reply.status, 200, reply.text);
    return reply.json;
  };

  return {
    server,
    program,
    async recordAndReplay(count, parallel) {
      const ids: string[] = new Array(count);
      let next = 0;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (next < count) {
            const i = next++;
            ids[i] = (await execute(program(i))).execution_id;
          }
        }),
      );
      const pool = new RunnerPool({ size: 1, memoryMb: 64 });
      await pool.start();
      const mismatches: string[] = [];
      const kinds: Record<string, number> = {};
      try {
        let cursor = 0;
        await Promise.all(
          Array.from({ length: parallel }, async () => {
            while (cursor < count) {
              const i = cursor++;
              const reply = await server.request('GET', `/v1/runs/${ids[i]}/tape`, { token: server.userToken });
              assert.equal(reply.status, 200, reply.text);
              const verdict = await replayTape(readTape(reply.json), pool);
              if (!verdict.matches) mismatches.push(`run ${i} (${KINDS[i % KINDS.length]}): ${verdict.difference}`);
              for (const entry of reply.json.journal) kinds[entry.kind] = (kinds[entry.kind] ?? 0) + 1;
            }
          }),
        );
      } finally {
        await pool.stop();
      }
      return { replayed: count, mismatches, kinds };
    },
    async stop() {
      await server.stop();
      await upstream.close();
      await new Promise<void>((resolve) => far.close(() => resolve()));
    },
  };
}
