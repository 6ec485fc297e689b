// The pool leaves a program's source map out of a run message when it believes the runner
// holds it. That belief must never be wrong: for any sequence of runs, every key the pool's
// half-budget bookkeeping holds is held by the runner's full-budget one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Recent } from '../../../sandbox/runner/recent';

test('half the budget in entries and bytes holds a subset of the full budget, after any sequence of runs', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 5_000 })), { maxLength: 400 }), (runs) => {
      const sizes = new Map<string, number>();
      const pool = new Recent<true>(8, 10_000);
      const runner = new Recent<true>(16, 20_000);
      for (const [id, size] of runs) {
        const key = `k${id}`;
        // A program's map has one size (its content decides the key).
        const bytes = sizes.get(key) ?? size;
        sizes.set(key, bytes);
        const sent = !pool.has(key);
        if (pool.get(key) === undefined) pool.set(key, true, bytes);
        if (sent) runner.set(key, true, bytes);
        else assert.ok(runner.get(key), `the pool left ${key} out but the runner dropped it`);
        for (const held of sizes.keys()) if (pool.has(held)) assert.ok(runner.has(held), held);
      }
    }),
  );
});
