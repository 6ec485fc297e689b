// The watchdog's clock of the server's own event loop (stall.ts) and the quarantine of
// tenants whose runs broke a runner (quarantine.ts), on a hand-driven clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopWatch, STALL_MS } from '../../../sandbox/pool/stall';
import { Quarantine } from '../../../sandbox/pool/quarantine';

test('a tick on time is no stall; a late tick is, and timers due around it count as late', () => {
  let now = 1_000;
  const watch = new LoopWatch(500, () => now);
  now += 500;
  assert.equal(watch.tick(), false);
  // A backstop due now, firing on time, may act.
  assert.equal(watch.late(now), false);
  now += 500 + STALL_MS + 1;
  assert.equal(watch.tick(), true);
  // Just after the stall every backstop waits once more, late or not.
  assert.equal(watch.late(now), true);
  now += 500;
  assert.equal(watch.tick(), false);
  assert.equal(watch.late(now), false);
  // A timer that fires well after its due time ran behind a stall the tick has not seen yet.
  assert.equal(watch.late(now - STALL_MS - 1), true);
});

test('restart measures the first tick from the start, not from construction', () => {
  let now = 0;
  const watch = new LoopWatch(500, () => now);
  now = 10_000;
  watch.restart();
  now += 500;
  assert.equal(watch.tick(), false);
});

test('a blamed tenant is held for the window after its last blame, others never', () => {
  let now = 0;
  const quarantine = new Quarantine(1_000, () => now);
  assert.equal(quarantine.empty, true);
  quarantine.blame('a');
  assert.equal(quarantine.holds('a'), true);
  assert.equal(quarantine.holds('b'), false);
  now = 900;
  quarantine.blame('a');
  now = 1_500;
  assert.equal(quarantine.holds('a'), true);
  assert.equal(quarantine.empty, false);
  now = 1_901;
  assert.equal(quarantine.holds('a'), false);
  assert.equal(quarantine.empty, true);
});
