// The checker against its corpus (fixtures/typecheck-corpus): realistic agent programs and
// the curated Packages' readme examples must pass; each mistake must fail with a diagnostic
// that says what is wrong (and the spelling suggestion as help where there is one).
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Typechecker } from '../../../sandbox';
import { Checkers } from '../../../sandbox/typecheck/checker';
import { declarationSet } from '../../../sandbox/typecheck/declarations';
import { hostModules } from '../../../src/stdlib';
import { catalogueTools, renderDeclarations, type UpstreamTool } from '../../../src/mcp/client';
import { closureDeclarations, resolveClosure, storeLookup } from '../../../src/packages/runtime';
import { PackageStore, readArtifactFile } from '../../../src/packages/store';
import { readManifest } from '../../../src/packages/project';
import { readmeExamples } from '../../../src/cli/package-tests';
import { repoRoot } from '../../harness';
import { curatedRoot, publishedCurated } from '../../support/curated/published';

const corpus = path.join(repoRoot, 'fixtures', 'typecheck-corpus');
const read = (dir: string) => fs.readdirSync(path.join(corpus, dir)).filter((f) => f.endsWith('.ts')).sort().map((f) => ({ name: `${dir}/${f}`, source: fs.readFileSync(path.join(corpus, dir, f), 'utf8') }));

const checker = new Typechecker({ worker: false });
const svcDeclarations = [...hostModules().values()].map((m) => m.declarations);
const tools = JSON.parse(fs.readFileSync(path.join(corpus, 'mcp-tools.json'), 'utf8')) as UpstreamTool[];
const trackerDeclarations = renderDeclarations('tracker', catalogueTools('tracker', tools).tools);
const check = (source: string, modules: string[], mode: 'on' | 'strict' = 'on') => checker.check({ source, mode, modules });

describe('type-check corpus', () => {
  for (const program of read('pass')) {
    test(`${program.name} passes`, async () => {
      const checked = await check(program.source, [...svcDeclarations, trackerDeclarations]);
      assert.ok(checked.ok, checked.ok ? '' : checked.error.message);
    });
  }

  // JavaScript as agents write it: the type errors TypeScript finds in it are warnings under `on`, refusals under `strict`.
  for (const program of read('working')) {
    test(`${program.name} passes with \`on\` (its type errors are warnings) and is refused by \`strict\``, async () => {
      const checked = await check(program.source, svcDeclarations);
      assert.ok(checked.ok, checked.ok ? '' : checked.error.message);
      assert.equal(checked.source, program.source);
      for (const warning of checked.warnings) assert.equal(warning.severity, 'warning');
      assert.ok(checked.warnings.length <= 20);
      if (/^\/\/ strict: refused$/m.test(program.source)) assert.ok(!(await check(program.source, svcDeclarations, 'strict')).ok, `${program.name} passed strict`);
    });
  }

  for (const program of read('fail')) {
    test(`${program.name} fails with a useful diagnostic`, async () => {
      const expect = /^\/\/ expect: (.*)$/m.exec(program.source)![1];
      const help = /^\/\/ help: (.*)$/m.exec(program.source)?.[1];
      const checked = await check(program.source, [...svcDeclarations, trackerDeclarations]);
      assert.ok(!checked.ok, `${program.name} passed the checker`);
      const first = checked.error.diagnostics[0];
      assert.match(first.message, new RegExp(expect));
      assert.ok(first.line >= 1 && first.column >= 1);
      if (help) assert.equal(first.help, help);
      assert.match(checked.error.message, /^compile errors? (\(\d+\) )?in program\.ts\nprogram\.ts:\d+:\d+: error: /);
    });
  }
});

describe('the curated Packages\' readme examples', () => {
  // The Packages as `svc build publish-local` publishes them, once per change for every test
  // file that needs them (support/curated/published.ts): building the project again here, in
  // process, was most of this file's time.
  let store: PackageStore;
  before(async () => {
    store = new PackageStore(await publishedCurated());
  });

  test('every example passes against its Package\'s declarations', async () => {
    let count = 0;
    const listed = store.list();
    assert.deepEqual(listed.map((found) => found.name).sort(), readManifest(curatedRoot).packages.map((entry) => entry.name).sort());
    for (const found of listed) {
      // Its dependencies' declarations too (the curated Packages' shapes from @svc/kit), as a run has them.
      const closure = resolveClosure([found.name], storeLookup(store));
      assert.ok(closure.ok, closure.ok ? '' : closure.message);
      const declarations = closureDeclarations(closure.order);
      for (const [index, example] of readmeExamples(readArtifactFile(found, 'docs/readme.md')).entries()) {
        const checked = await check(example, [...svcDeclarations, ...declarations]);
        assert.ok(checked.ok, `${found.name} example ${index + 1}:\n${checked.ok ? '' : checked.error.message}`);
        count++;
      }
    }
    assert.ok(count >= 13, `only ${count} examples`);
  });

  test('the README\'s svc:llm and @mcp examples pass', async () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const examples = readmeExamples(readme).filter((e) => /from "(svc:|@mcp\/)/.test(e));
    assert.ok(examples.length >= 2);
    const linear = renderDeclarations('linear', catalogueTools('linear', [
      { name: 'get_issue', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, outputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
      { name: 'create-issue', inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
    ]).tools);
    for (const example of examples) {
      const checked = await check(example, [...svcDeclarations, linear]);
      assert.ok(checked.ok, checked.ok ? '' : checked.error.message);
    }
  });
});

describe('modes', () => {
  test('on lets possibly-null values through; strict refuses them', async () => {
    const source = 'import * as fs from "svc:fs";\nexport function main() { return fs.readText("/a").length; }\n';
    assert.ok((await check(source, svcDeclarations)).ok);
    const strict = await check(source, svcDeclarations, 'strict');
    assert.ok(!strict.ok);
    assert.match(strict.error.diagnostics[0].message, /possibly 'null'/);
  });

  test('off checks nothing', async () => {
    const source = 'export function main() { return nope(); }';
    assert.deepEqual(await checker.check({ source, mode: 'off', modules: svcDeclarations }), { ok: true, source, warnings: [] });
  });

  test('syntax errors, refused imports and top-level await are left to the compile step', async () => {
    for (const source of ['export function main() { return 1 +; }', 'import x from "node:fs";\nexport function main() { return x; }', 'await 1;\nexport function main() {}']) {
      assert.deepEqual(await check(source, svcDeclarations), { ok: true, source, warnings: [] });
    }
  });

  test('when the server shuts down, a program is no longer held for its check: it goes on unchecked, with a warning saying so', async () => {
    const source = 'export function main() { return nope(); }';
    const shutdown = new AbortController();
    shutdown.abort();
    const checked = await checker.check({ source, mode: 'on', modules: [...svcDeclarations, '/* shutdown */'], signal: shutdown.signal });
    assert.ok(checked.ok);
    assert.equal(checked.source, source);
    assert.deepEqual(checked.warnings.map((w) => [w.severity, w.line, w.column]), [['warning', 1, 1]]);
    assert.match(checked.warnings[0].message, /^not type-checked: .*runs unchecked$/);
  });

  test('an @mcp tool with no required properties takes an optional argument object, as agents call tools', async () => {
    const calc = renderDeclarations('calc', catalogueTools('calc', [{ name: 'get-teams', inputSchema: { type: 'object' } }, { name: 'ping', inputSchema: { type: 'object', properties: {}, additionalProperties: false } }]).tools);
    const source = 'import calc, { ping } from "@mcp/calc";\nexport function main() { return [calc["get-teams"]({}), calc["get-teams"](), ping({}), ping()]; }';
    const checked = await check(source, [...svcDeclarations, calc]);
    assert.ok(checked.ok, checked.ok ? '' : checked.error.message);
    assert.deepEqual(checked.warnings, []);
    const wrong = await check('import { ping } from "@mcp/calc";\nexport function main() { return ping({ extra: 1 }); }', [...svcDeclarations, calc]);
    assert.ok(!wrong.ok);
  });

  test('declarations are as wide as the runtime: the standard web types and ES2024+ built-ins', async () => {
    const source = `export async function main() {
  const alg: string = "SHA-256";
  const digest = await crypto.subtle.digest(alg, new TextEncoder().encode("x"));
  const groups = Object.groupBy([1, 2, 3], (n) => (n % 2 ? "odd" : "even"));
  const { promise, resolve } = Promise.withResolvers<number>();
  resolve(1);
  const union = new Set([1]).union(new Set([2]));
  const fromAsync = await Array.fromAsync([Promise.resolve(1)]);
  const taken = [1, 2, 3].values().map((n) => n * 2).toArray();
  const url = new URL("/a", "https://example.com");
  const headers = new Headers({ a: "b" });
  const init: RequestInit = { method: "POST", headers, body: JSON.stringify({}), signal: AbortSignal.timeout(1000) };
  console.info([{ a: 1 }]);
  return [digest.byteLength, groups.odd?.length, await promise, union.size, fromAsync, taken, url.href, init.method, structuredClone({ a: 1 })];
}`;
    const checked = await check(source, svcDeclarations);
    assert.ok(checked.ok, checked.ok ? '' : checked.error.message);
    assert.deepEqual(checked.warnings, []);
  });

  test('warm checkers are bounded by count and by the bytes of declarations they hold', () => {
    const checkers = new Checkers(4, 20_000);
    const source = 'export function main() { return 1; }';
    for (let i = 0; i < 10; i++) checkers.check({ source, mode: 'on', set: declarationSet([`declare module "@x/p${i}" { export const n: number; }`]) });
    assert.equal(checkers.size, 4);
    const large = (i: number) => `declare module "@x/large${i}" {\n${Array.from({ length: 400 }, (_, j) => `  export const v${j}: number;`).join('\n')}\n}`;
    for (let i = 0; i < 5; i++) checkers.check({ source, mode: 'on', set: declarationSet([large(i)]) });
    const size: number = checkers.size;
    assert.ok(checkers.heldBytes <= 20_000 || size === 1, `${checkers.heldBytes} bytes in ${size} checkers`);
    assert.ok(size < 4);
  });

  test('a program past the size bound runs unchecked with a warning, never a refusal', async () => {
    const bounded = new Typechecker({ worker: false, maxCheckedBytes: 1024 });
    const source = `${'// filler line of a long program\n'.repeat(40)}export function main() { return nope(); }`;
    const checked = await bounded.check({ source, mode: 'on', modules: svcDeclarations });
    assert.ok(checked.ok);
    assert.match(checked.warnings[0].message, /^not type-checked: the program is \d+ bytes, past the 1 KiB the checker takes/);
  });

  test('on: errors against svc\'s declarations block; the same kind of error against the program\'s own code is a warning', async () => {
    const blocked = [
      ['import * as fs from "svc:fs";\nexport function main() { return fs.readText(1); }', /Argument of type 'number'/],
      ['export function main() { return "abc".lenght; }', /Property 'lenght' does not exist on type '"abc"'|on type 'string'/],
      ['export function main() { return [1].fooBar(); }', /Property 'fooBar' does not exist on type 'number\[\]'/],
      ['export function main() { return fetch(); }', /Expected 1-2 arguments/],
      ['export function main() { return Math.floor.nope; }', /Property 'nope' does not exist/],
      ['export async function main() { let reply = await fetch("https://example.com"); return reply.jsn(); }', /Property 'jsn' does not exist on type 'Response'/],
      ['export function main() { return undefinedThing(); }', /Cannot find name 'undefinedThing'/],
    ] as const;
    for (const [source, pattern] of blocked) {
      const checked = await check(source, svcDeclarations);
      assert.ok(!checked.ok, `${source} passed`);
      assert.match(checked.error.diagnostics[0].message, pattern);
    }
    const warned = [
      'function f(a: string) { return a; }\nexport function main() { return f(1); }',
      'class A { m() { return this.nope; } }\nexport function main() { return new A().m() ?? "x"; }',
      'export function main() { let x = 1; x = "s"; return x.length; }',
      'export function main() { const o = { a: 1 }; return o.b ?? "none"; }',
      'export function main() { return parseInt(12.5) + Math.max("3", 1); }',
      'export function main() { let t: Missing = 1; return t; }',
    ];
    for (const source of warned) {
      const checked = await check(source, svcDeclarations);
      assert.ok(checked.ok, checked.ok ? '' : `${source}: ${checked.error.message}`);
      assert.ok(checked.warnings.length > 0, `${source} had no warning`);
      assert.ok(!(await check(source, svcDeclarations, 'strict')).ok, `${source} passed strict`);
    }
  });

  test('at most 20 diagnostics', async () => {
    const source = `export function main() {\n${Array.from({ length: 30 }, (_, i) => `  nope${i}();`).join('\n')}\n}`;
    const checked = await check(source, svcDeclarations);
    assert.ok(!checked.ok);
    assert.equal(checked.error.diagnostics.length, 20);
  });

  test('a derived schema is inserted after the prompt argument; an explicit schema is left alone', async () => {
    const source = 'import * as llm from "svc:llm";\nexport function main() { return [llm.call<{ a: number[] }>("m", "p"), llm.call<{ b: string }>("m", "p", { type: "object" })]; }';
    const checked = await check(source, svcDeclarations);
    assert.ok(checked.ok);
    assert.equal(checked.source, `${source.replace('"m", "p")', '"m", "p", $svcSchema0())')}\nfunction $svcSchema0() { return {"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}}},"required":["a"],"additionalProperties":false}; }\n`);
  });

  test('schema functions are named apart from the program\'s own names', async () => {
    const source = 'import * as llm from "svc:llm";\nconst $svcSchema0 = 1;\nexport function main() { return llm.call<{ a: string }>("m", "p"); }';
    const checked = await check(source, svcDeclarations);
    assert.ok(checked.ok);
    assert.match(checked.source, /"p", \$svcSchema_0\(\)\)/);
    assert.match(checked.source, /\nfunction \$svcSchema_0\(\) \{ return \{"type":"object"/);
  });
});
