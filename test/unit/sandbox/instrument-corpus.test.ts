// The instrumentation never breaks a program: a corpus of real JavaScript (the files under
// node_modules that acorn parses) instrumented must still parse and keep its function
// count; nesting cases that once produced broken scripts compile and run; and whatever
// esbuild accepts compiles or is a compile_error, never an exception.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { parse, type Node } from 'acorn';
import MagicString from 'magic-string';
import fc from 'fast-check';
import { compileProgram } from '../../../sandbox';
import { instrument } from '../../../sandbox/compile/instrument';
import { commonJsHelpers } from '../../../sandbox/prelude/commonjs';
import { repoRoot } from '../../harness';

type AnyNode = Node & Record<string, any>;
const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

function countFunctions(root: AnyNode): number {
  let count = 0;
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (FUNCTION_TYPES.has(node.type)) count++;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) {
        for (const item of value) if (item && typeof item.type === 'string') stack.push(item);
      } else if (value && typeof value.type === 'string' && key !== 'loc') stack.push(value);
    }
  }
  return count;
}

function jsFiles(dir: string, out: string[], seen: Set<string>): void {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch {
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  if (!fs.statSync(real).isDirectory()) {
    if (/\.[cm]?js$/.test(real)) out.push(real);
    return;
  }
  for (const name of fs.readdirSync(real).sort()) jsFiles(path.join(real, name), out, seen);
}

/** Parses as a script, else as a module; null when acorn takes neither. */
function parseEither(code: string): { ast: AnyNode; sourceType: 'script' | 'module' } | null {
  for (const sourceType of ['script', 'module'] as const) {
    try {
      return { ast: parse(code, { ecmaVersion: 'latest', sourceType, preserveParens: true, allowHashBang: true }) as AnyNode, sourceType };
    } catch {
      // try the other source type
    }
  }
  return null;
}

test('instrumenting a corpus of real JavaScript keeps every file parseable with the same number of functions', () => {
  const files: string[] = [];
  jsFiles(path.join(repoRoot, 'node_modules'), files, new Set());
  // A deterministic sample bounded in bytes keeps the test to a few seconds.
  const MAX_FILE = 256 * 1024;
  const BUDGET = 6 * 1024 * 1024;
  let bytes = 0;
  let checked = 0;
  let functions = 0;
  const failures: string[] = [];
  for (const file of files) {
    if (bytes > BUDGET) break;
    const size = fs.statSync(file).size;
    if (size > MAX_FILE || size === 0) continue;
    const code = fs.readFileSync(file, 'utf8');
    const parsed = parseEither(code);
    if (!parsed) continue;
    bytes += size;
    const s = new MagicString(code);
    let output: string;
    try {
      instrument(parsed.ast, s);
      output = s.toString();
    } catch (error) {
      failures.push(`${path.relative(repoRoot, file)}: instrument threw ${(error as Error).message}`);
      continue;
    }
    let reparsed: AnyNode;
    try {
      reparsed = parse(output, { ecmaVersion: 'latest', sourceType: parsed.sourceType, preserveParens: true, allowHashBang: true }) as AnyNode;
    } catch (error) {
      failures.push(`${path.relative(repoRoot, file)}: output does not parse: ${(error as Error).message}`);
      continue;
    }
    const before = countFunctions(parsed.ast);
    const after = countFunctions(reparsed);
    if (before !== after) failures.push(`${path.relative(repoRoot, file)}: ${before} functions became ${after}`);
    checked++;
    functions += before;
  }
  assert.deepEqual(failures.slice(0, 10), []);
  assert.ok(checked >= 200, `only ${checked} corpus files were checked`);
  assert.ok(functions >= 5000, `only ${functions} functions in the corpus`);
});

/** Compiles and runs `source` in node:vm with a counting runtime; returns main's result. */
async function compileAndRun(source: string): Promise<unknown> {
  const result = await compileProgram({ source, availableModules: [] });
  if (!result.ok) throw new Error(result.error.message);
  const rt = {
    fuelBudget: 1e12,
    maxDepth: 2000,
    commonJsHelpers: commonJsHelpers(),
    fuelOut() {
      throw new Error('FUEL_OUT');
    },
    stackOut() {
      throw new Error('STACK_OUT');
    },
    checkCaught() {},
  };
  const linked = vm.runInNewContext(result.script.code, {}, { filename: result.script.filename })(rt);
  const module = { exports: {} as Record<string, any> };
  linked.units.main(() => ({}), module, module.exports);
  return await module.exports.main();
}

test('nested concise arrows mixing async and sync compile to working scripts', async () => {
  assert.equal(await compileAndRun('export async function main() { const f = async (a: number) => (b: number) => a + b; return (await f(1))(2); }'), 3);
  assert.equal(await compileAndRun('export async function main() { const f = (a: number) => async (b: number) => a * b; return await f(3)(4); }'), 12);
  assert.equal(await compileAndRun('export async function main() { const pick = (c: boolean) => c ? () => 1 : async () => 2; return (pick(true) as () => number)() + await pick(false)(); }'), 3);
  assert.equal(await compileAndRun('export async function main() { const f = async () => async () => () => 5; return (await (await f())())(); }'), 5);
  // A loop whose body ends where an arrow's body ends, minified style.
  assert.equal(await compileAndRun('export function main() { let f: any; for (let i = 0; i < 3; i++) f = () => i; return f(); }'), 2);
});

test('a loop whose body is a return without a semicolon (ASI) compiles and returns', async () => {
  // The loop's closing brace and the return's closer land at one offset; the return's goes first.
  assert.equal(await compileAndRun('function find(list: number[]) {\n  for (const n of list) if (n > 1) return n\n  return -1\n}\nexport function main() { return find([1, 2, 3]) + find([]); }'), 1);
  assert.equal(await compileAndRun('function f(n: number) { while (n > 0) return (() => n)() }\nexport function main() { return f(4); }'), 4);
});

test('a destructuring catch parameter holding a function compiles and binds as before', async () => {
  const text = 'export function main() { try { throw [undefined]; } catch ([x = (function () { throw new Error("t"); })()]) { return "bound"; } }';
  await assert.rejects(() => compileAndRun(text), /^Error: t$/);
  assert.equal(await compileAndRun('export function main() { try { throw [undefined, { b: 2 }]; } catch ([x = ((n: number) => n + 1)(1), { b }]: any) { return x + b; } }'), 4);
  assert.equal(await compileAndRun('export function main() { try { throw {}; } catch ({ f = () => 7 }: any) { return f(); } }'), 7);
});

test('require, module and exports are not visible to programs', async () => {
  assert.equal(await compileAndRun('export function main() { return [typeof require, typeof module, typeof exports].join(","); }'), 'undefined,undefined,undefined');
  // Referring to one is a ReferenceError like any undeclared name.
  await assert.rejects(() => compileAndRun('export function main() { return (module as any).exports; }'), /module is not defined/);
  // A hashbang line stays a comment.
  assert.equal(await compileAndRun('#!/usr/bin/env svc\nexport function main() { return 1; }'), 1);
  // A non-exported main is still found.
  assert.equal(await compileAndRun('function main() { return typeof require; }'), 'undefined');
});

// Programs built from nested functions of every kind: whatever esbuild accepts compiles, and
// the compiled program computes what the plain one does.
const expr: fc.Memo<string> = fc.memo((depth) => {
  const leaf = fc.constantFrom('1', 'x', '(x + 1)', '[x][0]');
  if (depth <= 1) return leaf;
  const inner = expr(depth - 1);
  return fc.oneof(
    leaf,
    inner.map((e) => `((x) => ${e})(x)`),
    inner.map((e) => `(() => { return ${e}; })()`),
    inner.map((e) => `(function (x) { return ${e}; })(x)`),
    fc.tuple(inner, inner).map(([a, b]) => `(x > 1 ? ${a} : ${b})`),
    inner.map((e) => `(() => () => ${e})()()`),
    inner.map((e) => `((y) => { try { throw [y]; } catch ([z = (() => ${e})()]) { return z; } })(undefined)`),
    inner.map((e) => `(() => { let s = 0; for (let i = 0; i < 2; i++) s += ${e}; return s; })()`),
  );
});

test('property: generated programs compile, and compiled and plain programs agree', async () => {
  const { transform } = await import('esbuild');
  await fc.assert(
    fc.asyncProperty(expr(4), fc.integer({ min: -3, max: 3 }), async (body, x) => {
      const source = `export function main() { const x = ${x}; return ${body}; }`;
      const plain = await transform(source, { loader: 'ts', format: 'cjs' });
      const module = { exports: {} as Record<string, any> };
      new vm.Script(`(function (module, exports) { ${plain.code} })`).runInNewContext({})(module, module.exports);
      assert.deepEqual(await compileAndRun(source), module.exports.main());
    }),
    { numRuns: 150, seed: 13 },
  );
});
