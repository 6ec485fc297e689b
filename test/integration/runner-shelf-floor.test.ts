// How many isolates a runner keeps prepared once it has run (runner_shelf_floor): by default
// it fills its shelf to 32 after its first run, so a burst after a quiet spell starts
// without making isolates; at 0 it keeps only the spares beyond its recent demand (what the
// test suite's servers, living seconds, set). Read from the runner's own memory report
// (SVC_BENCH_RUNNER_MEMORY: one line of what it holds every 2 s on the server's stderr).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runServerBinary, startServer, tempDir, type TestServer } from '../harness';
import { eventually } from '../support/wait';
import { MEMORY_REPORT_VARIABLE } from '../../sandbox/confine/environment';
import { MEMORY_REPORT_PREFIX } from '../../sandbox/runner/memory-report';

/** Spare contexts the shelf keeps beyond the runs in flight (sandbox/runner/shelf.ts SPARE_READY), plus the one a start prepares. */
const SPARES_AND_FIRST = 5;

/** Isolates on the runner's shelf (prepared and idle), one entry per report line so far. */
function shelfReports(server: TestServer): number[] {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.includes(MEMORY_REPORT_PREFIX))
    .map((line) => {
      const { isolates } = JSON.parse(line.slice(line.indexOf(MEMORY_REPORT_PREFIX) + MEMORY_REPORT_PREFIX.length)) as { isolates: { idle: number; ready: number } };
      return isolates.idle + isolates.ready;
    });
}

/** Starts a one-runner server with the report on, runs one program, and returns it with the reports made before that run answered. */
async function serverAfterOneRun(floor: string | undefined): Promise<{ server: TestServer; before: number }> {
  // The suite gives its servers SVC_RUNNER_SHELF_FLOOR=0 (scripts/run-tests.mjs); undefined here means the server's default.
  const server = await startServer({ env: { [MEMORY_REPORT_VARIABLE]: '1', SVC_RUNNER_SHELF_FLOOR: floor } });
  try {
    const applied = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: shelf\ndefault: deny\ntypecheck: off\n' } });
    assert.equal(applied.status, 200, applied.text);
    const before = shelfReports(server).length;
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'shelf', code: 'export function main() { return "hello"; }' } });
    assert.equal(reply.json?.result, 'hello', reply.text);
    return { server, before };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

test('by default a runner fills its shelf to 32 prepared isolates after its first run', async () => {
  const { server, before } = await serverAfterOneRun(undefined);
  try {
    await eventually('a report with the shelf filled', () => shelfReports(server).slice(before).some((held) => held >= 32));
  } finally {
    await server.stop();
  }
});

test('runner_shelf_floor 0: after its first run a runner keeps only the spares, report after report', async () => {
  const { server, before } = await serverAfterOneRun('0');
  try {
    // The refill runs right after the run, one context per turn; two reports later it is long over.
    const after = await eventually('two reports after the run', () => {
      const reports = shelfReports(server).slice(before);
      return reports.length >= 2 ? reports : null;
    });
    assert.ok(Math.max(...after) <= SPARES_AND_FIRST, `isolates held after one run: ${after.join(', ')}`);
    assert.ok(after.at(-1)! >= 1, 'a prepared context stays for the next run');
    // And the next runs still find one and answer.
    for (let i = 0; i < 3; i++) {
      const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'shelf', code: `export function main() { return "run ${i}"; }` } });
      assert.equal(reply.json?.result, `run ${i}`, reply.text);
    }
  } finally {
    await server.stop();
  }
});

test('runner_shelf_floor outside 0-64 is refused at start, naming the setting and the range', async () => {
  for (const [args, env, shown] of [
    [['--runner-shelf-floor', '65'], {}, '65'],
    [['--runner-shelf-floor', '-1'], {}, '-1'],
    [[], { SVC_RUNNER_SHELF_FLOOR: 'many' }, 'many'],
  ] as const) {
    const home = tempDir();
    const failed = await runServerBinary([...args], { ...env, SVC_SERVER_TOKEN: 'x'.repeat(32) }, home);
    assert.notEqual(failed.code, 0, `${args.join(' ')} ${JSON.stringify(env)} started`);
    const said = failed.stdout + failed.stderr;
    assert.match(said, /runner[-_ ]shelf[-_ ]floor/i, said);
    assert.match(said, /0-64|0 to 64/, said);
    assert.ok(said.includes(shown), said);
    assert.equal(fs.existsSync(path.join(home, 'server', 'db')), false, 'a refused start writes no database');
  }
});
