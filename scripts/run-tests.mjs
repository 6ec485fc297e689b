// Runs every test/**/*.test.ts with node:test.
// Usage: node scripts/run-tests.mjs [path-substring ...] [--progress] [--jobs N]
// to run a subset (node:test's own output); without arguments (or with --progress) each
// file prints one progress line.
// Integration tests start the built server, so dist/ is rebuilt first (esbuild, about a
// second): a subset never runs against a stale build. The selected test files are then
// compiled once with esbuild into dist/tests/ (one bundle per file, shared code in chunks,
// source maps), so no test process pays for a TypeScript loader transforming its imports.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { filesToStart } from './test-packing.mjs';
import { startRunnerSampler } from './runner-cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const progress = args.includes('--progress');
const jobsAt = args.indexOf('--jobs');
const cores = availableParallelism();
const jobsAsked = jobsAt >= 0 ? args[jobsAt + 1] : process.env.SVC_TEST_JOBS;
// Files run at once: one more than the cores (at most 8: each file's servers and runners
// take memory). Most of a test file's time is spent waiting on the processes it starts (the
// server, its runners, bin/svc), so 2 cores are kept busy by 3 files. The whole suite adds
// files beyond that while the files running are expected to leave cores idle
// (scripts/test-packing.mjs).
const jobs = Number(jobsAsked ?? Math.min(cores + 1, 8));
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error('--jobs (or SVC_TEST_JOBS) takes a whole number of test files to run at once, at least 1');
  process.exit(2);
}
const filters = args.filter((arg, i) => arg !== '--progress' && arg !== '--jobs' && args[i - 1] !== '--jobs');

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith('.test.ts')) out.push(path.relative(root, full));
  }
  return out;
}

// The TypeScript client and the examples keep their tests beside them.
const roots = ['test', 'clients/typescript/test', 'examples'].map((d) => path.join(root, d)).filter((d) => existsSync(d));
const files = roots.flatMap(collect).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The client package test packs clients/typescript/dist: rebuilt (tsc) when a source is
// newer, while the server and the tests build (tsc is one thread; esbuild uses the rest).
const clientBuilt = files.some((f) => f.includes('client-package')) ? buildClientIfStale() : Promise.resolve(true);
const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) {
  console.error('the build failed (node scripts/build.mjs); no tests were run');
  process.exit(built.status ?? 1);
}

function newestChange(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(entry).map((name) => newestChange(path.join(entry, name))));
}

function buildClientIfStale() {
  const client = path.join(root, 'clients', 'typescript');
  const sources = ['src', 'tsconfig.json', 'package.json'].map((name) => newestChange(path.join(client, name)));
  if (newestChange(path.join(client, 'dist', 'index.js')) > Math.max(...sources)) return Promise.resolve(true);
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: client, stdio: 'inherit' });
    child.once('close', (code) => resolve(code === 0));
  });
}

// Code that finds files next to itself (fixtures, dist/, the runner entry) reads
// import.meta.url; in a bundle that would name the bundle, so each of our source files gets
// its own file's URL instead, and finds what it found when run from source.
const ownLocation = {
  name: 'own-location',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?[jt]s$/ }, (loaded) => {
      if (loaded.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = readFileSync(loaded.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(loaded.path).href)), loader: path.extname(loaded.path).slice(1).replace(/^[cm]/, '') };
    });
  },
};
// One directory per invocation (two subsets may run at once in one checkout), removed at
// exit; one left by a run that was killed is removed by the next.
const testsRoot = path.join(root, 'dist', 'tests');
mkdirSync(testsRoot, { recursive: true });
for (const name of readdirSync(testsRoot)) {
  const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
  if (pid && !isAlive(pid)) rmSync(path.join(testsRoot, name), { recursive: true, force: true });
}
const compiledRoot = path.join(testsRoot, `run-${process.pid}`);
process.on('exit', () => rmSync(compiledRoot, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
let metafile;
try {
  ({ metafile } = await build({
    absWorkingDir: root,
    entryPoints: files,
    outdir: compiledRoot,
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [ownLocation],
    banner: { js: "import { createRequire as __testCreateRequire } from 'node:module'; const require = __testCreateRequire(import.meta.url);" },
    metafile: true,
  }));
} catch {
  console.error('the tests did not compile (esbuild); no tests were run');
  process.exit(1);
}
if (!(await clientBuilt)) {
  console.error('the client build failed (tsc -p clients/typescript); no tests were run');
  process.exit(1);
}
const compiled = (file) => path.join(compiledRoot, file.replace(/\.ts$/, '.mjs'));
/**
 * Whether a compiled test file loads isolated-vm (through its own imports or its chunks'),
 * which needs Node's startup snapshot off. Only those files pay for starting without it:
 * the snapshot also holds Node's own modules (node:test, http), so a minimal integration
 * file's test process used 0.49-0.51 CPU-s without it and 0.37-0.41 with it. Servers and
 * runners are started by their own launchers with their own flags.
 */
function loadsIsolatedVm(file) {
  const outputs = metafile.outputs;
  const seen = new Set();
  const visit = (output) => {
    if (seen.has(output) || !outputs[output]) return false;
    seen.add(output);
    return outputs[output].imports.some((entry) => (entry.external ? entry.path === 'isolated-vm' || entry.path.startsWith('isolated-vm/') : visit(entry.path)));
  };
  return visit(path.relative(root, compiled(file)));
}
// Test processes (and their worker threads) keep V8's code cache of the large CommonJS files
// they require, TypeScript above all (the checker and the build run in-process in unit
// tests), in one directory every test process shares: test/support/code-cache.cjs.
process.env.SVC_TEST_CODE_CACHE_DIR ??= path.join(root, '.tmp', 'test-node-cache');
// Settings for the suite's servers, which the harness passes on to them (test/harness.ts
// baseEnv, SUITE_SETTINGS); benches start servers through the same harness without them, so
// they measure the defaults. The servers tests start live seconds and never earn back V8's
// optimising compiler. Their runners stay at the servers' own priority: at the default nice
// 19 they would wait for every other test file's processes on a machine the suite fills.
process.env.SVC_OPTIMIZING_COMPILER ??= 'off';
process.env.SVC_RUNNER_NICE ??= '0';
// Nor do they use the 32 isolates a runner prepares after its first run (runner_shelf_floor):
// about 0.25 CPU-s per server that runs anything (bench/PROFILE.md, round 36).
process.env.SVC_RUNNER_SHELF_FLOOR ??= '0';
const nodeArgs = ['--enable-source-maps', '--test-timeout=300000', '--require', path.join(root, 'test', 'support', 'code-cache.cjs')];
const snapshotArgs = (file) => (loadsIsolatedVm(file) ? ['--no-node-snapshot'] : []);

if (filters.length > 0 && !progress) {
  // A subset: node:test's own output (TAP when piped), as before.
  // node --test starts each file with the flags given here: the snapshot stays off for all
  // when any of them loads isolated-vm.
  const snapshot = files.some(loadsIsolatedVm) ? ['--no-node-snapshot'] : [];
  const result = spawnSync(process.execPath, [...snapshot, ...nodeArgs, '--test', `--test-concurrency=${jobs}`, ...files.map(compiled)], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

// The whole suite (`npm test`): the slowest files (by the last run's times, kept in
// dist/test-times.json) first so no long file starts last; one line per finished file, the
// full output of a failing file, and the totals at the end.
// A fresh checkout (CI) has no last run: the times in scripts/test-times.json (a full run,
// committed; refresh it by copying dist/test-times.json) order it instead; a file in
// neither is placed by kind: integration files (which start servers) first.
// A time is a file's wall and CPU seconds and its runners' CPU seconds ({ wall, cpu, runners };
// an older file holds the wall alone, or no runners).
const timesFile = path.join(root, 'dist', 'test-times.json');
const readTimes = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
};
const lastTimes = readTimes(timesFile);
const seedTimes = readTimes(path.join(root, 'scripts', 'test-times.json'));
const numberOrNull = (value) => (typeof value === 'number' ? value : null);
const asTime = (known) => (typeof known === 'number' ? { wall: known, cpu: null, runners: null } : known && typeof known.wall === 'number' ? { wall: known.wall, cpu: numberOrNull(known.cpu), runners: numberOrNull(known.runners) } : null);
/** How much of a file's CPU a time knows: the file's own, then its runners' too. */
const known = (time) => (time.cpu === null ? 0 : time.runners === null ? 1 : 2);
/** The last run's time, or the committed one where that knows more of the CPU than the last. */
const timeOf = (file) => {
  const last = asTime(lastTimes[file]);
  const seed = asTime(seedTimes[file]);
  if (last && (!seed || known(last) >= known(seed))) return last;
  return seed ?? { wall: file.includes('integration') ? 30 : 5, cpu: null, runners: null };
};
const expected = (file) => timeOf(file).wall;
const queue = [...files].sort((a, b) => expected(b) - expected(a));
// With no --jobs or SVC_TEST_JOBS, more files than `jobs` start while the cores are expected
// to be idle (scripts/test-packing.mjs): up to three times the cores, at most 8.
// Replaying the committed times through this packing with cores shared in proportion said 3
// and 5 -> 5.73 min (cores busy 93 %), 4 and 8 -> 5.39 min (99 %); a real quiet run with 4 and
// 8 took 7.2 min and 10.3 CPU-min (the last with 3 and 5: 6.6 and 9.8, with other code), since
// files slow each other down beyond the cores (bench/PROFILE.md, round 27). Since then most
// files mostly wait: with 3 and 5 the quiet runs left 75-84 core-seconds idle, and a quiet run
// with 3 and 6 took 4.7 min against 5.4-5.9 (round 54).
const extraJobs = jobsAsked === undefined ? Math.min(cores * 3, 8) : jobs;
const running = new Set();

const started = Date.now();
const totals = { pass: 0, fail: 0, cancelled: 0, skipped: 0 };
const failed = [];
const times = { ...lastTimes };
let finished = 0;
const cpuReporter = pathToFileURL(path.join(root, 'scripts', 'test-cpu.mjs')).href;
const cpu = {};
// The runners' CPU, which `cpu` misses (scripts/runner-cpu.mjs): shown beside it and kept in
// the times, where the packing counts it (scripts/test-packing.mjs).
const testProcesses = new Map();
const runnerSampler = startRunnerSampler(path.join(root, 'dist', 'runner.js'), testProcesses);
// Each file's start and end (seconds from the first start) and CPU, in the order they ended:
// dist/test-timeline.json, to see where cores idled (the tail, files that mostly wait).
const timeline = [];
const counter = (text, name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

function runFile(file) {
  return new Promise((resolve) => {
    const begun = Date.now();
    // Run directly (not under `node --test`, which would start a second process per file).
    const child = spawn(process.execPath, [...snapshotArgs(file), ...nodeArgs, '--import', cpuReporter, '--test-reporter=tap', compiled(file)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    testProcesses.set(child.pid, file);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('close', (code) => {
      finished++;
      const counts = { pass: counter(output, 'pass'), fail: counter(output, 'fail'), cancelled: counter(output, 'cancelled'), skipped: counter(output, 'skipped') };
      for (const key of Object.keys(totals)) totals[key] += counts[key];
      const ok = code === 0;
      const seconds = (Date.now() - begun) / 1000;
      const cpuSeconds = /^# cpu ([\d.]+)$/m.exec(output)?.[1];
      if (cpuSeconds !== undefined) cpu[file] = Number(cpuSeconds);
      testProcesses.delete(child.pid);
      const runnersCpu = runnerSampler.cpuOf(file);
      times[file] = { wall: seconds, cpu: cpu[file] ?? null, runners: runnersCpu };
      timeline.push({ file, start: (begun - started) / 1000, end: (Date.now() - started) / 1000, cpu: cpu[file] ?? null, runnersCpu });
      const cpuNote = (cpuSeconds === undefined ? '' : `, cpu ${cpuSeconds} s`) + (runnersCpu > 0 ? ` + runners ${runnersCpu.toFixed(1)} s` : '');
      process.stdout.write(`[${String(finished).padStart(String(files.length).length)}/${files.length}] ${ok ? 'ok    ' : 'FAILED'} ${file} (${counts.pass} passed${counts.fail ? `, ${counts.fail} failed` : ''}${counts.cancelled ? `, ${counts.cancelled} cancelled (a test left pending or a timeout)` : ''}, ${seconds.toFixed(1)} s${cpuNote})\n`);
      if (!ok) {
        failed.push(file);
        process.stdout.write(`${output}\n`);
      }
      resolve();
    });
  });
}

/** Starts the waiting files that fit (scripts/test-packing.mjs); each file's end starts more. */
function schedule(done) {
  for (const file of filesToStart(queue, [...running], timeOf, { jobs, extraJobs, cores })) {
    queue.splice(queue.indexOf(file), 1);
    running.add(file);
    void runFile(file).then(() => {
      running.delete(file);
      schedule(done);
    });
  }
  if (queue.length === 0 && running.size === 0) done();
}

process.stdout.write(`${files.length} test files, ${jobs} at a time${extraJobs > jobs ? ` (up to ${extraJobs} while cores are idle)` : ''}\n`);
await new Promise((resolve) => schedule(resolve));
runnerSampler.stop();
mkdirSync(path.dirname(timesFile), { recursive: true });
// Only the whole suite's times order the next run: a subset run with --progress (a few files,
// other load, other neighbours) put its files' walls there, and the next full run started the
// files measured alone last and those measured under load first (curated, 90 s in a full run,
// ended last after 17 s alone).
if (filters.length === 0) writeFileSync(timesFile, `${JSON.stringify(times, null, 1)}\n`);
writeFileSync(path.join(root, 'dist', 'test-timeline.json'), `${JSON.stringify(timeline, null, 1)}\n`);
const minutes = ((Date.now() - started) / 60000).toFixed(1);
const cpuSum = Object.values(cpu).reduce((sum, seconds) => sum + seconds, 0);
const runnersSum = files.reduce((sum, file) => sum + runnerSampler.cpuOf(file), 0);
const cpuTotal = (Object.keys(cpu).length === 0 ? '' : `, cpu ${(cpuSum / 60).toFixed(1)} min`) + (runnersSum > 0 ? ` + runners ${(runnersSum / 60).toFixed(1)} min` : '');
process.stdout.write(`\n${totals.pass} tests passed, ${totals.fail} failed, ${totals.cancelled ? `${totals.cancelled} cancelled, ` : ''}${totals.skipped} skipped in ${files.length} files (${minutes} min${cpuTotal})\n`);
if (failed.length > 0) process.stdout.write(`failing files:\n${failed.map((f) => `  ${f}`).join('\n')}\n`);
process.exit(failed.length > 0 ? 1 : 0);
