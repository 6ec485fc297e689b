// Compiles a submitted TypeScript program into the isolate script of the sandbox
// contract: esbuild strips types (CommonJS output), acorn checks imports and `main`,
// the instrumentation adds metering, and the source map leads back to program.ts.
import { createHash } from 'node:crypto';
import type { Node, Options } from 'acorn';
import { transform, type Message } from './esbuild';
import MagicString from 'magic-string';
import { PROGRAM_FILENAME, SCRIPT_FILENAME, type CompileResult, type Diagnostic, type ProgramScript } from '../contract';
import { composeMap } from './compose-map';
import { positionOf, renderCompileError } from './diagnostics';
import { instrument, walk } from './instrument';
import { bindingsOf, learnHelpers, matchPrologue, parseAfter, SEED_PROGRAM, type Helper, type Prologue } from './helpers';

type AnyNode = Node & Record<string, any>;

export interface CompileInput {
  source: string;
  /** `svc:` modules importable under this Blueprint. */
  availableModules: string[];
  /** Modules declared but unavailable for this run, with the reason (e.g. an `@mcp/` server that could not be discovered). */
  unavailable?: Readonly<Record<string, string>>;
  /** False for code that is only checked, never run (a Package readme's examples). Default true. */
  requireMain?: boolean;
}

const RESERVED_PREFIX = '__svc';
/** Fuel moved from the reserve into the counter at a time: a V8 small integer (< 2^30). */
export const FUEL_CHUNK = 0x20000000;

/** A program's source is at most this many bytes (a request body holds at most 2 MiB). */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
/** Diagnostics reported per compile: each costs a pass over the source to place and render. */
export const MAX_DIAGNOSTICS = 20;

/** A program script's submitted sources, by file name (the program alone), for excerpts. */
export function programSources(source: string): Record<string, string> {
  return { [PROGRAM_FILENAME]: source };
}

function failure(diagnostics: Diagnostic[], source: string): CompileResult {
  const kept = diagnostics.slice(0, MAX_DIAGNOSTICS);
  if (diagnostics.length > kept.length) kept.push({ severity: 'error', line: 1, column: 1, message: `more errors follow; the first ${MAX_DIAGNOSTICS} are shown` });
  return { ok: false, error: { kind: 'compile_error', message: renderCompileError(kept, source), diagnostics: kept } };
}

// V8's overflow, or acorn's own check before it overflows.
const isStackOverflow = (error: unknown) => error instanceof Error && /call stack size|not enough stack space/i.test(error.message);
const TOO_DEEP = 'the program nests too deeply to compile (expressions, blocks or literals inside each other thousands of levels deep); flatten the nesting';

export function fromEsbuild(message: Message, severity: 'error' | 'warning'): Diagnostic {
  const location = message.location;
  let text = message.text;
  if (/top-level await/i.test(text)) text = 'top-level await is not supported; move this code into `main` (which may be async)';
  const diagnostic: Diagnostic = { severity, line: location?.line ?? 1, column: (location?.column ?? 0) + 1, message: text };
  const notes = message.notes
    .filter((n) => n.text)
    .map((n) => ({ line: n.location?.line ?? diagnostic.line, column: (n.location?.column ?? 0) + 1, message: n.text }));
  if (notes.length > 0) diagnostic.notes = notes;
  return diagnostic;
}

/** Where a specifier appears in the submitted source (for the diagnostic position). */
function locateInSource(source: string, needle: string): { line: number; column: number } {
  for (const quote of ['"', "'", '`']) {
    const at = source.indexOf(`${quote}${needle}${quote}`);
    if (at !== -1) return positionOf(source, at);
  }
  return { line: 1, column: 1 };
}

function describeAvailable(available: string[]): string {
  return available.length > 0 ? `available modules: ${available.join(', ')}` : 'no modules are available to this program';
}

/** Import checks: every require() must name an available module with a literal string. */
export function checkImports(ast: AnyNode, input: CompileInput): { diagnostics: Diagnostic[]; imported: string[] } {
  const diagnostics: Diagnostic[] = [];
  const imported = new Set<string>();
  walk(ast, (node) => {
    // Placing a diagnostic scans the source: past the shown ones, the compile has failed anyway.
    if (diagnostics.length > MAX_DIAGNOSTICS) return;
    if (node.type === 'Identifier' && node.name.startsWith(RESERVED_PREFIX)) {
      const at = locateInSource(input.source, node.name);
      diagnostics.push({ severity: 'error', ...at, message: `identifiers starting with \`${RESERVED_PREFIX}\` are reserved by the runtime; rename \`${node.name}\`` });
    }
    if (node.type === 'ImportExpression') {
      diagnostics.push({ severity: 'error', line: 1, column: 1, message: 'dynamic import() is not supported; use a static import at the top of the program' });
    }
    if (node.type !== 'CallExpression' || node.callee.type !== 'Identifier' || node.callee.name !== 'require') return;
    const arg = node.arguments[0];
    if (!arg || arg.type !== 'Literal' || typeof arg.value !== 'string') {
      diagnostics.push({ severity: 'error', line: 1, column: 1, message: `require() is not available; import modules statically (${describeAvailable(input.availableModules)})` });
      return;
    }
    const specifier = arg.value as string;
    if (!input.availableModules.includes(specifier)) {
      const at = locateInSource(input.source, specifier);
      const why = input.unavailable?.[specifier];
      if (why !== undefined) {
        diagnostics.push({ severity: 'error', ...at, message: `cannot import \`${specifier}\`: it is unavailable: ${why}` });
        return;
      }
      const hint = /^@[^/]+\/[^/]+$/.test(specifier) && !specifier.startsWith('@mcp/')
        ? '; the Blueprint does not list this Package (only listed Packages can be imported)'
        : specifier.startsWith('node:') || !specifier.includes(':')
          ? '; programs run without Node.js or npm modules'
          : '';
      diagnostics.push({ severity: 'error', ...at, message: `cannot import \`${specifier}\`${hint}; ${describeAvailable(input.availableModules)}` });
      return;
    }
    imported.add(specifier);
  });
  return { diagnostics, imported: [...imported].sort() };
}

/**
 * Whether `node` calls esbuild's helper `name`, which esbuild renames (`__export2`) when the
 * program uses that name itself.
 */
const callsHelper = (node: AnyNode | null | undefined, name: string): boolean =>
  node?.type === 'CallExpression' && node.callee.type === 'Identifier' && (node.callee.name === name || (node.callee.name.startsWith(name) && /^\d+$/.test(node.callee.name.slice(name.length))));

/** Whether the CommonJS output has a top-level `main` binding, and whether it is exported. */
function findMain(ast: AnyNode): { declared: boolean; exported: boolean } {
  let declared = false;
  let exported = false;
  for (const statement of ast.body as AnyNode[]) {
    if ((statement.type === 'FunctionDeclaration' || statement.type === 'ClassDeclaration') && statement.id?.name === 'main') declared = true;
    if (statement.type === 'VariableDeclaration') {
      for (const declarator of statement.declarations) if (declarator.id.type === 'Identifier' && declarator.id.name === 'main') declared = true;
    }
    // esbuild: __export(x_exports, { main: () => local })
    if (statement.type === 'ExpressionStatement' && callsHelper(statement.expression, '__export')) {
      const map = statement.expression.arguments[1];
      if (map?.type === 'ObjectExpression') {
        for (const property of map.properties) {
          const key = property.key?.name ?? property.key?.value;
          if (key === 'main') exported = true;
        }
      }
    }
  }
  return { declared, exported };
}

const isModuleExports = (node: AnyNode | undefined): boolean =>
  node?.type === 'MemberExpression' && node.object.type === 'Identifier' && node.object.name === 'module' && !node.computed && node.property.name === 'exports';

/**
 * The unit's module wrapper takes `__svc_`-named parameters, so `require`, `module` and
 * `exports` are not bindings programs can see. esbuild's own references are renamed:
 * every `require("literal")` call (checked as an import above), and the `module.exports`
 * of its CommonJS output's top-level statements: `module.exports = ...` and an
 * `export * from` statement's `__reExport(exports, require("m"), module.exports)`.
 */
export function hideModuleWrapper(ast: AnyNode, s: MagicString): void {
  walk(ast, (node) => {
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'require') {
      s.overwrite(node.callee.start, node.callee.end, '__svc_require');
    }
  });
  for (const statement of ast.body as AnyNode[]) {
    const expression = statement.type === 'ExpressionStatement' ? statement.expression : null;
    const target =
      expression?.type === 'AssignmentExpression' ? expression.left : callsHelper(expression, '__reExport') ? expression!.arguments[2] : undefined;
    if (isModuleExports(target)) s.overwrite(target.object.start, target.object.end, '__svc_module');
  }
}

/** Brackets nested deeper than this are refused before any parser sees them. */
export const MAX_NESTING = 1000;

/**
 * Where brackets (`(`, `[`, `{`) first nest deeper than MAX_NESTING, or null. One pass, no
 * parser: esbuild's printing and parsing of deep nesting cost far more than linear time
 * (20,000 nested arrow functions took 30 s), and acorn refuses a few thousand levels
 * anyway. Comments and quoted strings are skipped; other text may count a bracket more or
 * less, which only moves where a program this deep is refused.
 */
export function tooDeep(source: string): number | null {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === 40 || code === 91 || code === 123) {
      if (++depth > MAX_NESTING) return i;
    } else if (code === 41 || code === 93 || code === 125) {
      if (depth > 0) depth--;
    } else if (code === 47 && source.charCodeAt(i + 1) === 47) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
    } else if (code === 47 && source.charCodeAt(i + 1) === 42) {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 1;
    } else if (code === 34 || code === 39) {
      // A quoted string ends at its quote or, unterminated, at the line's end.
      for (i++; i < source.length; i++) {
        const c = source.charCodeAt(i);
        if (c === 92) i++;
        else if (c === code || c === 10) break;
      }
    }
  }
  return null;
}

/**
 * Compiles in this thread. The server calls compileProgram (./workers), which runs this in
 * a worker thread; whatever the source, this returns a result and never throws.
 */
export interface CompileOptions {
  /**
   * esbuild's helpers: `given` (the default) by the runtime, their text removed; `replayed`:
   * kept in the script, their learned instrumentation replayed; `inline`: the whole output
   * parsed and instrumented. The last two give the same script; a program runs the same
   * with the first, for less fuel (tests compare them).
   */
  helpers?: 'given' | 'replayed' | 'inline';
}

export async function compileHere(input: CompileInput, options: CompileOptions = {}): Promise<CompileResult> {
  const bytes = Buffer.byteLength(input.source, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) {
    return failure([{ severity: 'error', line: 1, column: 1, message: `the program is ${bytes} bytes; a program's source may be at most ${MAX_SOURCE_BYTES} bytes (2 MiB)` }], input.source);
  }
  const deep = tooDeep(input.source);
  if (deep !== null) {
    return failure([{ severity: 'error', ...positionOf(input.source, deep), message: `brackets nest more than ${MAX_NESTING} levels deep here; flatten the nesting (split deep expressions into variables or functions)` }], input.source);
  }
  try {
    return await compileChecked(input, options);
  } catch (error) {
    if (isStackOverflow(error)) return failure([{ severity: 'error', line: 1, column: 1, message: TOO_DEEP }], input.source);
    return failure([{ severity: 'error', line: 1, column: 1, message: `the program could not be compiled: ${(error as Error)?.message ?? String(error)}` }], input.source);
  }
}

/** esbuild's options for a program: types stripped into CommonJS with an external source map. */
const TRANSFORM_OPTIONS = {
  loader: 'ts',
  format: 'cjs',
  target: 'es2022',
  sourcemap: 'external',
  // No indentation: esbuild indents nested blocks, so printed output would grow with the
  // square of the nesting depth (20,000 nested blocks printed half a gigabyte).
  minifyWhitespace: true,
  sourcefile: PROGRAM_FILENAME,
  // The runner renders a stack's excerpt from the program's source, which the run message
  // carries beside the map: a copy inside the map was written, parsed, composed, cached and
  // sent to each runner for nothing.
  sourcesContent: false,
  logLevel: 'silent',
  supported: { 'dynamic-import': true },
  // Keep every import, even unused ones, so a refused import is always reported.
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
} as const;

const PARSE_OPTIONS: Options = { ecmaVersion: 'latest', sourceType: 'script', preserveParens: true, allowReturnOutsideFunction: false };

/** esbuild's helper declarations, learned once per thread from its own output (./helpers); none if that failed. */
let learnedHelpers: Promise<Helper[]> | undefined;
function helpersOfThisThread(): Promise<Helper[]> {
  learnedHelpers ??= transform(SEED_PROGRAM, TRANSFORM_OPTIONS).then(
    (seed) => learnHelpers(seed.code, PARSE_OPTIONS),
    () => [],
  );
  return learnedHelpers;
}

/** The learned helpers that open esbuild's `code` (./helpers), as `helpers` says to treat them. */
export async function prologueOf(code: string, helpers: NonNullable<CompileOptions['helpers']>): Promise<Prologue> {
  return helpers === 'inline' ? matchPrologue(code, []) : matchPrologue(code, await helpersOfThisThread(), helpers === 'given');
}

async function compileChecked(input: CompileInput, options: CompileOptions): Promise<CompileResult> {
  let output: { code: string; map: string; warnings: Message[] };
  try {
    output = await transform(input.source, TRANSFORM_OPTIONS);
  } catch (error) {
    const errors = ((error as { errors?: Message[] }).errors ?? []).map((m) => fromEsbuild(m, 'error'));
    if (errors.length === 0) errors.push({ severity: 'error', line: 1, column: 1, message: (error as Error).message });
    return failure(errors, input.source);
  }

  // The helpers that open the output are given by the runtime or instrumented already: only the rest is parsed.
  const prologue = await prologueOf(output.code, options.helpers ?? 'given');
  let ast: AnyNode;
  try {
    ast = parseAfter(output.code, prologue, PARSE_OPTIONS);
  } catch (error) {
    if (isStackOverflow(error)) return failure([{ severity: 'error', line: 1, column: 1, message: TOO_DEEP }], input.source);
    return failure([{ severity: 'error', line: 1, column: 1, message: `program could not be parsed after type stripping: ${(error as Error).message}` }], input.source);
  }

  const { diagnostics, imported } = checkImports(ast, input);
  const main = findMain(ast);
  if (input.requireMain !== false && !main.declared && !main.exported) {
    diagnostics.push({
      severity: 'error',
      line: 1,
      column: 1,
      message: 'the program has no top-level `main`; define `function main() { ... }` (or `export async function main()`) and return the result from it',
    });
  }
  if (diagnostics.length > 0) return failure(diagnostics, input.source);

  const s = new MagicString(output.code);
  // esbuild keeps a hashbang line; inside the wrapper it must be a comment.
  if (output.code.startsWith('#!')) s.overwrite(0, 2, '//');
  hideModuleWrapper(ast, s);
  instrument(ast, s, prologue);
  // A non-exported top-level main is still the entry point.
  if (main.declared && !main.exported) s.append('\n__svc_module.exports.main = main;');
  s.prepend(
    [
      '(function (__svc_rt) {',
      '"use strict";',
      // The budget (1T by default) is no small integer; a counter holding it would make V8
      // box a new heap number at every charge. So the counter is refilled in small-integer
      // chunks from a reserve; the run ends when both are spent, exactly as one counter would.
      'let __svc_fuel = 0; let __svc_reserve = __svc_rt.fuelBudget; let __svc_depth = 0; const __svc_maxDepth = __svc_rt.maxDepth;',
      `function __svc_refill() { const total = __svc_reserve + __svc_fuel; if (total < 0) { __svc_fuel = 0; __svc_reserve = 0; __svc_rt.fuelOut(); } __svc_fuel = (total < ${FUEL_CHUNK} ? total : ${FUEL_CHUNK}) | 0; __svc_reserve = total - __svc_fuel; }`,
      '__svc_refill();',
      ...bindingsOf(prologue),
      'const __svc_units = { "main": function (__svc_require, __svc_module, __svc_exports) {',
      '',
    ].join('\n'),
  );
  s.append(
    [
      '',
      '} };',
      'return { units: __svc_units, takeFuel(n) { __svc_fuel -= n; if (__svc_fuel < 0) __svc_refill(); }, fuelLeft() { return __svc_reserve + __svc_fuel; } };',
      '})',
    ].join('\n'),
  );
  const script: ProgramScript = {
    code: s.toString(),
    filename: SCRIPT_FILENAME,
    sourceMap: '',
    sources: programSources(input.source),
    hostModules: imported,
    usesTemporal: /\bTemporal\b/.test(input.source),
    key: '',
  };
  // Composed here, in the compile worker: the runner maps a failed run's stack with it.
  script.sourceMap = composeMap(s, output.code, output.map, SCRIPT_FILENAME).toString();
  script.key = createHash('sha256').update(script.code).update('\0').update(input.source).digest('hex');
  return { ok: true, script };
}
