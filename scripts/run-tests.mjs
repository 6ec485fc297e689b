// Runs every test/**/*.test.ts with node:test (TypeScript through tsx).
// Usage: node scripts/run-tests.mjs [path-substring ...] to run a subset.
// Integration tests start the built server, so dist/ is rebuilt first (esbuild, about a
// second): a subset never runs against a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);

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
const result = spawnSync(
  process.execPath,
  ['--no-node-snapshot', '--import', 'tsx', '--test', '--test-concurrency=3', '--test-timeout=300000', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
