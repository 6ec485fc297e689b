// The web-platform-tests conformance suite: every runnable `.any.js` file of the areas in
// runner.ts, run through the real server, compared with test/wpt/expectations.json (per
// file, the subtests known to fail and why). A subtest that passed and now fails fails this
// suite, and so does a listed one that now passes (remove it from the list), so the list
// stays true.
//
// The WPT files are not in the repository (workplace rule): they are read from
// SVC_WPT_DIR, else ../shared/wpt beside the repository. Without either the suite skips.
// SVC_WPT_WRITE=1 rewrites expectations.json from this run; SVC_WPT_REPORT=<file> writes
// the per-area pass rates as JSON; SVC_WPT_ONLY=<substring> runs the matching files only.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '../harness';
import { areaOf, FILE_DEADLINE_MS, listTests, runAll, type FileOutcome } from './runner';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const expectationsPath = path.join(here, 'expectations.json');

interface FileExpectation {
  /** Subtests the file reports (a drop means some stopped running). */
  subtests: number;
  /** Subtest name -> why it fails. */
  failing: Record<string, string>;
  /** Why the file does not complete, when it does not. */
  error?: string;
  /** Subtest name -> why its outcome varies from run to run (either is accepted; kept on rewrite). */
  flaky?: Record<string, string>;
}
type Expectations = Record<string, FileExpectation>;

function wptRoot(): string | null {
  const candidates = [process.env.SVC_WPT_DIR, path.resolve(repoRoot, '..', 'shared', 'wpt')].filter((dir): dir is string => !!dir);
  for (const dir of candidates) if (fs.existsSync(path.join(dir, 'resources', 'testharness.js'))) return dir;
  return null;
}

const root = wptRoot();
let server: TestServer | undefined;
after(async () => server?.stop());

function expectationOf(outcome: FileOutcome): FileExpectation {
  const failing: Record<string, string> = {};
  for (const subtest of outcome.subtests) if (subtest.status !== 'PASS') failing[subtest.name] = `${subtest.status}${subtest.message ? `: ${subtest.message}` : ''}`.slice(0, 240);
  return { subtests: outcome.subtests.length, failing, ...(outcome.error ? { error: outcome.error.slice(0, 240) } : {}) };
}

function report(outcomes: FileOutcome[]): Record<string, { passed: number; total: number; rate: string }> {
  const areas: Record<string, { passed: number; total: number; rate: string }> = {};
  let passed = 0;
  let total = 0;
  for (const outcome of outcomes) {
    const area = (areas[areaOf(outcome.file)] ??= { passed: 0, total: 0, rate: '' });
    for (const subtest of outcome.subtests) {
      area.total++;
      total++;
      if (subtest.status === 'PASS') {
        area.passed++;
        passed++;
      }
    }
  }
  areas.overall = { passed, total, rate: '' };
  for (const area of Object.values(areas)) area.rate = area.total === 0 ? '-' : `${((100 * area.passed) / area.total).toFixed(1)}%`;
  return areas;
}

test('web-platform-tests', { skip: root ? false : 'no WPT files: set SVC_WPT_DIR to a web-platform-tests checkout (or place one at ../shared/wpt beside the repository)' }, async (t) => {
  const wpt = root!;
  const only = process.env.SVC_WPT_ONLY;
  const files = listTests(wpt).filter((file) => !only || file.includes(only));
  server = await startServer({ runners: 2, args: ['--max-execution-time', String(Math.ceil(FILE_DEADLINE_MS / 1000) + 10)] });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: wpt\ndefault: allow\nvfs: none\ntypecheck: off\n' } });
  assert.equal(created.status, 200, created.text);
  const outcomes = await runAll(server, 'wpt', wpt, files, 4);

  if (process.env.SVC_WPT_REPORT) fs.writeFileSync(process.env.SVC_WPT_REPORT, JSON.stringify(report(outcomes), null, 2) + '\n');
  if (process.env.SVC_WPT_WRITE === '1') {
    const written: Expectations = only && fs.existsSync(expectationsPath) ? JSON.parse(fs.readFileSync(expectationsPath, 'utf8')) : {};
    const previous: Expectations = fs.existsSync(expectationsPath) ? JSON.parse(fs.readFileSync(expectationsPath, 'utf8')) : {};
    for (const outcome of outcomes) {
      const flaky = previous[outcome.file]?.flaky;
      const expectation = expectationOf(outcome);
      if (flaky) for (const name of Object.keys(flaky)) delete expectation.failing[name];
      written[outcome.file] = flaky ? { ...expectation, flaky } : expectation;
    }
    const sorted = Object.fromEntries(Object.keys(written).sort().map((key) => [key, written[key]]));
    fs.writeFileSync(expectationsPath, JSON.stringify(sorted, null, 2) + '\n');
    return;
  }

  const expectations: Expectations = fs.existsSync(expectationsPath) ? JSON.parse(fs.readFileSync(expectationsPath, 'utf8')) : {};
  for (const outcome of outcomes) {
    await t.test(outcome.file, () => {
      const expected = expectations[outcome.file] ?? { subtests: 0, failing: {} };
      const problems: string[] = [];
      const seen = new Set<string>();
      for (const subtest of outcome.subtests) {
        seen.add(subtest.name);
        if (expected.flaky && Object.prototype.hasOwnProperty.call(expected.flaky, subtest.name)) continue;
        const listed = Object.prototype.hasOwnProperty.call(expected.failing, subtest.name);
        if (subtest.status === 'PASS' && listed) problems.push(`now passes (remove it from expectations.json): ${subtest.name}`);
        if (subtest.status !== 'PASS' && !listed) problems.push(`now fails with ${subtest.status} ${subtest.message}: ${subtest.name}`);
      }
      if (outcome.subtests.length < expected.subtests) problems.push(`${expected.subtests - outcome.subtests.length} subtest(s) no longer run${outcome.error ? ` (${outcome.error})` : ''}`);
      assert.deepEqual(problems, [], `${outcome.file}:\n${problems.join('\n')}`);
    });
  }
});
