// Builds the TypeScript entry points into dist/ with esbuild (dependencies stay external).
// Runs on `npm ci` (prepare) and before tests and benchmarks.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

import { existsSync, rmSync } from 'node:fs';

const entryPoints = { server: 'src/main.ts' };
// The runner child process entry (sandbox/runner) is built when present.
if (existsSync(path.join(root, 'sandbox/runner/main.ts'))) entryPoints.runner = 'sandbox/runner/main.ts';

await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});

// The svc CLI, split so a command loads only what it uses: `svc blueprint list` should not
// start by loading the sandbox (chunks land in dist/cli-chunks/).
rmSync(path.join(root, 'dist', 'cli-chunks'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  chunkNames: 'cli-chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});

// The guest prelude: code that runs inside every isolate, as one classic script.
await build({
  absWorkingDir: root,
  entryPoints: ['sandbox/prelude/entry.ts'],
  outfile: 'dist/prelude.js',
  bundle: true,
  platform: 'neutral',
  format: 'iife',
  target: 'es2022',
  logLevel: 'warning',
});
