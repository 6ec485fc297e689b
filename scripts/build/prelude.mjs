// The guest prelude, dist/prelude.js: the code that runs in every isolate before a program, as
// one classic script (sandbox/prelude/entry.ts and what it imports), built in three esbuild
// passes beside the bundle itself: the primordials' table, core-js and the lazy web groups each
// bundled apart as the body of one function, so a fresh context makes only what its program
// uses (bench/PROFILE.md rounds 55 and 61). scripts/build.mjs calls buildPrelude.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { guestModuleText } from './guest-bundle.mjs';

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

/** Builds dist/prelude.js under `root` (the checkout); fails if it holds a character that is not ASCII. */
export async function buildPrelude(root) {
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
    root,
    'svc-build:primordial-table',
    () => `import { ${primordialNames.join(', ')} } from './primordials';\nexport const primordialTable = () => ({ ${primordialNames.join(', ')} });\n`,
    'sandbox/prelude',
  );

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
  const coreJsFunction = virtualModule(root, 'svc-build:core-js', () => functionModule(coreJsOutput[0].text, 'core-js', { name: 'evaluateCoreJs', value: 'coreJsModules', primordials: './primordials' }), 'sandbox/prelude');

  // The lazy web groups' modules (sandbox/prelude/web/lazy-modules.ts) likewise, as the body of
  // evaluateLazyWeb, called at the first read of a lazy web global: bundled with the prelude,
  // esbuild hoisted their ~250 function declarations and ~50 module wrappers to its top, made in
  // every fresh context. The modules the prelude imports without them (found by a build of the
  // prelude with an empty stand-in for the function) stay the prelude's: the function's bundle
  // imports them from the prelude, so trusted code keeps one instance of each (the groups, the
  // primordials captured when the prelude ran).
  // Trusted code's free references to ECMAScript's constructors read the prelude's captures
  // (sandbox/prelude/intrinsics.ts), not whatever a program put on the global object since.
  const PRELUDE_OPTIONS = { absWorkingDir: root, entryPoints: ['sandbox/prelude/entry.ts'], bundle: true, platform: 'neutral', format: 'iife', target: 'es2022', logLevel: 'warning', inject: [INTRINSICS] };
  const LAZY_WEB_DIR = path.join(root, 'sandbox/prelude/web');
  const { metafile: eagerMeta } = await build({
    ...PRELUDE_OPTIONS,
    plugins: [primordialTable, evaluatedData, coreJsFunction, virtualModule(root, 'svc-build:lazy-web', () => 'export function evaluateLazyWeb() {}\n', 'sandbox/prelude/web')],
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
  // The lazy bundle is evaluated after programs may have run: its injected names are the
  // prelude's captures, imported (through prelude-own) from the module the prelude evaluated.
  const lazyIntrinsics = virtualModule(root, 'svc-build:intrinsics', () => `export { ${intrinsicNames(root).join(', ')} } from './intrinsics';\n`, 'sandbox/prelude');
  const lazyWebText = await guestModuleText(root, 'sandbox/prelude/web/lazy-modules.ts', [preludeOwn, evaluatedData, lazyIntrinsics], ['svc-build:intrinsics']);
  const lazyWebFunction = virtualModule(root, 'svc-build:lazy-web', () => lazyWebModule(lazyWebText), 'sandbox/prelude/web');

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
}

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

/** The module the prelude's bundles are given their ECMAScript names from (esbuild's inject). */
const INTRINSICS = 'sandbox/prelude/intrinsics.ts';

/** The names sandbox/prelude/intrinsics.ts exports (`export const X = globalThis.X;`). */
function intrinsicNames(root) {
  const names = [...readFileSync(path.join(root, INTRINSICS), 'utf8').matchAll(/^export const (\w+) = globalThis\.\1;$/gm)].map((match) => match[1]);
  if (names.length === 0) throw new Error(`${INTRINSICS}: expected lines \`export const X = globalThis.X;\``);
  return names;
}

/** A module of the build's own, `specifier`, made by `contents` and resolved from `dir` (under `root`). */
function virtualModule(root, specifier, contents, dir) {
  const namespace = specifier.replace(':', '-');
  return {
    name: namespace,
    setup(builder) {
      builder.onResolve({ filter: new RegExp(`^${specifier}$`) }, () => ({ path: specifier, namespace }));
      builder.onLoad({ filter: /.*/, namespace }, () => ({ contents: contents(), resolveDir: path.join(root, dir), loader: 'js' }));
    },
  };
}
