// Runs that wait hold no runner: many runs are in flight at once in a few runner
// processes. Proven without clocks: a loopback far end answers only once N requests are
// waiting on it (a barrier), so the runs complete only if they really overlap.
// Tests with the same settings share one server (started on first use).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { listTree, startServer, type TestServer } from '../harness';
import { execute as executeIn, openSession, sessionDir } from '../support/sessions';
import { eventually } from '../support/wait';

interface FarEnd {
  port: number;
  /** Paths of the requests that arrived, in order. */
  hits: string[];
  /** Requests whose connection closed before they were answered. */
  closedEarly: number;
  /** Answers every waiting /barrier request once `size` of them wait. */
  barrier(size: number): void;
  /** Answers every request held at /hold. */
  releaseHeld(): void;
  close(): void;
}

/** /barrier/<id> waits for the barrier; /hold waits until released; /when-held answers once a request waits at /hold. */
async function farEnd(): Promise<FarEnd> {
  let size = Infinity;
  const waiting: http.ServerResponse[] = [];
  const held: http.ServerResponse[] = [];
  const whenHeld: http.ServerResponse[] = [];
  const far: FarEnd = {
    port: 0,
    hits: [],
    closedEarly: 0,
    barrier(n) {
      size = n;
    },
    releaseHeld() {
      for (const res of held.splice(0)) res.end('released');
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    far.hits.push(url);
    res.on('close', () => {
      if (!res.writableFinished) far.closedEarly++;
    });
    if (url.startsWith('/barrier')) {
      waiting.push(res);
      if (waiting.length >= size) for (const r of waiting.splice(0)) r.end(`met ${size}`);
      return;
    }
    if (url.startsWith('/hold')) {
      held.push(res);
      for (const r of whenHeld.splice(0)) r.end('held');
      return;
    }
    if (url.startsWith('/when-held')) {
      if (held.length > 0) res.end('held');
      else whenHeld.push(res);
      return;
    }
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  far.port = (server.address() as AddressInfo).port;
  return far;
}

// typecheck: off (types stripped, not checked): the programs here are about concurrency, and each
// of the file's servers would load a type checker for them (about 1 CPU-s).
const BLUEPRINT = 'name: waits\nallow_insecure_http: true\ndefault: allow\ntypecheck: off\n';

const servers = new Map<string, Promise<TestServer>>();
after(async () => Promise.all([...servers.values()].map(async (server) => (await server).stop())));

/** The file's server with these arguments and settings (and the Blueprint `waits`), started on first use. */
function serverWith(args: string[], config: Record<string, unknown>): Promise<TestServer> {
  const key = JSON.stringify([args, config]);
  if (!servers.has(key)) {
    servers.set(key, (async () => {
      const server = await startServer({ args: ['--allow-localhost', ...args], config });
      await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
      return server;
    })());
  }
  return servers.get(key)!;
}

/** Two runners (the server's default), many runs each, a long time limit. */
const roomy = () => serverWith(['--runner-pool-size', '2'], { max_execution_time: 120 });
/** One run in flight, one queued, two host calls in flight per run: one runner. */
const cramped = () => serverWith(['--max-runs-in-flight', '1', '--max-queued-runs', '1', '--runner-pool-size', '1'], { max_execution_time: 120, max_host_calls_in_flight: 2 });
/** A 1 s time limit, two runners of four runs each. */
const limited = () => serverWith(['--runner-pool-size', '2', '--runs-per-runner', '4'], { max_execution_time: 1 });

/** Waits for a condition of this process (the far end's counters): a pause between looks instead of a busy loop. */
const until = (what: string, condition: () => boolean | Promise<boolean>) => eventually(what, condition, { intervalMs: 10, attempts: 6000 });

async function execute(server: TestServer, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'waits', code } });
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  return reply.json as { result: string | null; error: { kind: string; message: string } | null; execution_id: string };
}

/** Runs waiting for admission, as the server's metrics say. */
async function queueDepth(server: TestServer): Promise<number> {
  const reply = await server.request('GET', '/metrics');
  return Number(/^svc_runner_queue_depth (\d+)$/m.exec(reply.text)?.[1] ?? 0);
}

const waitAt = (port: number, path: string) => `import * as http from "svc:http";\nexport function main() { return http.get("http://127.0.0.1:${port}${path}").body; }`;

describe('many runs per runner', () => {
  let far: FarEnd;
  before(async () => {
    far = await farEnd();
  });
  after(() => far.close());

  test('six runs, each waiting on the far end, complete together on two runners (a barrier of six)', async () => {
    const server = await roomy();
    far.barrier(6);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => execute(server, waitAt(far.port, `/barrier/${i}`))));
    for (const result of results) assert.deepEqual([result.error, result.result], [null, 'met 6']);
  });

  test('sixteen runs in flight together, one of them with sixteen async calls, leave no listener-leak warning on the server', async () => {
    const server = await roomy();
    far.barrier(31);
    const fanOut = `import * as http from "svc:http/async";\nexport async function main() { const r = await Promise.all(Array.from({ length: 16 }, (_, i) => http.get("http://127.0.0.1:${far.port}/barrier/a" + i))); return r.length; }`;
    const results = await Promise.all([execute(server, fanOut), ...Array.from({ length: 15 }, (_, i) => execute(server, waitAt(far.port, `/barrier/r${i}`)))]);
    for (const result of results) assert.equal(result.error, null);
    assert.equal(results[0].result, '16');
    assert.doesNotMatch(server.stderr(), /MaxListenersExceededWarning/);
  });

  test('a full queue answers at once with the limit and the setting; the queued and running runs still finish', async () => {
    const server = await cramped();
    const before = far.hits.length;
    const running = execute(server, waitAt(far.port, '/hold/1'));
    // The first run is in flight once the far end holds its request.
    await until('the first run to reach the far end', () => far.hits.length > before);
    const queued = execute(server, 'export function main() { return "queued ran"; }');
    await until('a run waiting for admission', async () => (await queueDepth(server)) >= 1);
    const refused = await execute(server, 'export function main() { return "never"; }');
    assert.equal(refused.result, null);
    assert.equal(refused.error?.kind, 'runtime_error');
    assert.match(refused.error?.message ?? '', /at capacity.*max_queued_runs 1.*raise max_queued_runs or max_runs_in_flight/);
    far.releaseHeld();
    assert.equal((await running).result, 'released');
    assert.equal((await queued).result, 'queued ran');
  });

  // A small memory limit: Array(2e8).fill reaches 16 MB much sooner than the default 50.
  test('runs_per_runner 1: a run that hangs its runner natively ends as memory_exhausted; a waiting run on the other runner is untouched', async () => {
    const server = await startServer({ args: ['--allow-localhost', '--runner-pool-size', '2', '--runs-per-runner', '1', '--max-execution-memory', '16'], config: { max_execution_time: 120 } });
    try {
      await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
      const before = far.hits.length;
      const waiting = execute(server, waitAt(far.port, '/hold/2'));
      await until('the waiting run to reach the far end', () => far.hits.length > before);
      const hang = await execute(server, 'export function main() { const a = Array(2e8).fill(0); return a.length; }');
      assert.equal(hang.error?.kind, 'memory_exhausted');
      far.releaseHeld();
      assert.deepEqual(await waiting, { ...(await waiting), error: null, result: 'released' });
    } finally {
      await server.stop();
    }
  });
});

describe('asynchronous host calls inside one program', () => {
  let far: FarEnd;
  let server: TestServer;
  before(async () => {
    far = await farEnd();
    server = await roomy();
  });
  after(() => far.close());

  test('eight fetches in Promise.all are in flight together (a barrier of eight)', async () => {
    far.barrier(8);
    const result = await execute(server, `export async function main() {
      const texts = await Promise.all(Array.from({ length: 8 }, (_, i) => fetch("http://127.0.0.1:${far.port}/barrier/f" + i).then((r) => r.text())));
      return texts;
    }`);
    assert.equal(result.error, null);
    assert.deepEqual(JSON.parse(result.result ?? 'null'), Array(8).fill('met 8'));
  });

  test('svc:http/async: eight requests in Promise.all are in flight together, with the same decision records as svc:http', async () => {
    far.barrier(8);
    const result = await execute(server, `import * as http from "svc:http/async";
    export async function main() {
      const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => http.get("http://127.0.0.1:${far.port}/barrier/h" + i)));
      return replies.map((r) => [r.status, r.ok, r.body]);
    }`);
    assert.equal(result.error, null);
    assert.deepEqual(JSON.parse(result.result ?? 'null'), Array(8).fill([200, true, 'met 8']));
  });

  test('svc:http/async: a refused request rejects with the error and the decision record of svc:http', async () => {
    const outcome = async (module: string, call: string) => {
      const result = await execute(server, `import * as http from "${module}";
      export async function main() { try { ${call}; return "sent"; } catch (e) { return e.name + ": " + e.message; } }`);
      assert.equal(result.error, null);
      return { said: result.result, records: server.audit({ type: 'decision', execution_id: result.execution_id, source: 'egress_guard' }).length };
    };
    const sync = await outcome('svc:http', 'http.get("http://10.255.255.1/x")');
    const async_ = await outcome('svc:http/async', 'await http.get("http://10.255.255.1/x")');
    assert.match(sync.said ?? '', /blocked by network policy/);
    assert.deepEqual(async_, sync);
    assert.equal(sync.records, 1);
  });

  test('an abort cancels a fetch the far end never answers: it rejects with AbortError and the far end sees the connection close', async () => {
    const closedBefore = far.closedEarly;
    const hitsBefore = far.hits.length;
    const result = await execute(server, `export async function main() {
      const controller = new AbortController();
      const pending = fetch("http://127.0.0.1:${far.port}/hold/abort", { signal: controller.signal });
      // Abort once the far end holds the request.
      await fetch("http://127.0.0.1:${far.port}/when-held");
      controller.abort();
      try { await pending; return "resolved"; } catch (e) { return e.name; }
    }`);
    assert.deepEqual([result.error, result.result], [null, 'AbortError']);
    assert.ok(far.hits.slice(hitsBefore).includes('/hold/abort'));
    await until('the far end to see the connection close', () => far.closedEarly > closedBefore);
  });

  test('AbortSignal.timeout rejects a fetch the far end never answers with TimeoutError', async () => {
    const result = await execute(server, `export async function main() {
      try { await fetch("http://127.0.0.1:${far.port}/hold/timeout", { signal: AbortSignal.any([AbortSignal.timeout(50)]) }); return "resolved"; } catch (e) { return e.name; }
    }`);
    assert.deepEqual([result.error, result.result], [null, 'TimeoutError']);
  });

  test('a run ended by its time limit while a request is in flight makes no later request', async () => {
    const server = await limited();
    const result = await execute(server, `export async function main() {
      await fetch("http://127.0.0.1:${far.port}/hold/limit");
      await fetch("http://127.0.0.1:${far.port}/after-limit");
    }`);
    assert.equal(result.error?.kind, 'timeout');
    far.releaseHeld();
    // One more run on the same server proves the reply, had it come, found no run to continue.
    assert.equal((await execute(server, 'export function main() { return 1; }')).result, '1');
    assert.ok(!far.hits.includes('/after-limit'), far.hits.join(' '));
  });

  test('a run ended by its time limit during a download into its file area writes nothing afterwards', async () => {
    const server = await limited();
    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: files\nallow_insecure_http: true\ndefault: allow\nvfs: per_session\ntypecheck: off\n' } });
    const id = await openSession(server, { blueprint: 'files' });
    const closedBefore = far.closedEarly;
    const ended = await executeIn(server, id, `import * as http from "svc:http/async";\nexport async function main() { await http.download("http://127.0.0.1:${far.port}/hold/download", "late.bin"); }`);
    assert.equal(ended.json.error?.kind, 'timeout', ended.text);
    // The host dropped the request when the run ended; an answer now has nowhere to go.
    await until('the far end to see the connection close', () => far.closedEarly > closedBefore);
    far.releaseHeld();
    const after = await executeIn(server, id, 'import * as fs from "svc:fs";\nexport function main() { return fs.exists("late.bin"); }');
    assert.equal(after.json.result, 'false', after.text);
    const dir = sessionDir(server, id);
    assert.deepEqual(fs.existsSync(dir) ? listTree(dir).filter((f) => path.basename(f).startsWith('late')) : [], []);
  });
});

test('max_host_calls_in_flight bounds the calls one run has in flight: past it a call fails at once, naming the setting, and is never sent', async () => {
  const far = await farEnd();
  const server = await cramped();
  try {
    const result = await execute(server, `import * as http from "svc:http/async";
    export async function main() {
      const held = [fetch("http://127.0.0.1:${far.port}/hold/c1"), http.get("http://127.0.0.1:${far.port}/hold/c2")];
      try { await http.get("http://127.0.0.1:${far.port}/third"); return "third sent"; } catch (e) { return e.message; }
    }`);
    assert.equal(result.error, null);
    assert.match(result.result ?? '', /2 host calls are already in flight in this run \(max_host_calls_in_flight\)/);
    assert.ok(!far.hits.includes('/third'), far.hits.join(' '));
  } finally {
    far.close();
  }
});

describe('promise reactions never run on the runner\'s own thread', () => {
  let far: FarEnd;
  let server: TestServer;
  before(async () => {
    far = await farEnd();
    server = await limited();
  });
  after(() => far.close());

  test('a reaction that computes past the time limit ends as timeout, never memory_exhausted', async () => {
    for (const code of [
      'export async function main() { await null; for (;;) {} }',
      'export function main() { Promise.resolve().then(() => { for (;;) {} }); return new Promise(() => {}); }',
      'export async function main() { await new Promise((r) => setTimeout(r, 0)); for (;;) {} }',
    ]) {
      const result = await execute(server, code);
      assert.equal(result.error?.kind, 'timeout', `${code}: ${result.error?.message}`);
    }
  });

  test('host calls from reactions work: after an await, in a then callback, in a timer', async () => {
    const result = await execute(server, `import * as http from "svc:http";
    export async function main() {
      await null;
      const a = http.get("http://127.0.0.1:${far.port}/a").body;
      const b = await Promise.resolve().then(() => http.get("http://127.0.0.1:${far.port}/b").body);
      const c = await new Promise((resolve) => setTimeout(() => resolve(http.get("http://127.0.0.1:${far.port}/c").body), 0));
      const d = await fetch("http://127.0.0.1:${far.port}/d").then(() => http.get("http://127.0.0.1:${far.port}/e").body);
      return [a, b, c, d];
    }`);
    assert.deepEqual([result.error, JSON.parse(result.result ?? 'null')], [null, ['ok', 'ok', 'ok', 'ok']]);
  });
});
