// Admission of runs: ceilings on runs in flight and on their memory limits, a bounded
// queue that refuses with the limit and the setting, and a fair order across tenants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Admission } from '../../../sandbox/pool/admission';

const run = (tenant: string, name: string, memoryMb = 50) => ({ tenant, name, memoryMb });

test('a tenant with many queued runs cannot starve another: the tenant with fewest runs in flight goes next', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 2, memoryMb: 1000, queued: 100 });
  for (let i = 0; i < 5; i++) assert.equal(admission.offer(run('busy', `busy-${i}`)), null);
  assert.equal(admission.next()?.name, 'busy-0');
  assert.equal(admission.offer(run('quiet', 'quiet-0')), null);
  assert.equal(admission.next()?.name, 'quiet-0');
  assert.equal(admission.next(), null, 'two in flight: the ceiling');
  admission.ended(run('busy', 'busy-0'));
  assert.equal(admission.next()?.name, 'busy-1');
});

test('the sum of memory limits is a ceiling; a full queue refuses naming the limit and the setting', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 10, memoryMb: 100, queued: 1 });
  assert.equal(admission.offer(run('a', 'one', 60)), null);
  assert.equal(admission.next()?.name, 'one');
  assert.equal(admission.offer(run('a', 'two', 60)), null);
  assert.equal(admission.next(), null, '60 + 60 MB is past the 100 MB ceiling');
  assert.match(admission.offer(run('a', 'three', 60))?.refused ?? '', /max_queued_runs 1.*raise max_queued_runs/);
  assert.match(admission.offer(run('a', 'huge', 200))?.refused ?? '', /200 MB is above .* 100 MB .*max_runs_memory/);
  admission.ended(run('a', 'one', 60));
  assert.equal(admission.next()?.name, 'two');
});

test('a queued run withdrawn by its caller leaves the queue', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 1, memoryMb: 1000, queued: 10 });
  const gone = run('a', 'gone');
  admission.offer(gone);
  assert.equal(admission.withdraw(gone), true);
  assert.equal(admission.queueDepth, 0);
  assert.equal(admission.next(), null);
});

test('a token below its fair share is admitted past a full server, up to twice it; one above waits', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 2, memoryMb: 100, queued: 10 });
  for (const name of ['a-0', 'a-1', 'a-2']) admission.offer(run('a', name));
  assert.equal(admission.next()?.name, 'a-0');
  assert.equal(admission.next()?.name, 'a-1');
  assert.equal(admission.next(), null, 'a holds the server: its third run waits');
  admission.offer(run('b', 'b-0'));
  admission.offer(run('b', 'b-1'));
  assert.equal(admission.next()?.name, 'b-0', 'b has none of its share (1 of 2): it goes past the full server');
  assert.equal(admission.next(), null, 'b at its share, a above it');
  assert.deepEqual(Object.fromEntries(admission.byTenant()), { a: { inFlight: 2, queued: 1 }, b: { inFlight: 1, queued: 1 } });
});

test('no runner room at the share: the run stays queued', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 2, memoryMb: 1000, queued: 10 });
  admission.offer(run('a', 'a-0'));
  assert.equal(admission.next(() => false), null);
  assert.equal(admission.queueDepth, 1);
});

test('per-token ceilings: runs in flight past max_runs_in_flight_per_token queue; a token\'s full queue refuses naming the quota, its setting and the use', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 4, memoryMb: 1000, queued: 10, runsPerToken: 1, queuedPerToken: 2 });
  admission.offer(run('a', 'a-0'));
  admission.offer(run('a', 'a-1'));
  const refusal = admission.offer(run('a', 'a-2'));
  assert.equal(refusal?.quota, 'max_queued_runs_per_token');
  assert.match(refusal?.refused ?? '', /this token has 2 runs queued, the most max_queued_runs_per_token \(2\) allows, and 0 in flight \(max_runs_in_flight_per_token 1\)/);
  assert.equal(admission.queueDepth, 2, 'the refused run is not queued');
  assert.equal(admission.next()?.name, 'a-0');
  assert.equal(admission.next(), null, 'one in flight: a\'s own ceiling');
  assert.equal(admission.offer(run('b', 'b-0')), null, 'another token\'s queue is its own');
  assert.equal(admission.next()?.name, 'b-0');
});

test('a full queue still takes a token below its fair share of it, up to twice it', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 1, memoryMb: 1000, queued: 2 });
  admission.offer(run('a', 'a-0'));
  admission.offer(run('a', 'a-1'));
  assert.match(admission.offer(run('a', 'a-2'))?.refused ?? '', /max_queued_runs 2\), 2 of them this token's/);
  assert.equal(admission.offer(run('b', 'b-0')), null);
  assert.equal(admission.offer(run('b', 'b-1'))?.quota, 'max_queued_runs', 'b at its share (1 of 2)');
});

test('a run that let go of its slot (parked) queues again first of its tenant, past a full queue', () => {
  const admission = new Admission<ReturnType<typeof run>>({ runsInFlight: 1, memoryMb: 1000, queued: 1 });
  assert.equal(admission.offer(run('a', 'parked')), null);
  const parked = admission.next()!;
  admission.ended(parked);
  assert.equal(admission.offer(run('a', 'later')), null);
  assert.match(admission.offer(run('a', 'refused'))?.refused ?? '', /max_queued_runs 1/);
  admission.requeue(parked);
  assert.equal(admission.queueDepth, 2);
  assert.equal(admission.next()?.name, 'parked');
});
