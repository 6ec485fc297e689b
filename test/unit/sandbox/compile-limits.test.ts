// Compiling hostile sizes and shapes: every one ends as a result (a script or a clear
// compile_error), never as an exception, and no walk over the syntax tree recurses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgram, MAX_SOURCE_BYTES } from '../../../sandbox';

test('a 150,000-element array literal compiles (the instrumentation walks without spreading or recursing)', async () => {
  const source = `const data = [${Array.from({ length: 150_000 }, (_, i) => i % 10).join(',')}];\nexport function main() { return data.length; }`;
  const compiled = await compileProgram({ source, availableModules: [] });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
});

test('a long flat chain of statements and calls compiles', async () => {
  const source = `export function main() { let s = 0;\n${'s = Math.max(s, 1) + 1;\n'.repeat(60_000)} return s; }`;
  const compiled = await compileProgram({ source, availableModules: [] });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
});

for (const [shape, open, close] of [
  ['arrays', '[', ']'],
  ['parentheses', '(', ')'],
  ['blocks', '{', '}'],
  ['arrow functions', '(() => ', ')'],
] as const) {
  test(`${shape} nested 50,000 deep end as a compile_error that names the nesting and where it passes the limit`, async () => {
    const inner = shape === 'blocks' ? '' : '1';
    const body = shape === 'blocks' ? `${open.repeat(50_000)}${close.repeat(50_000)} return 1;` : `return ${open.repeat(50_000)}${inner}${close.repeat(50_000)};`;
    const compiled = await compileProgram({ source: `export function main() {\n${body}\n}`, availableModules: [] });
    assert.equal(compiled.ok, false);
    if (compiled.ok) return;
    assert.equal(compiled.error.kind, 'compile_error');
    assert.match(compiled.error.message, /brackets nest more than 1000 levels deep here; flatten the nesting/);
    assert.equal(compiled.error.diagnostics[0].line, 2);
    assert.ok(compiled.error.message.length < 2_000, String(compiled.error.message.length));
  });
}

test('nesting 200 deep (deep, but a program a person or model writes) still compiles, and brackets in strings and comments do not count', async () => {
  const strings = `const s = "${'('.repeat(5000)}"; const t = '${'['.repeat(5000)}'; // ${'{'.repeat(5000)}\n/* ${'('.repeat(5000)} */`;
  const source = `${strings}\nexport function main() { return ${'['.repeat(200)}${']'.repeat(200)}; }`;
  const compiled = await compileProgram({ source, availableModules: [] });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
});

test('a source over 2 MiB is a compile_error naming its size and the limit', async () => {
  const source = `export function main() { return 1; }\n//${'x'.repeat(MAX_SOURCE_BYTES)}`;
  const compiled = await compileProgram({ source, availableModules: [] });
  assert.equal(compiled.ok, false);
  if (compiled.ok) return;
  assert.match(compiled.error.message, new RegExp(`the program is ${Buffer.byteLength(source)} bytes; a program's source may be at most ${MAX_SOURCE_BYTES} bytes \\(2 MiB\\)`));
  assert.ok(compiled.error.message.length < 2_000, String(compiled.error.message.length));
});

test('thousands of errors report the first 20 and say more follow (each costs a pass over the source)', async () => {
  const source = `${Array.from({ length: 20_000 }, (_, i) => `const __svc_${i} = ${i};`).join('\n')}\nexport function main() { return 1; }`;
  const compiled = await compileProgram({ source, availableModules: [] });
  assert.equal(compiled.ok, false);
  if (compiled.ok) return;
  assert.equal(compiled.error.diagnostics.length, 21);
  assert.match(compiled.error.diagnostics[20].message, /more errors follow; the first 20 are shown/);
});
