// The pool leaves a program's source map out of a run message when it believes the runner
// holds it. That belief must never be wrong: for any sequence of runs, every key the pool's
// half-budget bookkeeping holds is held by the runner's full-budget one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { boundedCache } from '../../../sandbox/bounded-cache';

test('half the budget in entries and bytes holds a subset of the full budget, after any sequence of runs', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 5_000 })), { maxLength: 400 }), (runs) => {
      const sizes = new Map<string, number>();
      const pool = boundedCache<number>({ maxEntries: 8, maxBytes: 10_000, sizeOf: (bytes) => bytes });
      const runner = boundedCache<number>({ maxEntries: 16, maxBytes: 20_000, sizeOf: (bytes) => bytes });
      for (const [id, size] of runs) {
        const key = `k${id}`;
        // A program's map has one size (its content decides the key).
        const bytes = sizes.get(key) ?? size;
        sizes.set(key, bytes);
        const sent = !pool.has(key);
        if (pool.get(key) === undefined) pool.set(key, bytes);
        if (sent) runner.set(key, bytes);
        else assert.ok(runner.get(key) !== undefined, `the pool left ${key} out but the runner dropped it`);
        for (const held of sizes.keys()) if (pool.has(held)) assert.ok(runner.has(held), held);
      }
    }),
  );
});

test('a bounded cache keeps its entries within the byte budget and drops the least recently used first', () => {
  const cache = boundedCache<string>({ maxEntries: 100, maxBytes: 1_000, sizeOf: (text) => text.length * 2 });
  for (let i = 0; i < 50; i++) {
    cache.set(`k${i}`, 'x'.repeat(100));
    if (i === 10) cache.get('k5');
    assert.ok(cache.calculatedSize <= 1_000, String(cache.calculatedSize));
  }
  assert.deepEqual([...cache.keys()], ['k49', 'k48', 'k47', 'k46', 'k45']);
  cache.set('huge', 'x'.repeat(600));
  assert.equal(cache.has('huge'), false, 'an entry past the whole budget is not kept');
});
