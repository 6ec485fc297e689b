// Under steady load a runner's shelf holds the isolates its recent demand needs, not its floor:
// while runs keep overlapping the refill makes new isolates only up to that demand plus the
// spares, and isolates beyond it go as runs give them back, so the count (and the runner's
// memory) stays put; once runs stop overlapping for a while the shelf fills to its floor
// again for the next burst. Real isolates, a test clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Shelf } from '../../../sandbox/runner/shelf';
import type { Prepared } from '../../../sandbox/runner/context';
import { disposeEngine } from '../../../sandbox/runner/engines';
import { eventually } from '../../support/wait';

const MEMORY_MB = 50;

test('while runs overlap the shelf holds only the recent demand plus spares; once they stop it fills to its floor, and load drains it again', async () => {
  let now = 0;
  const tick = () => (now += 10);
  const busy: Prepared[] = [];
  const shelf = new Shelf({ send: () => {} }, () => {}, () => busy.length, 64, 12, () => now);
  const held = () => busy.length + shelf.held().idle.length + shelf.held().ready.length;
  shelf.warm(MEMORY_MB);
  assert.equal(shelf.wanted, 16);

  busy.push(await shelf.take(MEMORY_MB));
  busy.push(await shelf.take(MEMORY_MB));
  const steady = shelf.fillTo;
  assert.ok(steady < shelf.wanted, `steady load fills to ${steady}, below the floor's ${shelf.wanted}`);
  const counts = await runSteadily(shelf, busy, tick, 40);
  assert.ok(Math.max(...counts) <= steady, `isolates held under steady load: ${counts.join(' ')} (demand and spares: ${steady})`);

  // Quiet: the last runs end, and five seconds pass without runs overlapping.
  for (const prepared of busy.splice(0)) shelf.giveBack(prepared, true);
  now += 5_000;
  assert.equal(shelf.fillTo, shelf.wanted);
  shelf.prepareAhead(MEMORY_MB);
  await eventually('the shelf filled to its floor and spares', () => held() === shelf.wanted, { attempts: 300 });

  // Steady load again: the floor's isolates go as the runs give them back.
  const drained = await runSteadily(shelf, busy, tick, 20);
  assert.ok(drained.at(-1)! <= shelf.fillTo, `isolates held over 20 runs of steady load after the fill: ${drained.join(' ')} (demand and spares: ${shelf.fillTo})`);

  // The refill's last context made before the test ends (isolated-vm aborts a process that exits while an isolate is being prepared).
  for (const prepared of busy.splice(0)) shelf.giveBack(prepared, true);
  await eventually('the refill done', () => shelf.held().idle.length === 0 && shelf.held().ready.length >= shelf.fillTo, { attempts: 300 });
  for (const engine of shelf.held().ready) disposeEngine(engine);
  // The released contexts' handles collected now, while isolated-vm can: 1 in 10 runs
  // aborted at exit (its assertion that an isolate environment is current) without this.
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
});

/** `steps` times, with two runs in flight: one ends and another arrives. Returns the isolates held after each step. */
async function runSteadily(shelf: Shelf, busy: Prepared[], tick: () => void, steps: number): Promise<number[]> {
  while (busy.length < 2) busy.push(await shelf.take(MEMORY_MB));
  const counts: number[] = [];
  for (let step = 0; step < steps; step++) {
    tick();
    shelf.giveBack(busy.shift()!, true);
    busy.push(await shelf.take(MEMORY_MB));
    // Turns for the refill, which prepares one context per turn (or per 10 ms while runs are in flight).
    await sleep(25);
    counts.push(busy.length + shelf.held().idle.length + shelf.held().ready.length);
  }
  return counts;
}
