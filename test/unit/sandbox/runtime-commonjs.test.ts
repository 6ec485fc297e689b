// esbuild's CommonJS helpers given by the runtime (sandbox/prelude/commonjs.ts) instead of
// carried in the script: programs run in real runners behave as they do with esbuild's own
// copies inline (`helpers: 'inline'`), for less fuel; and a program that reaches the
// runtime's copies (by writing a helper's text itself) cannot steer them with what it
// replaced among the built-ins.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileHere } from '../../../sandbox/compile/compile';
import { transform } from '../../../sandbox/compile/esbuild';
import { learnHelpers, SEED_PROGRAM } from '../../../sandbox/compile/helpers';
import type { RunnerPool, RunOutcome } from '../../../sandbox';
import { DEFAULT_LIMITS, startPool, TEST_MODULES, testHost } from './runtime-harness';

let pool: RunnerPool;
before(async () => {
  pool = await startPool(1);
});
after(async () => {
  await pool.stop();
});

let runs = 0;
async function run(source: string, helpers: 'given' | 'inline'): Promise<RunOutcome> {
  const compiled = await compileHere({ source, availableModules: Object.keys(TEST_MODULES) }, { helpers });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
  const hostModules = Object.fromEntries(compiled.script.hostModules.map((name) => [name, TEST_MODULES[name as keyof typeof TEST_MODULES]]));
  return pool.run({ executionId: `commonjs-${++runs}`, script: compiled.script, hostModules, limits: DEFAULT_LIMITS }, testHost);
}

/** A program's result or error, given and inline, with the given helpers' script. */
async function both(source: string): Promise<{ given: string | null; inline: string | null }> {
  const given = await run(source, 'given');
  const inline = await run(source, 'inline');
  const shown = (outcome: RunOutcome) => outcome.result ?? outcome.error?.message ?? null;
  return { given: shown(given), inline: shown(inline) };
}

const SAME_AS_INLINE = [
  // A namespace import: its names, their descriptors, its prototype, `default`.
  `import * as t from "svc:test";
export function main() {
  const d = Object.getOwnPropertyDescriptor(t, "echo")!;
  return JSON.stringify([Object.keys(t), typeof d.get, d.set, d.enumerable, d.configurable, Object.getPrototypeOf(t) === Object.getPrototypeOf((t as any).default), (t as any).default === t.default, t.echo(5)]);
}`,
  // A default import and a named one from the same module.
  'import d, { echo } from "svc:test";\nexport function main() { return JSON.stringify([typeof d, typeof (d as any).echo, echo("x")]); }',
  // An exported `let` is read live: main is read after the top level reassigned it.
  'export let main = () => "first";\nmain = () => "second";',
  // `export *` puts the module\'s names on the exports beside the program\'s own.
  'export * from "svc:test";\nexport function main() { return "re-exported"; }',
  // The program's own names like the helpers' (esbuild renames its helpers then).
  'import * as t from "svc:test";\nconst __toESM = (x: unknown) => "mine";\nexport function main() { return JSON.stringify([__toESM(1), typeof t.echo, typeof (globalThis as any).__export]); }',
  'export function main() { return typeof (globalThis as any).__copyProps + typeof __export; }\ndeclare const __export: unknown;',
  // A program that writes a helper's very text itself (the runtime's copy stands in) and assigns to it.
  'var __defProp = Object.defineProperty;\nfunction main() { const was = __defProp === Object.defineProperty; __defProp = null; return [was, __defProp]; }',
  // Defining over a namespace's name fails, traced to the program's line.
  'import * as t from "svc:test";\nexport function main() { Object.defineProperty(t, "echo", { get() { return 1; } }); }',
];

test('programs behave the same with the runtime\'s helpers as with esbuild\'s own inline', async () => {
  for (const source of SAME_AS_INLINE) {
    const { given, inline } = await both(source);
    assert.equal(given, inline, source);
  }
});

test('a new program\'s script binds the helpers from the runtime and carries none of esbuild\'s copies', async () => {
  const compiled = await compileHere({ source: 'import * as t from "svc:test";\nexport * from "svc:test";\nexport function main() { return t; }', availableModules: ['svc:test'] });
  assert.ok(compiled.ok);
  const code = compiled.script.code;
  for (const name of ['__export', '__copyProps', '__reExport', '__toESM', '__toCommonJS']) assert.doesNotMatch(code, new RegExp(`var ${name}=`), name);
  assert.match(code, /= __svc_rt\.commonJsHelpers;/);
  const inline = await compileHere({ source: 'export function main() { return 1; }', availableModules: [] }, { helpers: 'inline' });
  const given = await compileHere({ source: 'export function main() { return 1; }', availableModules: [] });
  assert.ok(inline.ok && given.ok);
  assert.ok(given.script.code.length * 2 < inline.script.code.length, `${given.script.code.length} bytes given, ${inline.script.code.length} inline`);
});

test('the runtime\'s helpers charge no fuel: a new program uses less than with esbuild\'s copies, the same every run', async () => {
  const source = 'import * as t from "svc:test";\nexport function main() { return typeof t.echo; }';
  const given = await run(source, 'given');
  const again = await run(source, 'given');
  const inline = await run(source, 'inline');
  assert.equal(given.result, 'function');
  assert.equal(given.wasmFuel, again.wasmFuel);
  assert.ok(given.wasmFuel < inline.wasmFuel, `${given.wasmFuel} given, ${inline.wasmFuel} inline`);
});

/** esbuild's helper declarations as it prints them (its output for the seed program): a program may write them itself. */
async function helperDeclarations(): Promise<string> {
  const seed = await transform(SEED_PROGRAM, { loader: 'ts', format: 'cjs', target: 'es2022', minifyWhitespace: true, logLevel: 'silent' });
  return learnHelpers(seed.code, { ecmaVersion: 'latest', sourceType: 'script' })
    .map((helper) => helper.text)
    .join('');
}

test('a program that calls the runtime\'s helpers with a Proxy, after poisoning Object.prototype and the array iterator, gets their plain results and runs none of its traps but the Proxy\'s', async () => {
  // No export: esbuild adds no helpers of its own, so the program's copies open its output and the runtime's stand in.
  const source = `${await helperDeclarations()}
function main() {
  const ran: string[] = [];
  for (const field of ["get", "set", "value", "writable", "enumerable", "configurable"]) {
    Object.defineProperty(Object.prototype, field, { __proto__: null, get() { ran.push(field); return undefined; }, configurable: true } as PropertyDescriptor);
  }
  const iterator = Array.prototype[Symbol.iterator];
  Array.prototype[Symbol.iterator] = function (this: unknown[]) { ran.push("iterator"); return Reflect.apply(iterator, this, []); };
  Function.prototype.call = function () { ran.push("call"); return undefined; } as any;
  ran.length = 0;
  let reads = 0;
  const from = new Proxy({ a: 1, b: 2 }, { get(target, key) { reads++; return Reflect.get(target, key); } });
  const copied: any = __copyProps({}, from);
  const namespace: any = __toESM(from);
  const target: any = {};
  __export(target, { x: () => 5 });
  const exported: any = __toCommonJS(target);
  return JSON.stringify({ copied: [copied.a, copied.b], namespace: [namespace.a, namespace.default === from], x: target.x, esModule: exported.__esModule, exportedX: exported.x, reads, ran });
}`;
  const compiled = await compileHere({ source, availableModules: [] });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
  assert.doesNotMatch(compiled.script.code, /var __copyProps=/, 'the runtime gives the helpers the program wrote');
  const outcome = await run(source, 'given');
  assert.equal(outcome.error, null, outcome.error?.message);
  assert.deepEqual(JSON.parse(outcome.result!), { copied: [1, 2], namespace: [1, true], x: 5, esModule: true, exportedX: 5, reads: 4, ran: [] });
});
