// GET /metrics: admin only, Prometheus text format, default process metrics, and the
// server's counters move with real runs, sessions, decisions, outbound calls and requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { startServer, type TestServer } from '../harness';
import { eventually } from '../support/wait';

type Samples = Map<string, number>;

/** `name{a="x",b="y"}` → value, labels sorted as the exposition writes them. */
function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('Prometheus metrics', () => {
  let server: TestServer;
  const scrape = async () => {
    const reply = await server.request('GET', '/metrics');
    assert.equal(reply.status, 200);
    return parse(reply.text);
  };
  before(async () => {
    server = await startServer({ runners: 1, config: { logging: { audit: { file: path.join('no-such-directory', 'audit.log') } } }, timeoutMs: 60_000 });
  });
  after(async () => {
    await server?.stop();
  });

  test('admin token only; text exposition with the default process metrics', async () => {
    assert.equal((await server.request('GET', '/metrics', { token: server.userToken })).status, 403);
    assert.equal((await server.request('GET', '/metrics', { token: null })).status, 401);
    const reply = await server.request('GET', '/metrics');
    assert.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(reply.text, /^# HELP svc_process_cpu_user_seconds_total /m);
    assert.match(reply.text, /^svc_nodejs_heap_size_used_bytes \d/m);
    assert.match(reply.text, /^# TYPE svc_runner_restarts_total counter$/m);
    const samples = parse(reply.text);
    assert.equal(samples.get('svc_runner_pool_size'), 1);
    assert.equal(samples.get('svc_runner_queue_depth'), 0);
    assert.equal(samples.get('svc_token_budget{kind="model",state="budget"}'), 20_000_000);
    assert.equal(samples.get('svc_token_budget{kind="embedding",state="budget"}'), 50_000_000);
    assert.equal(samples.get('svc_token_budget{kind="model",state="spent"}'), 0);
    assert.equal(samples.get('svc_token_budget{kind="embedding",state="reserved"}'), 0);
  });

  test('runs, sessions, replays, decisions, outbound calls, lookups, Blueprint changes and requests move the counters', async () => {
    const before = await scrape();
    const delta = (after: Samples, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

    await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\nallow_insecure_http: true\ndefault: allow\nvfs: none\n' } });
    const user = { token: server.userToken };
    const opened = await server.request('POST', '/v1/sessions', { ...user, body: { blueprint: 'web' } });
    const id = opened.json.session_id as string;
    const run = (code: string, headers: Record<string, string> = {}) => server.request('POST', `/v1/sessions/${id}/execute`, { ...user, body: { code }, headers });
    assert.equal((await run('export function main() { return 1; }', { 'idempotency-key': 'a' })).json.result, '1');
    await run('export function main() { return 1; }', { 'idempotency-key': 'a' });
    assert.equal((await run('export function main() { throw new Error("x"); }')).json.error.kind, 'runtime_error');
    assert.equal((await run('export function main( {')).json.error.kind, 'compile_error');
    const blocked = await run('import * as http from "svc:http";\nexport function main() { try { http.get("http://127.0.0.1:9/x"); } catch (e) { return e.message; } }');
    assert.match(blocked.json.result, /blocked by network policy/);
    const hungry = await run('export function main() { const keep = []; for (;;) keep.push(new Array(1_000_000).fill(7)); }');
    assert.equal(hungry.json.error.kind, 'memory_exhausted');
    await server.request('GET', '/v1/blueprints/web/packages/search?q=fs', user);

    const after = await scrape();
    assert.equal(delta(after, 'svc_runs_total{entry_point="session",outcome="ok"}'), 2);
    assert.equal(delta(after, 'svc_runs_total{entry_point="session",outcome="runtime_error"}'), 1);
    assert.equal(delta(after, 'svc_runs_total{entry_point="session",outcome="compile_error"}'), 1);
    assert.equal(delta(after, 'svc_runs_total{entry_point="session",outcome="memory_exhausted"}'), 1);
    assert.equal(delta(after, 'svc_run_duration_seconds_count{entry_point="session"}'), 5);
    assert.equal(delta(after, 'svc_run_fuel_count{entry_point="session"}'), 5);
    assert.ok(delta(after, 'svc_compile_duration_seconds_count') >= 4);
    assert.equal(delta(after, 'svc_idempotency_replays_total'), 1);
    assert.equal(delta(after, 'svc_sessions_opened_total'), 1);
    assert.equal(after.get('svc_open_sessions'), 1);
    assert.equal(delta(after, 'svc_decisions_total{source="egress_guard",decision="deny"}'), 1);
    assert.ok(delta(after, 'svc_decisions_total{source="policy",decision="allow"}') >= 1);
    assert.equal(delta(after, 'svc_outbound_connections_total{outcome="blocked"}'), 1);
    assert.equal(after.get('svc_runner_pool_size'), 1);
    assert.equal(delta(after, 'svc_discovery_lookups_total{kind="package_search"}'), 1);
    assert.equal(delta(after, 'svc_blueprint_changes_total{event="blueprint_created"}'), 1);
    assert.equal(delta(after, 'svc_http_requests_total{method="POST",route="/v1/sessions/:id/execute",status="200"}'), 6);
    assert.equal(delta(after, 'svc_http_requests_total{method="POST",route="/v1/sessions",status="200"}'), 1);
    // The audit file's directory does not exist, so every audit record failed to write.
    assert.ok(delta(after, 'svc_audit_write_failures_total') > 0);
  });

  test('a runner process that dies is replaced and counted', async () => {
    const before = (await scrape()).get('svc_runner_restarts_total{reason="error"}') ?? 0;
    // The server has other children too (esbuild's service process): pick a runner by its command.
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(server.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => line.includes('runner.js'))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
    assert.ok(children.length >= 1, 'runner processes are children of the server');
    process.kill(children[0], 'SIGKILL');
    const after = await eventually('the restart to be counted', async () => {
      const count = (await scrape()).get('svc_runner_restarts_total{reason="error"}') ?? 0;
      return count > before ? count : null;
    });
    assert.equal(after, before + 1);
    const run = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code: 'export function main() { return 5; }' } });
    assert.equal(run.json.result, '5');
  });
});
