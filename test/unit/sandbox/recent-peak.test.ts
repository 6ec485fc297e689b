// The runner's shelf keeps as many warm isolates as the most runs it had in flight lately:
// the peak holds for the current and the previous window, then falls back; never more than
// the runs its runner may host at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentPeak } from '../../../sandbox/runner/shelf';

test('the peak of the current and the previous window; nothing after two quiet windows', () => {
  let now = 0;
  const peak = new RecentPeak(1000, () => now);
  assert.equal(peak.value, 0);
  peak.note(3);
  peak.note(32);
  peak.note(5);
  assert.equal(peak.value, 32);
  now = 1500; // the next window: the burst is still remembered
  peak.note(2);
  assert.equal(peak.value, 32);
  now = 2600; // a further window: only the last one counts
  assert.equal(peak.value, 2);
  now = 5000; // quiet for longer than a window: nothing is remembered
  assert.equal(peak.value, 0);
});

test('the shelf keeps its floor of prepared isolates and a few spares, but never more than the runs its runner may host at once and their spares', async () => {
  const { Shelf } = await import('../../../sandbox/runner/shelf');
  const shelfFor = (runsAtOnce: number) => new Shelf({ send: () => {} }, () => {}, () => 0, runsAtOnce);
  assert.equal(shelfFor(1000).wanted, 36);
  assert.equal(shelfFor(8).wanted, 12);
  // runs_per_runner: 1 (one run per process) keeps two isolates (its run's and one ready), not the floor.
  assert.equal(shelfFor(1).wanted, 2);
});
