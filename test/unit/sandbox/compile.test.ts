// The compile pipeline: type stripping, diagnostics with 1-based positions, import and
// `main` checks, reserved identifiers, deterministic fuel charges, catch guards and the
// source map back to program.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { compileProgram, type ProgramScript } from '../../../sandbox';
import { mapRuntimeStack, renderRuntimeError } from '../../../sandbox/compile';
import { commonJsHelpers } from '../../../sandbox/prelude/commonjs';

async function compiled(source: string, availableModules: string[] = []): Promise<ProgramScript> {
  const result = await compileProgram({ source, availableModules });
  if (!result.ok) throw new Error(result.error.message);
  return result.script;
}

/** Runs a compiled script in node:vm with a counting runtime; returns result and fuel used. */
function runScript(script: ProgramScript, options: { budget?: number; maxDepth?: number } = {}) {
  const budget = options.budget ?? 1e12;
  const caught: unknown[] = [];
  const rt = {
    fuelBudget: budget,
    maxDepth: options.maxDepth ?? 2000,
    commonJsHelpers: commonJsHelpers(),
    fuelOut() {
      throw new Error('FUEL_OUT');
    },
    stackOut() {
      throw new Error('STACK_OUT');
    },
    checkCaught(e: unknown) {
      caught.push(e);
    },
  };
  const linked = vm.runInNewContext(script.code, {}, { filename: script.filename })(rt);
  const module = { exports: {} as Record<string, any> };
  linked.units.main(() => ({}), module, module.exports);
  const result = module.exports.main();
  return { result, fuel: budget - linked.fuelLeft(), caught };
}

test('types are stripped and a non-exported main is the entry point', async () => {
  const script = await compiled('interface P { x: number }\nfunction main(): number { const p: P = { x: 2 }; return p.x * 21; }');
  assert.equal(runScript(script).result, 42);
});

test('a syntax error is a diagnostic with 1-based line and column and a caret excerpt', async () => {
  const result = await compileProgram({ source: 'export function main() {\n  let x = ;\n}', availableModules: [] });
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.error.kind, 'compile_error');
  assert.deepEqual({ line: result.error.diagnostics[0].line, column: result.error.diagnostics[0].column }, { line: 2, column: 11 });
  assert.match(result.error.message, /program\.ts:2:11/);
  assert.match(result.error.message, /\n\s+\^/);
});

test('an import outside the available modules is refused naming it and listing what is available', async () => {
  const result = await compileProgram({ source: 'import { readFileSync } from "fs";\nexport function main() { return readFileSync; }', availableModules: ['svc:fs', 'svc:url'] });
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.match(result.error.message, /`fs`/);
  assert.match(result.error.message, /svc:fs, svc:url/);
  assert.equal(result.error.diagnostics[0].line, 1);
});

test('an unused import is still checked, and an available one is recorded', async () => {
  const refused = await compileProgram({ source: 'import * as x from "svc:nope";\nexport function main() {}', availableModules: ['svc:fs'] });
  assert.equal(refused.ok, false);
  const script = await compiled('import * as fs from "svc:fs";\nexport function main() {}', ['svc:fs']);
  assert.deepEqual(script.hostModules, ['svc:fs']);
});

test('a program without main, with top-level await, or with __svc identifiers is refused', async () => {
  for (const [source, pattern] of [
    ['export function start() {}', /main/],
    ['const x = await Promise.resolve(1);\nexport function main() { return x; }', /top-level await/],
    ['export function main() { const __svc_fuel = 1; return __svc_fuel; }', /reserved/],
  ] as const) {
    const result = await compileProgram({ source, availableModules: [] });
    assert.equal(result.ok, false, source);
    if (!result.ok) assert.match(result.error.message, pattern);
  }
});

test('a million-iteration loop charges about ten fuel per iteration, the same every compile', async () => {
  const source = 'export function main() { let sum = 0; for (let i = 0; i < 1_000_000; i++) { sum += i; } return sum; }';
  const script = await compiled(source);
  const first = runScript(script);
  const second = runScript(await compiled(source));
  assert.equal(first.result, 499999500000);
  assert.equal(first.fuel, second.fuel);
  assert.ok(first.fuel > 5_000_000 && first.fuel < 20_000_000, `fuel ${first.fuel}`);
  assert.throws(() => runScript(script, { budget: 1_000_000 }), /FUEL_OUT/);
});

test('deep recursion trips the depth counter', async () => {
  const script = await compiled('function f(n: number): number { return n === 0 ? 0 : 1 + f(n - 1); }\nexport function main() { return f(5000); }');
  assert.throws(() => runScript(script, { maxDepth: 100 }), /STACK_OUT/);
  assert.equal(runScript(script, { maxDepth: 10_000 }).result, 5000);
});

test('every catch clause reports the caught value to the runtime first, also without a binding', async () => {
  const script = await compiled('export function main() { try { throw new Error("a"); } catch { } try { throw 7; } catch (e) { } try { throw { k: 1 }; } catch ({ k }) { return k; } }');
  const { result, caught } = runScript(script);
  assert.equal(result, 1);
  assert.equal(caught.length, 3);
  assert.equal(caught[1], 7);
});

test('a runtime error position maps back to the submitted line', async () => {
  const script = await compiled('type T = string;\n\nexport function main() {\n  const t: T = "x";\n  throw new Error(t);\n}');
  let stack = '';
  try {
    runScript(script);
  } catch (error) {
    stack = (error as Error).stack ?? '';
  }
  const frames = mapRuntimeStack(stack, script);
  assert.equal(frames[0].line, 5);
});

test('a forged stack naming the script at line or column 0, or past its end, maps to no frame and never throws', async () => {
  const script = await compiled('export function main() { return 1; }');
  const forged = [`Error: x`, `    at main (${script.filename}:1:0)`, `    at f (${script.filename}:0:5)`, `    at g (${script.filename}:99999:99999)`, `    at h (${script.filename}:-1:2)`].join('\n');
  assert.deepEqual(mapRuntimeStack(forged, script), []);
  assert.equal(renderRuntimeError('Error: x', forged, script), 'Error: x');
});
