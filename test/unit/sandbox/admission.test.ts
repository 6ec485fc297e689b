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
