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

/** A run whose only call waits for a person, on a runner that takes the pool's messages. */
function waitingRun(tenant: string, sent: unknown[]): ActiveRun {
  const runner = { ready: true, child: { connected: true, send: (message: unknown) => sent.push(message) } };
  return {
    tenant, runId: sent.length + 1, attempts: 1, settled: false, job: {}, runner,
    journal: { resumable: () => true }, clock: { holds: 1 }, calls: new Map([[0, {}]]),
    outstanding: new Map([[0, { reply: new Promise(() => {}) }]]),
  } as unknown as ActiveRun;
}

test('max_runs_parked: a run asked to park holds its place before its runner lets it go, so runs asked at once cannot pass the ceiling', () => {
  const parking = new Parking(1);
  const sent: unknown[] = [];
  const first = waitingRun('harness', sent);
  const second = waitingRun('harness', sent);
  assert.equal(parking.offer(first), null);
  assert.equal(parking.offer(first), null, 'asked again (a second waiting call): its place is already held');
  assert.match(parking.offer(second) ?? '', /1 runs are parked .*max_runs_parked 1/, 'the first has not parked yet, but holds the place');
  assert.equal(sent.length, 2, 'only the first run was asked (twice)');
  assert.deepEqual([...parking.byTenant()], [['harness', 1]]);
  parking.park(first, () => assert.fail('no answer came'));
  assert.deepEqual([...parking.byTenant()], [['harness', 1]], 'parking the asked run does not count it twice');
  assert.equal(parking.size, 1);
  parking.ended(first);
  assert.equal(parking.size, 1, 'a parked run leaves only by withdraw');
  assert.equal(parking.withdraw(first), true);
  const third = waitingRun('harness', sent);
  assert.equal(parking.offer(third), null);
  parking.ended(third);
  assert.deepEqual([...parking.byTenant()], [], 'a run that ended before its runner let it go frees its place');
  assert.equal(parking.offer(second), null);
});
