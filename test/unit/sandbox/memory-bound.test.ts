// A runner's memory bound (sandbox/pool/memory-bound.ts): the resident size a runner reports is
// taken only when it is a non-negative finite number, and a runner drains for memory only past
// a bound that is set, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pastMemoryBound, reportedRss } from '../../../sandbox/pool/memory-bound';
import type { Runner } from '../../../sandbox/pool/runs';

const MIB = 1048576;
const runner = (rss: number, draining = false) => ({ rss, draining }) as Runner;

test('a reported resident size that is not a non-negative finite number keeps what was known', () => {
  assert.equal(reportedRss(300 * MIB, 0), 300 * MIB);
  for (const bad of [undefined, null, '300', -1, Number.NaN, Number.POSITIVE_INFINITY, { rss: 1 }]) assert.equal(reportedRss(bad, 7), 7);
});

test('past the bound only when one is set (0: never) and the runner is not draining already', () => {
  assert.equal(pastMemoryBound(runner(513 * MIB), 512), true);
  assert.equal(pastMemoryBound(runner(512 * MIB), 512), false);
  assert.equal(pastMemoryBound(runner(10_000 * MIB), 0), false);
  assert.equal(pastMemoryBound(runner(513 * MIB, true), 512), false);
});
