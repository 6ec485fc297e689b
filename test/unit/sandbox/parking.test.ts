// The bound on parked runs (max_runs_parked): refused past the ceiling naming the setting,
// except for a token below its fair share, up to twice the ceiling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Parking } from '../../../sandbox/pool/parking';
import type { ActiveRun } from '../../../sandbox/pool/runs';

/** A run parked with no call waiting: it stays parked until the test's promise settles (never). */
function parkedRun(parking: Parking, tenant: string): ActiveRun {
  const active = { tenant, attempts: 1, settled: false, job: {}, outstanding: new Map([[0, { reply: new Promise(() => {}) }]]) } as unknown as ActiveRun;
  parking.park(active, () => assert.fail('no answer came'));
  return active;
}

test('max_runs_parked: past the ceiling a run is refused naming the setting; a token below its share still parks, up to twice the ceiling', () => {
  const parking = new Parking(2);
  const first = parkedRun(parking, 'busy');
  parkedRun(parking, 'busy');
  assert.match(parking.refusal('busy') ?? '', /2 runs are parked .*max_runs_parked 2.*2 of them this token's.*raise max_runs_parked/);
  assert.equal(parking.refusal('quiet'), null, 'below its share of 1');
  parkedRun(parking, 'quiet');
  assert.match(parking.refusal('quiet') ?? '', /max_runs_parked 2/);
  assert.deepEqual([...parking.byTenant()], [['busy', 2], ['quiet', 1]]);
  assert.equal(parking.withdraw(first), true);
  assert.equal(parking.withdraw(first), false);
  assert.deepEqual([...parking.byTenant()], [['busy', 1], ['quiet', 1]]);
  assert.equal(parking.size, 2);
});
