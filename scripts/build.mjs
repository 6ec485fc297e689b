// Builds the TypeScript entry points into dist/ with esbuild, dependencies included.
// Runs on `npm ci` (prepare) and before tests and benchmarks.
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';

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

// The table of primordials guest factories receive lists every export of
// sandbox/prelude/primordials.ts. It is generated as plain imports: an `import * as`
// namespace would make the bundle define a getter per export on every evaluation of the
// prelude, which was a quarter of each run's prelude cost.
const { metafile: primordialsMeta } = await build({
  absWorkingDir: root,
  entryPoints: ['sandbox/prelude/primordials.ts'],
  format: 'esm',
  write: false,
  metafile: true,
  logLevel: 'warning',
});
const primordialNames = Object.values(primordialsMeta.outputs)[0].exports;
const primordialTable = virtualModule(
  'svc-build:primordial-table',
  () => `import { ${primordialNames.join(', ')} } from './primordials';\nexport const primordialTable = () => ({ ${primordialNames.join(', ')} });\n`,
  'sandbox/prelude',
);

// The encoding library's single-byte tables, evaluated here and bundled as one JSON.parse
// of their value: the module's body builds them with spreads and forEach in every fresh
// context, 6.5 % of a loop of contexts with the prelude (perf), against 2.9 % for parsing
// the same data (bench/PROFILE.md, round 9). Plain data (an object of arrays of numbers),
// so JSON keeps it whole; the build fails if that ever changes.
const EVALUATED_DATA = /@exodus[\\/]bytes[\\/]fallback[\\/]single-byte\.encodings\.js$/;
const isPlainData = (value) =>
  typeof value === 'number' || typeof value === 'string' || (Array.isArray(value) ? value.every(isPlainData) : value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(isPlainData));
const evaluatedData = {
  name: 'evaluated-data',
  setup(builder) {
    builder.onLoad({ filter: EVALUATED_DATA }, async (args) => {
      const { default: value } = await import(pathToFileURL(args.path).href);
      if (typeof value !== 'object' || !isPlainData(value)) throw new Error(`${args.path}: not plain data`);
      return { contents: `export default JSON.parse(${JSON.stringify(JSON.stringify(value))});\n`, loader: 'js' };
    });
  },
};

// core-js (sandbox/prelude/core-js-modules.cts) bundled on its own, as the body of one
// function the prelude calls on the first use of a stand-in (sandbox/prelude/builtins.ts);
// its value is the table of core-js modules by name, each evaluated when first called.
// Bundled with the prelude, its ~160 module wrappers were hoisted to the prelude's top and
// made in every fresh context: 71 of the ~285 KiB the prelude allocated per context, and
// 0.35 ms of a prepared context's 1.6 ms CPU with the collections that garbage cost
// (bench/PROFILE.md). Its code is compiled with the prelude, as before.
const { outputFiles: coreJsOutput } = await build({
  absWorkingDir: root,
  entryPoints: ['sandbox/prelude/core-js-modules.cts'],
  bundle: true,
  platform: 'neutral',
  format: 'iife',
  globalName: 'coreJsModules',
  target: 'es2022',
  write: false,
  logLevel: 'warning',
});
const coreJsFunction = virtualModule('svc-build:core-js', () => functionModule(coreJsOutput[0].text, 'core-js', { name: 'evaluateCoreJs', value: 'coreJsModules', primordials: './primordials' }), 'sandbox/prelude');

// The lazy web groups' modules (sandbox/prelude/web/lazy-modules.ts) likewise, as the body of
// evaluateLazyWeb, called at the first read of a lazy web global: bundled with the prelude,
// esbuild hoisted their ~250 function declarations and ~50 module wrappers to its top, made in
// every fresh context. The modules the prelude imports without them (found by a build of the
// prelude with an empty stand-in for the function) stay the prelude's: the function's bundle
// imports them from the prelude, so trusted code keeps one instance of each (the groups, the
// primordials captured when the prelude ran).
const PRELUDE_OPTIONS = { absWorkingDir: root, entryPoints: ['sandbox/prelude/entry.ts'], bundle: true, platform: 'neutral', format: 'iife', target: 'es2022', logLevel: 'warning' };
const LAZY_WEB_DIR = path.join(root, 'sandbox/prelude/web');
const { metafile: eagerMeta } = await build({
  ...PRELUDE_OPTIONS,
  plugins: [primordialTable, evaluatedData, coreJsFunction, virtualModule('svc-build:lazy-web', () => 'export function evaluateLazyWeb() {}\n', 'sandbox/prelude/web')],
  write: false,
  metafile: true,
});
const preludeInputs = new Set(Object.keys(eagerMeta.inputs).map((input) => path.resolve(root, input)));
const preludeOwn = {
  name: 'prelude-own',
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === 'prelude-own') return undefined;
      const resolved = await builder.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'prelude-own' });
      if (resolved.errors.length > 0 || !preludeInputs.has(resolved.path)) return undefined;
      const fromWeb = path.relative(LAZY_WEB_DIR, resolved.path).split(path.sep).join('/');
      return { path: fromWeb.startsWith('.') ? fromWeb : `./${fromWeb}`, external: true };
    });
  },
};
const { outputFiles: lazyWebOutput } = await build({
  absWorkingDir: root,
  plugins: [preludeOwn, evaluatedData],
  entryPoints: ['sandbox/prelude/web/lazy-modules.ts'],
  bundle: true,
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  write: false,
  logLevel: 'warning',
});
const lazyWebFunction = virtualModule('svc-build:lazy-web', () => lazyWebModule(lazyWebOutput[0].text), 'sandbox/prelude/web');

/** The lazy web bundle as a module: its imports of the prelude's own modules, then its body as evaluateLazyWeb. */
function lazyWebModule(bundle) {
  const imports = bundle.match(/^import\s*(\{[^}]*\}\s*from\s*)?"[^"]+";\n/gm) ?? [];
  let body = imports.reduce((rest, line) => rest.replace(line, ''), bundle);
  const tail = /\nexport\s*\{\s*([\w$]+) as default\s*\};\s*$/.exec(body);
  if (tail === null || /^\s*(import|export)\b/m.test(body.slice(0, tail.index))) throw new Error('lazy web bundle: expected named imports, then a body ending in its default export');
  body = `${body.slice(0, tail.index)}\nvar lazyWebModules = ${tail[1]};\n`;
  return functionModule(body, 'lazy web', { name: 'evaluateLazyWeb', value: 'lazyWebModules', primordials: '../primordials', imports: imports.join('') });
}

/**
 * A bundle made the body of one exported function, after `imports`. Its module helper reads
 * Object.getOwnPropertyNames when the function runs, after the program: it takes the
 * prelude's captured one (from `primordials`, relative to the module) instead, as it did
 * bundled with the prelude.
 */
function functionModule(bundle, what, { name, value, primordials, imports = '' }) {
  const helper = /var (__getOwnPropNames\w*) = Object\.getOwnPropertyNames;/;
  if (!helper.test(bundle)) throw new Error(`${what} bundle: esbuild no longer reads Object.getOwnPropertyNames in its helper; check what it reads now`);
  const body = withoutInterop(bundle, what).replace(helper, 'var $1 = ObjectGetOwnPropertyNames;');
  if (/var __\w+ = (Object|Reflect|Symbol|Function)\b/.test(body)) throw new Error(`${what} bundle: esbuild added a helper that reads a built-in when it is evaluated; take it from the primordials too`);
  return `${imports}import { ObjectGetOwnPropertyNames } from '${primordials}';\nexport function ${name}() {\n${body}\nreturn ${value};\n}\n`;
}

// esbuild declares its CommonJS interop helpers for a `require` of an ES module even where the
// value goes unused (the lazy groups' requires are statements); they would read built-ins when
// the function runs, so they go, and the build fails if anything uses one.
function withoutInterop(bundle, what) {
  const body = bundle.replace(/^var __toCommonJS = .*;\n|^var __copyProps = [\s\S]*?\n};\n|^var __(defProp|getOwnPropDesc|hasOwnProp) = .*;\n/gm, '');
  if (/\b__(toCommonJS|copyProps|defProp|getOwnPropDesc|hasOwnProp)\b/.test(body)) throw new Error(`${what} bundle: uses esbuild's CommonJS interop (a \`require\` whose value is used?): its helpers would read built-ins after the program`);
  return body;
}

/** A module of the build's own, `specifier`, made by `contents` and resolved from `dir`. */
function virtualModule(specifier, contents, dir) {
  const namespace = specifier.replace(':', '-');
  return {
    name: namespace,
    setup(builder) {
      builder.onResolve({ filter: new RegExp(`^${specifier}$`) }, () => ({ path: specifier, namespace }));
      builder.onLoad({ filter: /.*/, namespace }, () => ({ contents: contents(), resolveDir: path.join(root, dir), loader: 'js' }));
    },
  };
}

// The guest prelude: code that runs inside every isolate, as one classic script. Its whitespace
// is minified: each isolate keeps the source for lazy compiles (387 against 543 KiB of external
// memory per isolate, measured). Programs see it only in positions inside svc-prelude.js in
// their own `error.stack` (rendered traces hide prelude frames) and in the source text of the
// prelude's functions, now without our comments (test/integration/prelude-source.test.ts).
await build({ ...PRELUDE_OPTIONS, plugins: [primordialTable, evaluatedData, coreJsFunction, lazyWebFunction], outfile: 'dist/prelude.js', minifyWhitespace: true });
// esbuild escapes what is not ASCII in strings, but keeps some comments as written. One
// character beyond Latin-1 anywhere makes V8 hold the whole source as a two-byte string:
// 1,074 against 537 KiB of every isolate's memory (measured), kept for lazy compiles.
const preludeLines = readFileSync(path.join(root, 'dist', 'prelude.js'), 'utf8').split('\n');
const wide = preludeLines.findIndex((line) => /[^\x00-\x7f]/.test(line));
if (wide !== -1) {
  // The bundle's lines are long (whitespace is minified): the excerpt is around the character.
  const column = preludeLines[wide].search(/[^\x00-\x7f]/);
  throw new Error(`dist/prelude.js ${wide + 1}:${column + 1} has a character that is not ASCII (write it as ASCII in its source, or escape it): ${preludeLines[wide].slice(Math.max(0, column - 60), column + 60)}`);
}

// The global declarations programs are checked against, sandbox/declarations/globals.d.ts:
// derived text (svc.d.ts and TypeScript's lib.webworker for the globals of web-globals.ts,
// scripts/declarations.ts), so it is made here rather than kept in git. Deriving it parses
// TypeScript's libraries (about a second), so it is remade only when one of its sources is
// newer. The generator is bundled into dist/, one folder below the root as scripts/ is, so
// its paths relative to import.meta.url stay right.
const globalsFile = path.join(root, 'sandbox', 'declarations', 'globals.d.ts');
const globalsInputs = ['sandbox/declarations/svc.d.ts', 'sandbox/declarations/web-globals.ts', 'sandbox/declarations/derive.ts', 'scripts/declarations.ts', 'node_modules/typescript/package.json'];
const newestInput = Math.max(...globalsInputs.map((file) => statSync(path.join(root, file)).mtimeMs));
if (!existsSync(globalsFile) || statSync(globalsFile).mtimeMs < newestInput) {
  await build({
    absWorkingDir: root,
    entryPoints: ['scripts/declarations.ts'],
    outfile: 'dist/declarations-generator.mjs',
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['typescript'],
    logLevel: 'warning',
  });
  const { globalsSource } = await import(pathToFileURL(path.join(root, 'dist', 'declarations-generator.mjs')).href);
  writeFileSync(globalsFile, globalsSource());
}

// The standard-library modules' guest sides and declarations, one entry per folder of
// src/stdlib that has them, in dist/stdlib.json (src/stdlib/sources.ts reads it): the
// server image ships dist/ only. Each guest.ts default-exports its factory; it is compiled
// for the isolate (like the prelude) into one expression whose value is that factory, which
// the runner evaluates before the program (sandbox/runner/run.ts).
const stdlibRoot = path.join(root, 'src', 'stdlib');
const stdlib = {};
for (const folder of readdirSync(stdlibRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()) {
  const entry = {};
  const declarations = path.join(stdlibRoot, folder, 'declarations.d.ts');
  if (existsSync(declarations)) entry.declarations = readFileSync(declarations, 'utf8');
  if (existsSync(path.join(stdlibRoot, folder, 'guest.ts'))) entry.guest = await guestExpression(`src/stdlib/${folder}/guest.ts`);
  if (Object.keys(entry).length > 0) stdlib[folder] = entry;
}
writeFileSync(path.join(root, 'dist', 'stdlib.json'), `${JSON.stringify(stdlib)}\n`);

/** A guest.ts as a strict-mode expression evaluating to its default export. */
async function guestExpression(file) {
  const { outputFiles } = await build({
    absWorkingDir: root,
    entryPoints: [file],
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  const code = outputFiles[0].text;
  const tail = /\nexport\s*\{\s*([\w$]+) as default\s*\};\s*$/.exec(code);
  if (tail === null) throw new Error(`${file}: a guest module has one export, its factory as the default export`);
  return `(() => {\n"use strict";\n${code.slice(0, tail.index)}\nreturn ${tail[1]};\n})()`;
}
