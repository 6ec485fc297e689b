// esbuild's helper declarations are learned once per thread (sandbox/compile/helpers.ts):
// those the runtime gives are removed from the script, the others replayed; a compile that
// replays them must give the same script, source map, fuel charges and diagnostics, byte for
// byte, as one that parses the whole output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileHere } from '../../../sandbox/compile/compile';
import { transform } from '../../../sandbox/compile/esbuild';
import { learnHelpers, matchPrologue, SEED_PROGRAM } from '../../../sandbox/compile/helpers';
import { COMMONJS_HELPER_NAMES } from '../../../sandbox/contract';

const PROGRAMS = [
  'export function main() { return "hello"; }',
  'function main() { return 1; }',
  'import * as fs from "svc:fs";\nexport async function main() { for (const x of [1, 2]) { try { await fs.read(String(x)); } catch ({ message }) { return message; } } }',
  'import fs from "svc:fs";\nexport const main = () => fs;',
  'import { read } from "svc:fs";\nexport * from "svc:fs";\nexport function main() { return read; }',
  'export { x as main };\nconst x = (a: number): number => (a > 1 ? x(a - 1) : 0);',
  '#!/usr/bin/env node\nexport function main() { return 3; }',
  '"use strict";\nexport function main() { return 4; }',
  'enum E { A, B }\nnamespace N { export const y = 1; }\nexport class C { #p = 1; static s = 2; get q() { return this.#p; } }\nexport function main() { return [E.A, N.y, new C().q]; }',
  'export async function* gen() { yield 1; }\nexport function main() { label: for (;;) { while (true) break label; } return gen; }',
  'export function main() { try { throw 1; } catch { return 2; } }',
  'export default function main() { return 5; }',
  // esbuild renames a program's own names that collide with its helpers.
  'const __export = 1;\nconst __defProp = 2;\nexport function main() { return __export + __defProp; }',
  'var __defProp = Object.defineProperty;\nfunction main() { return __defProp; }',
  // Refused programs: the same diagnostics at the same positions.
  'import { x } from "svc:nope";\nexport function main() { return x; }',
  'export function main() { const __svc_x = 1; return __svc_x; }',
  'export function main() { return require("svc:fs"); }',
  'export function main() { return import("svc:fs"); }',
  'export function main() { return 1; }\nexport function helper() { return main; }\nwith (x) {}',
  'export function helper() {}\n',
];

test('a compile that replays the learned helpers gives the same result as one that parses the whole output', async () => {
  for (const source of PROGRAMS) {
    const input = { source, availableModules: ['svc:fs'] };
    const reused = await compileHere(input, { helpers: 'replayed' });
    const whole = await compileHere(input, { helpers: 'inline' });
    assert.deepEqual(reused, whole, source);
  }
});

const PARSE = { ecmaVersion: 'latest', sourceType: 'script', preserveParens: true } as const;
const TRANSFORM = { loader: 'ts', format: 'cjs', target: 'es2022', sourcemap: 'external', minifyWhitespace: true, sourcefile: 'program.ts', logLevel: 'silent', tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } } } as const;

test('the helpers are learned from esbuild and open the output of an ordinary program', async () => {
  const helpers = learnHelpers((await transform(SEED_PROGRAM, TRANSFORM)).code, PARSE);
  const names = helpers.map((h) => /^var (\w+)=/.exec(h.text)?.[1]);
  for (const name of ['__defProp', '__export', '__copyProps', '__toCommonJS', '__toESM']) assert.ok(names.includes(name), `${name} learned (${names.join(', ')})`);
  const output = (await transform('import * as fs from "svc:fs";\nexport function main() { return fs; }', TRANSFORM)).code;
  const prologue = matchPrologue(output, helpers);
  assert.ok(prologue.end > output.length / 2, `the helpers are most of a small program's output (${prologue.end} of ${output.length})`);
  assert.ok(output.slice(prologue.end).includes('main'), 'the program itself is left to parse');
});

test('a program whose own code opens with a helper-like statement is parsed, not matched', async () => {
  const helpers = learnHelpers((await transform(SEED_PROGRAM, TRANSFORM)).code, PARSE);
  // Not learned: statements that name what the compile acts on.
  assert.deepEqual(learnHelpers('var __req=require("svc:fs");var __m=main;', PARSE), []);
  // After the helpers, a quote could open a directive: then the whole output is parsed.
  const text = helpers[0].text;
  assert.equal(matchPrologue(`${text}"use strict";`, helpers).end, 0);
  assert.equal(matchPrologue(`x;${text}`, helpers).end, 0);
  assert.equal(matchPrologue(`${text}x;`, helpers).end, text.length);
});

test('every helper esbuild opens its output with is one the runtime gives (an esbuild that changed one would leave it in scripts)', async () => {
  const helpers = learnHelpers((await transform(SEED_PROGRAM, TRANSFORM)).code, PARSE);
  assert.deepEqual(helpers.filter((h) => !h.given).map((h) => h.name), []);
  assert.deepEqual(helpers.map((h) => h.name).sort(), [...COMMONJS_HELPER_NAMES].sort());
  const output = (await transform('export function main() { return 1; }', TRANSFORM)).code;
  const prologue = matchPrologue(output, helpers);
  assert.equal(prologue.nodes, 0, 'given helpers are not charged');
  assert.ok(prologue.given.includes('__toCommonJS'));
  assert.deepEqual(matchPrologue(output, helpers, false).given, [], 'replayed, none is given');
});
