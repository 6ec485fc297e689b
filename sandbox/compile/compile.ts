// Compiles a submitted TypeScript program into the isolate script of the sandbox
// contract: esbuild strips types (CommonJS output), acorn checks imports and `main`,
// the instrumentation adds metering, and the source map leads back to program.ts.
import { parse, type Node } from 'acorn';
import { transform, type Message } from 'esbuild';
import MagicString from 'magic-string';
import remapping from '@jridgewell/remapping';
import { PROGRAM_FILENAME, SCRIPT_FILENAME, type CompileResult, type Diagnostic } from '../contract';
import { positionOf, renderCompileError } from './diagnostics';
import { instrument } from './instrument';

type AnyNode = Node & Record<string, any>;

export interface CompileInput {
  source: string;
  /** `svc:` modules importable under this Blueprint. */
  availableModules: string[];
  /** Modules declared but unavailable for this run, with the reason (e.g. an `@mcp/` server that could not be discovered). */
  unavailable?: Readonly<Record<string, string>>;
}

const RESERVED_PREFIX = '__svc';

function failure(diagnostics: Diagnostic[], source: string): CompileResult {
  return { ok: false, error: { kind: 'compile_error', message: renderCompileError(diagnostics, source), diagnostics } };
}

function fromEsbuild(message: Message, severity: 'error' | 'warning'): Diagnostic {
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

function walk(node: AnyNode, visit: (node: AnyNode) => void): void {
  visit(node);
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item.type === 'string') walk(item, visit);
    } else if (value && typeof value.type === 'string' && key !== 'loc') walk(value, visit);
  }
}

function describeAvailable(available: string[]): string {
  return available.length > 0 ? `available modules: ${available.join(', ')}` : 'no modules are available to this program';
}

/** Import checks: every require() must name an available module with a literal string. */
function checkImports(ast: AnyNode, input: CompileInput): { diagnostics: Diagnostic[]; imported: string[] } {
  const diagnostics: Diagnostic[] = [];
  const imported = new Set<string>();
  walk(ast, (node) => {
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
      const hint = specifier.startsWith('node:') || !specifier.includes(':') ? '; programs run without Node.js or npm modules' : '';
      diagnostics.push({ severity: 'error', ...at, message: `cannot import \`${specifier}\`${hint}; ${describeAvailable(input.availableModules)}` });
      return;
    }
    imported.add(specifier);
  });
  return { diagnostics, imported: [...imported].sort() };
}

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
    if (statement.type === 'ExpressionStatement' && statement.expression.type === 'CallExpression' && statement.expression.callee.name === '__export') {
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

export async function compileProgram(input: CompileInput): Promise<CompileResult> {
  let output: { code: string; map: string; warnings: Message[] };
  try {
    output = await transform(input.source, {
      loader: 'ts',
      format: 'cjs',
      target: 'es2022',
      sourcemap: 'external',
      sourcefile: PROGRAM_FILENAME,
      logLevel: 'silent',
      supported: { 'dynamic-import': true },
      // Keep every import, even unused ones, so a refused import is always reported.
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    });
  } catch (error) {
    const errors = ((error as { errors?: Message[] }).errors ?? []).map((m) => fromEsbuild(m, 'error'));
    if (errors.length === 0) errors.push({ severity: 'error', line: 1, column: 1, message: (error as Error).message });
    return failure(errors, input.source);
  }

  let ast: AnyNode;
  try {
    ast = parse(output.code, { ecmaVersion: 'latest', sourceType: 'script', preserveParens: true, allowReturnOutsideFunction: false }) as AnyNode;
  } catch (error) {
    return failure([{ severity: 'error', line: 1, column: 1, message: `program could not be parsed after type stripping: ${(error as Error).message}` }], input.source);
  }

  const { diagnostics, imported } = checkImports(ast, input);
  const main = findMain(ast);
  if (!main.declared && !main.exported) {
    diagnostics.push({
      severity: 'error',
      line: 1,
      column: 1,
      message: 'the program has no top-level `main`; define `function main() { ... }` (or `export async function main()`) and return the result from it',
    });
  }
  if (diagnostics.length > 0) return failure(diagnostics, input.source);

  const s = new MagicString(output.code);
  instrument(ast, s);
  // A non-exported top-level main is still the entry point.
  if (main.declared && !main.exported) s.append('\nmodule.exports.main = main;');
  s.prepend(
    [
      '(function (__svc_rt) {',
      '"use strict";',
      'let __svc_fuel = __svc_rt.fuelBudget; let __svc_depth = 0; const __svc_maxDepth = __svc_rt.maxDepth;',
      'const __svc_units = { "main": function (require, module, exports) {',
      '',
    ].join('\n'),
  );
  s.append(
    [
      '',
      '} };',
      'return { units: __svc_units, takeFuel(n) { __svc_fuel -= n; if (__svc_fuel < 0) __svc_rt.fuelOut(); }, fuelLeft() { return __svc_fuel; } };',
      '})',
    ].join('\n'),
  );
  const instrumentedMap = s.generateMap({ hires: true, source: 'esbuild-output.js', file: SCRIPT_FILENAME, includeContent: false });
  const composed = remapping(instrumentedMap.toString(), (file) => (file === 'esbuild-output.js' ? output.map : null));

  return {
    ok: true,
    script: {
      code: s.toString(),
      filename: SCRIPT_FILENAME,
      sourceMap: composed.toString(),
      sources: { [PROGRAM_FILENAME]: input.source },
      hostModules: imported,
      usesTemporal: /\bTemporal\b/.test(input.source),
    },
  };
}
