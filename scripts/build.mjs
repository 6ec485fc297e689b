// Builds the TypeScript entry points into dist/ with esbuild, dependencies included.
// Runs on `npm ci` (prepare) and before tests and benchmarks.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

import { existsSync, readdirSync, rmSync } from 'node:fs';
import { buildPrelude } from './build/prelude.mjs';
import { buildGlobalDeclarations } from './build/declarations.mjs';
import { buildStdlib } from './build/stdlib.mjs';

// The pure-JavaScript dependencies are bundled: loaded from node_modules, Node resolved
// each file and scanned every CommonJS one for its exports (cjs-module-lexer), about
// 0.3 CPU-s of each server start. Native addons, esbuild (which finds its binary next to
// its own files) and TypeScript (which reads its lib files, and loads only on demand)
// stay in node_modules, as does piscina (it starts its workers from a file beside its own).
const EXTERNAL = ['better-sqlite3', 'isolated-vm', 'esbuild', 'typescript', 'piscina'];
// dist/server.js is the launcher (src/launch/server.ts): it runs the server itself, built
// below as CommonJS (dist/server-main.cjs), through V8's code cache.
const entryPoints = { server: 'src/launch/server.ts' };
// The runner child process entry (sandbox/runner) is built when present.
if (existsSync(path.join(root, 'sandbox/runner/main.ts'))) entryPoints.runner = 'sandbox/runner/main.ts';
// Package installs run in a worker thread, off the server's event loop.
if (existsSync(path.join(root, 'src/packages/install/worker.ts'))) entryPoints['packages-worker'] = 'src/packages/install/worker.ts';
// Programs and Package scripts compile in worker threads, off the server's event loop.
if (existsSync(path.join(root, 'sandbox/compile/worker.ts'))) entryPoints['compile-worker'] = 'sandbox/compile/worker.ts';
// Program type checks run in a worker thread, off the server's event loop.
if (existsSync(path.join(root, 'sandbox/typecheck/worker.ts'))) entryPoints['typecheck-worker'] = 'sandbox/typecheck/worker.ts';
// Host work that grows with what a program asked for (search, diffs, git) runs in worker threads.
if (existsSync(path.join(root, 'src/stdlib/host-worker.ts'))) entryPoints['host-worker'] = 'src/stdlib/host-worker.ts';
// Programs' outbound HTTP (fetch, svc:http) is sent from a network thread, its sockets and buffers in that thread's heap.
if (existsSync(path.join(root, 'src/network/thread/worker.ts'))) entryPoints['network-worker'] = 'src/network/thread/worker.ts';

await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});

// The server as CommonJS: a CommonJS file can be compiled with V8's code cache (vm.Script),
// an ES module cannot in Node 20. import.meta.url names the bundle's own file, as in the
// ES module build.
await build({
  absWorkingDir: root,
  entryPoints: { 'server-main': 'src/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  sourcemap: 'linked',
  logLevel: 'warning',
  define: { 'import.meta.url': '__svcBundleUrl' },
  banner: { js: "const __svcBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// The svc CLI, split so a command loads only what it uses: `svc blueprint list` should not
// start by loading the sandbox (chunks land in dist/cli-chunks/). Chunks an earlier build
// left are removed after this one, not before: a test running meanwhile (two test runs in
// one checkout each build first) never finds the chunks of an unchanged build missing.
const cliBuild = await build({
  metafile: true,
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  chunkNames: 'cli-chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
});
// What every `svc` invocation loads before its command runs: the entry and the chunks it
// imports statically. A command module that imported the sandbox, the stdlib or the
// journal at its top made `svc --help` load 4.5 MB of code (0.3 CPU-s); such imports
// belong inside the command's action (await import).
const CLI_LAZY_ONLY = /^(sandbox\/|src\/(stdlib|execution|journal|packages|sessions|network|vfs|store)\/|node_modules\/(undici|zod|isomorphic-git|typescript)\/)/;
const cliStatic = new Set();
const addStatic = (output) => {
  if (cliStatic.has(output)) return;
  cliStatic.add(output);
  for (const imported of cliBuild.metafile.outputs[output].imports) if (imported.kind === 'import-statement' && cliBuild.metafile.outputs[imported.path]) addStatic(imported.path);
};
addStatic(Object.keys(cliBuild.metafile.outputs).find((output) => output.endsWith('dist/cli.js')));
const eagerInputs = [...cliStatic].flatMap((output) => Object.keys(cliBuild.metafile.outputs[output].inputs)).filter((input) => CLI_LAZY_ONLY.test(input));
if (eagerInputs.length > 0) throw new Error(`every svc command would load ${eagerInputs.length} modules it may not use, e.g. ${eagerInputs.slice(0, 3).join(', ')}: import them inside the command's action`);
const cliChunks = path.join(root, 'dist', 'cli-chunks');
const cliOutputs = new Set(Object.keys(cliBuild.metafile.outputs).map((output) => path.resolve(root, output)));
for (const name of existsSync(cliChunks) ? readdirSync(cliChunks) : []) {
  if (!cliOutputs.has(path.join(cliChunks, name))) rmSync(path.join(cliChunks, name), { force: true });
}

// What runs inside isolates and what programs are checked against (scripts/build/).
await buildPrelude(root);
await buildGlobalDeclarations(root);
await buildStdlib(root);
