// Under steady load a runner's shelf holds the isolates its recent demand needs, not its floor:
// while runs keep overlapping the refill makes new isolates only up to that demand plus the
// spares, so the count (and the runner's memory) stays put; once runs stop overlapping for a
// while the shelf fills to its floor again for the next burst. Real isolates, a test clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Shelf } from '../../../sandbox/runner/shelf';
import type { Prepared } from '../../../sandbox/runner/context';
import { eventually } from '../../support/wait';

const MEMORY_MB = 50;

test('while runs overlap the shelf makes new isolates only up to the recent demand plus spares, and fills to its floor once they stop', async () => {
  let now = 0;
  const busy: Prepared[] = [];
  const shelf = new Shelf({ send: () => {} }, () => {}, () => busy.length, 64, 12, () => now);
  const held = () => busy.length + shelf.held().idle.length + shelf.held().ready.length;
  shelf.warm(MEMORY_MB);
  assert.equal(shelf.wanted, 16);

  // Two runs at once, one ending and another arriving every 10 ms of the test clock.
  busy.push(await shelf.take(MEMORY_MB));
  busy.push(await shelf.take(MEMORY_MB));
  const steady = shelf.fillTo;
  assert.ok(steady < shelf.wanted, `steady load fills to ${steady}, below the floor's ${shelf.wanted}`);
  const counts: number[] = [];
  for (let step = 0; step < 40; step++) {
    now += 10;
    shelf.giveBack(busy.shift()!, true);
    busy.push(await shelf.take(MEMORY_MB));
    // Turns for the refill, which prepares one context per turn (or per 10 ms while runs are in flight).
    await sleep(25);
    counts.push(held());
  }
  assert.ok(Math.max(...counts) <= steady, `isolates held under steady load: ${counts.join(' ')} (demand and spares: ${steady})`);

  // Quiet: the last runs end, and a second passes without runs overlapping.
  for (const prepared of busy.splice(0)) shelf.giveBack(prepared, true);
  now += 1_000;
  assert.equal(shelf.fillTo, shelf.wanted);
  shelf.prepareAhead(MEMORY_MB);
  await eventually('the shelf filled to its floor and spares', () => held() === shelf.wanted, { attempts: 300 });
});
