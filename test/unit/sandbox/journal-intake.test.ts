// The server's side of a streamed journal: chunks appended in order, answers filled in from
// what the pool sent (never sent back by the runner), replayed entries taken from the plan
// by count, and any chunk out of shape voiding the journal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JournalIntake } from '../../../sandbox/journal/intake';
import type { JournalEntry } from '../../../sandbox/journal/entries';

const digest = `sha256:${'0'.repeat(64)}`;

test('chunks append in order; a host call gets the reply and bytes the pool sent under its call id', () => {
  const intake = new JournalIntake(1 << 20, undefined);
  intake.take({ entries: [{ kind: 'clock', value: 1 }] });
  intake.sent(7, { reply: '{"ok":true,"value":{"$b":0},"fuel":2}', blobs: [new Uint8Array([1, 2, 3])] });
  intake.take({ entries: [{ kind: 'host_call', call: 0, capability: 'web.fetch', request_digest: digest, fuel: 2, callId: 7 }, { kind: 'random', bytes: 'AA==' }] });
  assert.deepEqual(intake.result().entries, [
    { kind: 'clock', value: 1 },
    { kind: 'host_call', call: 0, capability: 'web.fetch', request_digest: digest, fuel: 2, reply: '{"ok":true,"value":{"$b":0},"fuel":2}', blobs: ['AQID'] },
    { kind: 'random', bytes: 'AA==' },
  ]);
  assert.equal(intake.result().truncated, false);
});

test('a withheld answer is recorded without it; an answer the pool never sent voids the journal', () => {
  const intake = new JournalIntake(1 << 20, undefined);
  intake.take({ entries: [{ kind: 'host_call', call: 0, capability: 'svc:secrets.get', request_digest: digest, fuel: 0, withheld: true, callId: 1 }] });
  assert.deepEqual(intake.result().entries, [{ kind: 'host_call', call: 0, capability: 'svc:secrets.get', request_digest: digest, fuel: 0, withheld: true }]);
  intake.take({ entries: [{ kind: 'host_call', call: 1, capability: 'web.fetch', request_digest: digest, fuel: 0, callId: 99 }] });
  assert.deepEqual(intake.result(), { entries: [], truncated: true, bytes: intake.result().bytes });
  assert.equal(intake.keeping, false);
});

test('replayed entries come from the plan by count, before the chunk\'s own; past the bound or out of shape the journal is void', () => {
  const plan: JournalEntry[] = [{ kind: 'clock', value: 5 }, { kind: 'clock', value: 6 }];
  const intake = new JournalIntake(1 << 20, { entries: plan, live: true });
  intake.take({ entries: [{ kind: 'clock', value: 7 }], replayed: 2 });
  assert.deepEqual(intake.result().entries.map((e) => (e as { value: number }).value), [5, 6, 7]);
  intake.take({ entries: [], replayed: 1 });
  assert.equal(intake.result().truncated, true, 'more replayed than the plan holds');

  const small = new JournalIntake(200, undefined);
  small.take({ entries: [{ kind: 'random', bytes: 'A'.repeat(300) }] });
  assert.equal(small.result().truncated, true);
  const odd = new JournalIntake(1 << 20, undefined);
  odd.take({ entries: [{ kind: 'nonsense' }] });
  assert.equal(odd.result().truncated, true);
  const told = new JournalIntake(1 << 20, undefined);
  told.take({ entries: [{ kind: 'clock', value: 1 }] });
  told.take({ entries: [], truncated: true });
  assert.deepEqual(told.result().entries, []);
  assert.equal(told.resumable(), null);
});
