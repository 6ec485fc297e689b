// Runs every test/**/*.test.ts with node:test (TypeScript through tsx).
// Usage: node scripts/run-tests.mjs [path-substring ...] to run a subset (node:test's own
// output); without arguments (or with --progress) each file prints one progress line.
// Integration tests start the built server, so dist/ is rebuilt first (esbuild, about a
// second): a subset never runs against a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const progress = process.argv.includes('--progress');
const filters = process.argv.slice(2).filter((arg) => arg !== '--progress');

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
const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('the build failed (node scripts/build.mjs); no tests were run');
  process.exit(build.status ?? 1);
}
const nodeArgs = ['--no-node-snapshot', '--import', 'tsx', '--test', '--test-timeout=300000'];

if (filters.length > 0 && !progress) {
  // A subset: node:test's own output (TAP when piped), as before.
  const result = spawnSync(process.execPath, [...nodeArgs, '--test-concurrency=3', ...files], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

// The whole suite (`npm test`, about 8 minutes on 2 cores): three files at a time, one line
// per finished file, the full output of a failing file, and the totals at the end.
const started = Date.now();
const totals = { pass: 0, fail: 0, skipped: 0 };
const failed = [];
let finished = 0;
let next = 0;
const counter = (text, name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

function runFile(file) {
  return new Promise((resolve) => {
    const begun = Date.now();
    const child = spawn(process.execPath, [...nodeArgs, '--test-reporter=tap', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('close', (code) => {
      finished++;
      const counts = { pass: counter(output, 'pass'), fail: counter(output, 'fail'), skipped: counter(output, 'skipped') };
      for (const key of Object.keys(totals)) totals[key] += counts[key];
      const ok = code === 0;
      const seconds = ((Date.now() - begun) / 1000).toFixed(1);
      process.stdout.write(`[${String(finished).padStart(String(files.length).length)}/${files.length}] ${ok ? 'ok    ' : 'FAILED'} ${file} (${counts.pass} passed${counts.fail ? `, ${counts.fail} failed` : ''}, ${seconds} s)\n`);
      if (!ok) {
        failed.push(file);
        process.stdout.write(`${output}\n`);
      }
      resolve();
    });
  });
}

async function worker() {
  while (next < files.length) await runFile(files[next++]);
}

process.stdout.write(`${files.length} test files, three at a time\n`);
await Promise.all([worker(), worker(), worker()]);
const minutes = ((Date.now() - started) / 60000).toFixed(1);
process.stdout.write(`\n${totals.pass} tests passed, ${totals.fail} failed, ${totals.skipped} skipped in ${files.length} files (${minutes} min)\n`);
if (failed.length > 0) process.stdout.write(`failing files:\n${failed.map((f) => `  ${f}`).join('\n')}\n`);
process.exit(failed.length > 0 ? 1 : 0);
