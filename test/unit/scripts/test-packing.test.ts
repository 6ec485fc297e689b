// The test runner's packing (scripts/test-packing.mjs): `jobs` files at once as before, more
// only while the running files are expected to leave cores idle, longest first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coresUsed, filesToStart, type FileTime } from '../../../scripts/test-packing.mjs';

const times: Record<string, FileTime> = {
  // Mostly waiting: 44 s of wall for 4.4 CPU-s (a tenth of a core).
  waits: { wall: 44, cpu: 4.4 },
  alsoWaits: { wall: 40, cpu: 4 },
  // CPU-heavy: 0.8 of a core each.
  heavy: { wall: 30, cpu: 24 },
  heavier: { wall: 25, cpu: 20 },
  unknown: { wall: 5, cpu: null },
  short: { wall: 2, cpu: 0.2 },
  // Its own process waits (0.2 of a core) while its runners spin (1 core more).
  spinsRunners: { wall: 20, cpu: 4, runners: 20 },
};
const timeOf = (file: string) => times[file];
const limits = { jobs: 3, extraJobs: 5, cores: 2 };

test('a file uses CPU over wall of its last run, a whole core when its CPU is unknown, at most the cores', () => {
  assert.equal(coresUsed({ wall: 44, cpu: 4.4 }, 2), 0.1);
  assert.equal(coresUsed({ wall: 5, cpu: null }, 2), 1);
  assert.equal(coresUsed({ wall: 0, cpu: 3 }, 2), 1);
  assert.equal(coresUsed({ wall: 1, cpu: 9 }, 2), 2);
});

test('`jobs` files start whatever their CPU, in the order given (longest first)', () => {
  assert.deepEqual(filesToStart(['heavy', 'heavier', 'unknown'], [], timeOf, limits), ['heavy', 'heavier', 'unknown']);
  assert.deepEqual(filesToStart(['heavy', 'heavier', 'unknown', 'short'], [], timeOf, { ...limits, extraJobs: 3 }), ['heavy', 'heavier', 'unknown']);
});

test('past `jobs`, a file joins only while the cores in use stay within the machine', () => {
  // Three waiting files use 0.3 of a core: a heavy one joins (1.1 cores), then a short one (1.2), and then extraJobs (5) are running.
  assert.deepEqual(filesToStart(['heavy', 'short', 'unknown'], ['waits', 'alsoWaits', 'short'], timeOf, limits), ['heavy', 'short']);
  // A file of unknown CPU counts as a whole core: 0.3 + 1 fits, a heavy one after it (2.1) does not.
  assert.deepEqual(filesToStart(['unknown', 'heavy'], ['waits', 'alsoWaits', 'short'], timeOf, limits), ['unknown']);
  // Three heavy files (2.6 cores, over the 2) leave no room: nothing more starts.
  assert.deepEqual(filesToStart(['waits', 'short'], ['heavy', 'heavier', 'heavy'], timeOf, limits), []);
  // A file that does not fit is passed over for a later, lighter one.
  assert.deepEqual(filesToStart(['heavier', 'short'], ['heavy', 'heavy', 'waits'], timeOf, limits), ['short']);
  // Never more than extraJobs.
  assert.deepEqual(filesToStart(['short', 'short'], ['waits', 'alsoWaits', 'short', 'waits'], timeOf, limits), ['short']);
});

test("a file's runners' CPU counts as its own: a file whose runners spin is not stacked on busy ones", () => {
  assert.equal(coresUsed({ wall: 20, cpu: 4, runners: 20 }, 2), 1.2);
  assert.equal(coresUsed({ wall: 20, cpu: 4, runners: null }, 2), 0.2);
  // Beside the three waiting files (0.3 of a core) it fits (1.5); beside a heavy one (0.8 + 0.1 + 0.1) it does not (2.2), and a short one joins instead.
  assert.deepEqual(filesToStart(['spinsRunners'], ['waits', 'alsoWaits', 'short'], timeOf, limits), ['spinsRunners']);
  assert.deepEqual(filesToStart(['spinsRunners', 'short'], ['heavy', 'waits', 'alsoWaits'], timeOf, limits), ['short']);
});
