// Byte bounds through the real server: one-off last-run records are kept by total bytes
// (the oldest answer 404) and a huge result is not kept, so a loop of large results
// leaves the server's memory bounded; a loop of 1,000 identical refusals writes a few
// audit records, not 1,000; a huge path argument is refused before any rule sees it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { registerBlueprint } from '../support/sessions';
import { startServer, type TestServer } from '../harness';

// typecheck: off (types stripped, not checked): no program here is about types, and the server
// would load a type checker for them (about 1 CPU-s).
const OPEN = 'name: open\ndefault: allow\nvfs: ephemeral\ntypecheck: off\n';
const CLOSED = 'name: closed\ndefault: deny\nvfs: ephemeral\ntypecheck: off\n';

/** Resident memory of the server process, in bytes (Linux /proc). */
function rssOf(server: TestServer): number {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  assert.ok(match, 'VmRSS in /proc/<pid>/status');
  return Number(match[1]) * 1024;
}

function oneOff(server: TestServer, blueprint: string, code: string) {
  return server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint, code } });
}

const MiB = 1024 * 1024;

describe('byte bounds', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ args: ['--max-last-run-memory', '1'] });
    for (const yaml of [OPEN, CLOSED]) await registerBlueprint(server, yaml);
  });
  after(async () => {
    await server.stop();
  });

  test('one-off last-runs are kept within max_last_run_memory: the oldest answer 404, the newest 200', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const run = await oneOff(server, 'open', `export function main() { return "${i}".repeat(300000); }`);
      assert.equal(run.json.error, null, run.text.slice(0, 500));
      ids.push(run.json.session_id);
    }
    const statuses = [];
    for (const id of ids) statuses.push((await server.request('GET', `/v1/sessions/${id}/last-run`, { token: server.userToken })).status);
    // 300 KB each against a 1 MiB budget: three fit.
    assert.deepEqual(statuses, [404, 404, 200, 200, 200]);
    const newest = await server.request('GET', `/v1/sessions/${ids[4]}/last-run`, { token: server.userToken });
    assert.equal(newest.json.result, '4'.repeat(300000));
  });

  test('a loop of 12 MiB one-off results keeps the server\'s memory bounded; such a result is not kept for last-run, its console is', async () => {
    // The server's RSS has sawed up and down by about 160 MiB every few runs (12 MiB buffers
    // come and go until a collection), so single readings say little; the lowest reading of
    // the first five runs (a saw was four or five runs long) against the lowest of the last
    // five does: kept whole, the 9 results between them would add 108 MiB (before this bound
    // the server grew by 1.5 GiB over 100 such runs); the lows of a server that keeps none
    // stayed within 50 MiB.
    const runs = Number(process.env.SVC_BOUNDS_RUNS ?? 14);
    const window = 5;
    const rss: number[] = [];
    let lastId = '';
    for (let i = 0; i < runs; i++) {
      const run = await oneOff(server, 'open', `export function main() { console.log("run ${i}"); return "${i % 10}".repeat(${12 * MiB}); }`);
      assert.equal(run.status, 200);
      assert.equal(run.json.error, null, run.text.slice(0, 500));
      assert.equal(run.json.result.length, 12 * MiB);
      lastId = run.json.session_id;
      rss.push(rssOf(server));
    }
    const early = Math.min(...rss.slice(0, window));
    const late = Math.min(...rss.slice(-window));
    if (process.env.SVC_BOUNDS_REPORT) process.stderr.write(`rss after each of ${runs} runs of 12 MiB: ${rss.map((bytes) => Math.round(bytes / MiB)).join(' ')} MiB\n`);
    const last = await server.request('GET', `/v1/sessions/${lastId}/last-run`, { token: server.userToken });
    assert.equal(last.status, 200);
    assert.equal(last.json.result, null);
    assert.equal(last.json.console[0], `run ${runs - 1}`);
    assert.match(last.json.console[1], /the result \(12582912 bytes\) was not kept for last-run/);
    const keptWhole = (runs - window) * 12 * MiB;
    assert.ok(late - early < keptWhole / 2, `the server's lowest RSS grew by ${Math.round((late - early) / MiB)} MiB over ${runs - window} runs of 12 MiB`);
  });

  test('a loop of 1,000 identical refusals writes the first five and one counted record, each bounded', async () => {
    const linesBefore = server.lines().length;
    const code = `import * as fs from "svc:fs";
export function main() {
  let refused = 0;
  for (let i = 0; i < 1000; i++) { try { fs.readText("/${'a'.repeat(2000)}" + (i % 3)); } catch (e) { refused++; } }
  return refused;
}`;
    const run = await oneOff(server, 'closed', code);
    assert.equal(run.json.result, '1000', run.text.slice(0, 500));
    const lines = server.lines().slice(linesBefore).filter((line) => line.includes('msg=decision') && line.includes(run.json.execution_id));
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    if (process.env.SVC_BOUNDS_REPORT) process.stderr.write(`1,000 refusals: ${lines.length} decision records, ${bytes} bytes\n`);
    const records = server.audit({ type: 'decision', execution_id: run.json.execution_id });
    assert.equal(records.length, 6);
    const counted = records.at(-1)!;
    assert.deepEqual([counted.decision, counted.capability, counted.count, counted.rule], ['deny', 'fs.read', '995', 'default']);
    assert.equal(records.filter((r) => r.count === undefined).length, 5);
    assert.ok(bytes < 32 * 1024, `${bytes} bytes of audit`);
    // Each record is bounded: the 2,002-character path is cut in payload_json with its size.
    assert.match(records[0]['context.payload_json'], /…\[truncated: 2002 bytes\]/);
  });

  test('a 6 MB path is refused with a clear error before any rule or audit sees it', async () => {
    const code = `import * as fs from "svc:fs";
export function main() {
  try { fs.readText("/" + "a".repeat(6 * 1024 * 1024)); return "read"; } catch (e) { return [e.name, e.message]; }
}`;
    const run = await oneOff(server, 'open', code);
    assert.equal(run.json.error, null, run.text.slice(0, 500));
    const [name, message] = JSON.parse(run.json.result);
    assert.equal(name, 'RangeError', message);
    assert.match(message, /^fs\.read: `path` is 6291457 characters long; a permission check takes at most 65536 characters in all/);
    assert.equal(server.audit({ type: 'decision', execution_id: run.json.execution_id }).length, 0, 'no decision was made, so none is written');
  });
});
