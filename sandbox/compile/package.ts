// Compiles an installed Package's `lib.js` (the build's ES module: its own sources
// bundled, `svc:` and dependency imports external) into the isolate script of the sandbox
// contract: the same CommonJS conversion, import checks, module-wrapper hiding and fuel
// instrumentation as a program, under the Package's own file name. Its counter draws on
// the program's budget in small chunks (the run ends when the budget is spent, wherever).
import { createHash } from 'node:crypto';
import type { Node } from 'acorn';
import { transform, type Message } from './esbuild';
import MagicString from 'magic-string';
import { packageFilename, type PackageScript } from '../contract';
import { checkImports, fromEsbuild, hideModuleWrapper, prologueOf } from './compile';
import { composeMap } from './compose-map';
import { bindingsOf, parseAfter } from './helpers';
import { instrument } from './instrument';

type AnyNode = Node & Record<string, any>;

/** Fuel a Package's counter takes from the program's at a time (what it may hold unspent). */
const PACKAGE_FUEL_CHUNK = 4096;

export interface PackageSource {
  name: string;
  /** lib.js as installed. */
  code: string;
  /** lib.js.map as installed (sources named `@scope/name/src/*.ts`), or null. */
  sourceMap: string | null;
  /** svc: modules and dependency Packages the Package may import. */
  availableModules: string[];
}

export type PackageCompileResult = { ok: true; script: PackageScript } | { ok: false; message: string };

/** Compiles in this thread (the server goes through ./workers); never throws. */
export async function compilePackageHere(input: PackageSource): Promise<PackageCompileResult> {
  try {
    return await compileChecked(input);
  } catch (error) {
    return { ok: false, message: `package '${input.name}' cannot be prepared: ${(error as Error)?.message ?? String(error)}; reinstall it` };
  }
}

async function compileChecked(input: PackageSource): Promise<PackageCompileResult> {
  const filename = packageFilename(input.name);
  const fail = (why: string): PackageCompileResult => ({ ok: false, message: `package '${input.name}' cannot be prepared: ${why}; reinstall it` });
  let output: { code: string; map: string };
  try {
    // Whitespace minified as a program's is: esbuild's helpers then open the output in the
    // text the runtime gives them for (./helpers), and are removed.
    output = await transform(input.code, { loader: 'js', format: 'cjs', target: 'es2022', sourcemap: 'external', minifyWhitespace: true, sourcefile: filename, logLevel: 'silent', supported: { 'dynamic-import': true } });
  } catch (error) {
    const first = ((error as { errors?: Message[] }).errors ?? []).map((m) => fromEsbuild(m, 'error'))[0];
    return fail(first ? `lib.js:${first.line}:${first.column}: ${first.message}` : (error as Error).message);
  }
  const prologue = await prologueOf(output.code, 'given');
  let ast: AnyNode;
  try {
    ast = parseAfter(output.code, prologue, { ecmaVersion: 'latest', sourceType: 'script', preserveParens: true });
  } catch (error) {
    return fail(`lib.js does not parse: ${(error as Error).message}`);
  }
  const { diagnostics, imported } = checkImports(ast, { source: input.code, availableModules: input.availableModules });
  if (diagnostics.length > 0) return fail(diagnostics.map((d) => d.message).join('; '));

  const s = new MagicString(output.code);
  hideModuleWrapper(ast, s);
  instrument(ast, s, prologue);
  s.prepend(
    [
      '(function (__svc_rt) {',
      '"use strict";',
      // Same names as a program's counter (the instrumentation is shared); a refill takes the
      // debt plus a chunk from the program's counter, which ends the run when it is spent.
      `let __svc_fuel = 0; const __svc_reserve = 0; let __svc_depth = 0; const __svc_maxDepth = __svc_rt.maxDepth; const __svc_take = __svc_rt.takeFuel;`,
      `function __svc_refill() { __svc_take(${PACKAGE_FUEL_CHUNK} - __svc_fuel); __svc_fuel = ${PACKAGE_FUEL_CHUNK}; }`,
      // The Package's own fetch: its requests are its own even when another principal's code runs it.
      'const fetch = __svc_rt.fetch;',
      ...bindingsOf(prologue),
      `const __svc_units = { ${JSON.stringify(input.name)}: function (__svc_require, __svc_module, __svc_exports) {`,
      '',
    ].join('\n'),
  );
  s.append(['', '} };', 'return { units: __svc_units, fuelLeft() { return __svc_fuel; } };', '})'].join('\n'));
  const code = s.toString();
  const libMap = input.sourceMap;
  const script: PackageScript = {
    name: input.name,
    code,
    filename,
    sourceMap: '',
    hostModules: imported.filter((name) => name.startsWith('svc:')),
    packageImports: imported.filter((name) => !name.startsWith('svc:')),
    key: createHash('sha256').update(code).digest('hex'),
    usesTemporal: /\bTemporal\b/.test(input.code),
  };
  // Composed here, in the compile worker: the runner maps a failed run's stack with it.
  const map = JSON.parse(composeMap(s, output.code, output.map, 'out.js', (file) => (file.endsWith(filename) && libMap ? libMap : null)).toString()) as { sources: Array<string | null> };
  // Sources resolve relative to each other's directories; frames name `@scope/name/src/...`.
  map.sources = map.sources.map((source) => {
    if (source === null) return source;
    const at = source.lastIndexOf(`${input.name}/`);
    return at === -1 ? source : source.slice(at);
  });
  script.sourceMap = JSON.stringify(map);
  return { ok: true, script };
}
