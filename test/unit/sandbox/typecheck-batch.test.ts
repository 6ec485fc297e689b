// Checks in batches (sandbox/typecheck): a tenant's waiting programs of one declaration set
// are checked one after another with one resident type checker (resident.ts), as are all
// programs of a warm checker. Each program's answer must be what it is in a Program of its
// own, a program that could reach the others (`declare global`, a module augmentation) is
// checked alone, and a program whose check passes the budget costs the rest of its batch nothing.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Checkers, WARM_CHECKERS, WARM_DECLARATION_BYTES, batchable } from '../../../sandbox/typecheck/checker';
import { RESIDENT_PROGRAMS, RESIDENT_SOURCE_CHARACTERS, SUGGESTED_NAMES } from '../../../sandbox/typecheck/resident';
import { declarationSet } from '../../../sandbox/typecheck/declarations';
import { CheckerThread } from '../../../sandbox/typecheck/thread';
import type { CheckResult } from '../../../sandbox/typecheck/types';
import { hostModules } from '../../../src/stdlib';
import { catalogueTools, renderDeclarations, type UpstreamTool } from '../../../src/mcp/client';
import { repoRoot } from '../../harness';

const corpus = path.join(repoRoot, 'fixtures', 'typecheck-corpus');
const programs = ['pass', 'working', 'fail'].flatMap((dir) =>
  fs.readdirSync(path.join(corpus, dir)).filter((f) => f.endsWith('.ts')).sort().map((f) => fs.readFileSync(path.join(corpus, dir, f), 'utf8')),
);
const tools = JSON.parse(fs.readFileSync(path.join(corpus, 'mcp-tools.json'), 'utf8')) as UpstreamTool[];
const set = declarationSet([...[...hostModules().values()].map((m) => m.declarations), renderDeclarations('tracker', catalogueTools('tracker', tools).tools)]);

/**
 * Each corpus program checked in a Program of its own, with a new type checker: the answer the
 * resident checker must give. Computed once per mode and shared by the tests (a second of
 * checker time each).
 */
const aloneAnswers = new Map<'on' | 'strict', CheckResult[]>();
const inOwnProgram = (mode: 'on' | 'strict'): CheckResult[] => {
  let answers = aloneAnswers.get(mode);
  if (!answers) {
    const checkers = new Checkers(WARM_CHECKERS, WARM_DECLARATION_BYTES, false);
    answers = programs.map((source) => checkers.check({ source, mode, set }));
    aloneAnswers.set(mode, answers);
  }
  return answers;
};

describe('programs checked with one resident type checker', () => {
  for (const mode of ['on', 'strict'] as const) {
    test(`answers each program of the corpus as its check in a Program of its own does, in either order (${mode})`, () => {
      assert.ok(programs.filter(batchable).length > 20, `only ${programs.length} corpus programs`);
      const alone = inOwnProgram(mode);
      for (const order of ['forward', 'reversed'] as const) {
        const sources = order === 'forward' ? programs : [...programs].reverse();
        // One after another with the resident checker, and all at once as a batch.
        const checkers = new Checkers();
        const resident = sources.map((source) => checkers.check({ source, mode, set }));
        assert.deepEqual(order === 'forward' ? resident : [...resident].reverse(), alone, `${order}, resident`);
        const batched: CheckResult[] = [];
        const started: number[] = [];
        new Checkers().checkMany({ sources, mode, set }, (index) => started.push(index), (index, result) => (batched[index] = result));
        assert.deepEqual(started, sources.map((_, index) => index));
        assert.deepEqual(order === 'forward' ? batched : [...batched].reverse(), alone, `${order}, batch`);
      }
      // The corpus has both: refusals and programs that run.
      assert.ok(alone.some((result) => !result.ok) && alone.some((result) => result.ok));
    });
  }

  test('names imported types in its messages as a Program of the program\'s own does, whatever form the import takes', () => {
    // The resident checker names a program and lists its imports itself (a dynamic import or
    // an import type aside, which get a light Program): its answers must not change.
    const sources = [
      'import * as fs from "svc:fs";\nexport function main() { const entries: fs.DirEntry[] = fs.list("/"); const first: number = entries[0]; return first; }',
      'import { list } from "svc:fs";\nexport function main() { const stat: number = list("/")[0]; return stat; }',
      'import type { Stat } from "svc:fs";\nexport function size(stat: Stat): string { return stat; }',
      'export { list } from "svc:fs";\nimport * as fs from "svc:fs";\nexport const kind: boolean = fs.stat("/")!;',
      'import fs = require("svc:fs");\nexport const entry: string = fs.list("/")[0];',
      'export async function main() { const fs = await import("svc:fs"); const entry: string = fs.list("/")[0]; return entry; }',
      'export function main(): import("svc:fs").Stat { return 1; }',
    ];
    for (const mode of ['on', 'strict'] as const) {
      const alone = new Checkers(WARM_CHECKERS, WARM_DECLARATION_BYTES, false);
      const expected = sources.map((source) => alone.check({ source, mode, set }));
      assert.ok(expected.every((result) => !result.ok || result.warnings.length > 0), `every program has a type error (${mode})`);
      const checkers = new Checkers();
      assert.deepEqual(sources.map((source) => checkers.check({ source, mode, set })), expected, mode);
      assert.equal(checkers.typeCheckers, 1, 'one resident checker for them all');
    }
  });

  test('answers the same past the programs one resident checker takes (a new one is made)', () => {
    const sources = Array.from({ length: RESIDENT_PROGRAMS + 64 }, (_, i) => programs[i % programs.length]);
    const expected = inOwnProgram('on');
    const checkers = new Checkers();
    sources.forEach((source, i) => assert.deepEqual(checkers.check({ source, mode: 'on', set }), expected[i % programs.length], `program ${i}`));
    // At least one type checker for the first RESIDENT_PROGRAMS modules and another for the rest (more: the corpus's errors spend suggestions, SUGGESTED_NAMES); one each for the scripts and the programs that could reach the others.
    const alone = sources.filter((source) => !batchable(source) || !/^\s*(?:import|export)\b/m.test(source)).length;
    assert.ok(sources.length - alone > RESIDENT_PROGRAMS);
    assert.ok(checkers.typeCheckers >= 2 + alone, `${checkers.typeCheckers} type checkers`);
    // Programs without errors: one type checker for the first RESIDENT_PROGRAMS, a second for the rest.
    const clean = new Checkers();
    for (let i = 0; i <= RESIDENT_PROGRAMS; i++) assert.deepEqual(clean.check({ source: `export function main() { return ${i}; }`, mode: 'on', set }), { ok: true, edits: [], warnings: [] });
    assert.equal(clean.typeCheckers, 2);
  });

  test('a misspelt name gets the suggestion a Program of its own gives, however many names other programs (another token\'s) before it in the same checker could not resolve', () => {
    // TypeScript's checker suggests a name only for the first SUGGESTED_NAMES it fails to resolve in its life.
    const misspelt = 'export function main() { const result = 1; const total = 2; return reslt + totl; }';
    const alone = new Checkers(WARM_CHECKERS, WARM_DECLARATION_BYTES, false);
    const expected = alone.check({ source: misspelt, mode: 'strict', set });
    assert.ok(!expected.ok && expected.diagnostics.map((d) => d.help).join() === 'did you mean `result`?,did you mean `total`?', JSON.stringify(expected));
    for (let before = 0; before <= SUGGESTED_NAMES + 2; before++) {
      const checkers = new Checkers();
      for (let i = 0; i < before; i++) checkers.check({ source: `export function main() { return missing${i}; }`, mode: 'strict', set });
      assert.deepEqual(checkers.check({ source: misspelt, mode: 'strict', set }), expected, `after ${before} unresolved names`);
    }
  });

  test('one token flooding big programs with type errors leaves another token\'s programs, checked in between with the same checker, their own answers', () => {
    const other = programs.filter(batchable);
    // A program of ~15 KB: interfaces and a wrong assignment to each (type errors the resident
    // checker keeps until it is made anew), as many as make one flood per program pass what one
    // resident checker takes, with a margin (the checking time goes with the size: twice that,
    // as before, spent a third of the file's time for a second renewal the test does not need).
    const interfaces = Math.max(40, Math.ceil((1.2 * RESIDENT_SOURCE_CHARACTERS) / other.length / 93));
    const big = (n: number) => Array.from({ length: interfaces }, (_, i) => `interface F${n}_${i} { a${i}: string; b: number[] }\nconst f${n}_${i}: F${n}_${i} = { a${i}: ${i}, b: ["x"] };`).join('\n') + `\nexport function main() { return ${n}; }\n`;
    const expected = inOwnProgram('on').filter((_, i) => batchable(programs[i]));
    const checkers = new Checkers();
    let flooded = 0;
    // Every program once, and on round the corpus until the flood has passed what one resident
    // checker takes (the checker is made anew on the way, by source size alone: the checks
    // stay under RESIDENT_PROGRAMS), so programs are checked both before and after the renewal.
    for (let i = 0; i < other.length || flooded * big(0).length <= RESIDENT_SOURCE_CHARACTERS; i++) {
      const flood = checkers.check({ source: big(flooded++), mode: 'on', set });
      // The flood's errors are its own: under `on` they are warnings (at most 20), never another program's.
      assert.ok(flood.ok && flood.warnings.length === 20, JSON.stringify(flood).slice(0, 300));
      assert.deepEqual(checkers.check({ source: other[i % other.length], mode: 'on', set }), expected[i % other.length], `check ${i}, program ${i % other.length}`);
    }
    assert.ok(2 * flooded < RESIDENT_PROGRAMS, `${flooded} floods`);
    // The flood's source passed what one resident checker takes: it was made anew on the way.
    assert.ok(checkers.typeCheckers > 1, `${checkers.typeCheckers} type checkers`);
  });

  test('leaves out a program that can reach into the others', () => {
    assert.equal(batchable('declare global { var leaked: number }\nexport function main() { return 1; }'), false);
    assert.equal(batchable('declare module "svc:fs" { export function extra(): string; }\nexport {};'), false);
    assert.equal(batchable('declare   module\n"x" {}'), false);
    assert.equal(batchable('declare const x: number;\ndeclare namespace N { const y: string }\nexport const z = x;'), true);
    // What the rule keeps out: the first program's global never reaches the second, in a batch or after it.
    const checkers = new Checkers();
    const answers: CheckResult[] = [];
    checkers.checkMany({ sources: ['declare global { var leaked: number }\nexport {};', 'export function main() { return leaked; }'], mode: 'on', set }, () => {}, (index, result) => (answers[index] = result));
    assert.equal(answers[0].ok, true);
    assert.equal(answers[1].ok, false);
    assert.equal(checkers.check({ source: 'declare module "svc:fs" { export function extra(): string; }\nexport {};', mode: 'on', set }).ok, true);
    assert.equal(checkers.check({ source: 'import { extra } from "svc:fs";\nexport function main() { return extra(); }', mode: 'on', set }).ok, false);
  });
});

/** Ten thousand keys mapped over ten thousand keys: the check runs far past any budget. */
const slow = `type D = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";
type K4 = \`\${D}\${D}\${D}\${D}\`;
type M = { [K in K4]: { [J in K4]: \`\${K}-\${J}\` } };
declare const v: M[K4][K4];
export function main() { return "slow"; }
`;

describe('a batch through the checker thread', () => {
  const thread = new CheckerThread(pathToFileURL(path.join(repoRoot, 'dist', 'typecheck-worker.js')), { codeCacheDirectory: null, workers: 1, budgetMs: 2_000 });
  after(() => thread.close());

  test('a program past its budget costs the rest of its batch nothing: each is checked and answered', async () => {
    const ask = (source: string) => thread.ask({ source, mode: 'on', set }, 'one');
    // The first takes the one worker; the rest wait for it and go together, the slow one first.
    const first = ask('export function main() { return 1; }');
    const rest = [ask(slow), ask('export function main() { return missingName; }'), ask('export function main() { return [1, 2].map((n) => n * 2); }')];
    assert.equal((await first).ok, true);
    const [slowReply, mistake, fine] = await Promise.all(rest);
    assert.deepEqual(slowReply.ok ? 'answered' : slowReply.failure, 'budget');
    assert.ok(mistake.ok && !mistake.result.ok, JSON.stringify(mistake));
    assert.match(mistake.result.ok ? '' : mistake.result.diagnostics[0].message, /Cannot find name 'missingName'/);
    assert.ok(fine.ok && fine.result.ok, JSON.stringify(fine));
  });

  test('many programs of one tenant at once all get their own answers', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => thread.ask({ source: i % 2 ? `export function main() { return missing${i}; }` : `export function main() { return ${i}; }`, mode: 'on', set }, 'many')),
    );
    replies.forEach((reply, i) => {
      assert.ok(reply.ok, JSON.stringify(reply));
      if (i % 2) assert.match(reply.result.ok ? '' : reply.result.diagnostics[0].message, new RegExp(`Cannot find name 'missing${i}'`));
      else assert.equal(reply.result.ok, true);
    });
  });
});
