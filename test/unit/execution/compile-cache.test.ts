// The compile cache keeps a program's texts as UTF-8 outside V8's heap (src/execution/compile-cache.ts):
// a hit gives back exactly what the compile gave, a source UTF-8 cannot hold included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CompileCache } from '../../../src/execution/compile-cache';
import { metrics } from '../../../src/metrics';

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/** Compiles so far (the cache times only its misses). */
async function compiles(): Promise<number> {
  const { values } = await metrics.compileDuration.get();
  return values.find((value) => value.metricName === 'svc_compile_duration_seconds_count')?.value ?? 0;
}

/** The same program through one cache twice: the second must be a hit. */
async function twice(source: string) {
  const cache = new CompileCache();
  const request = { source, sourceHash: hash(source), availableModules: ['svc:fs'], unavailable: {} };
  const before = await compiles();
  const first = await cache.compile(request);
  assert.equal(await compiles(), before + 1, 'the first is compiled');
  const second = await cache.compile(request);
  assert.equal(await compiles(), before + 1, 'the second comes from the cache');
  return { first, second };
}

test('a hit gives back the compile\'s code, source map and sources exactly, in a result of its own', async () => {
  const { first, second } = await twice('// héllo ✓ 😀\nexport function main(): string { return "naïve ✓"; }\n');
  assert.equal(first.ok, true);
  assert.deepEqual(second, first);
  assert.notEqual(second, first, 'decoded anew, not the object the compile returned');
});

test('a source with a lone surrogate (JSON can carry one) comes back unchanged, not as U+FFFD', async () => {
  const source = '// \ud800 alone\nexport function main() { return 1; }\n';
  const { first, second } = await twice(source);
  assert.equal(first.ok, true);
  assert.ok(second.ok);
  assert.equal(second.script.sources['program.ts'], source);
  assert.deepEqual(second, first);
});

test('a failed compile is kept and given back as it was', async () => {
  const { first, second } = await twice('export function main( { return 1; }\n');
  assert.equal(first.ok, false);
  assert.deepEqual(second, first);
});
