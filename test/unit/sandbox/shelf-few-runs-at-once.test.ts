// A runner the pool sends only a few runs at once still reuses its isolates: the contexts it
// keeps ready for the next runs must leave room in its quota for the isolates runs give back,
// or each given-back isolate is disposed and every run's next context needs a new one.
// Real isolates; runs one after another, each waiting for the shelf's refill as a sequential
// client's would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Shelf } from '../../../sandbox/runner/shelf';
import type { Engine } from '../../../sandbox/runner/engines';
import type { Prepared } from '../../../sandbox/runner/context';
import { disposeEngine } from '../../../sandbox/runner/engines';
import { eventually } from '../../support/wait';

const MEMORY_MB = 50;
const RUNS = 12;

for (const runsAtOnce of [1, 4]) {
  test(`a runner sent at most ${runsAtOnce} run(s) at once reuses the isolates its runs give back`, async () => {
    const busy: Prepared[] = [];
    const shelf = new Shelf({ send: () => {} }, () => {}, () => busy.length, runsAtOnce, 0);
    shelf.warm(MEMORY_MB);
    const engines = new Set<Engine>();
    for (let run = 0; run < RUNS; run++) {
      const prepared = await shelf.take(MEMORY_MB);
      engines.add(prepared.engine);
      busy.push(prepared);
      await settled(shelf);
      shelf.giveBack(busy.pop()!, true);
      await settled(shelf);
    }
    assert.ok(engines.size <= shelf.wanted, `${RUNS} runs one after another took contexts on ${engines.size} isolates (the shelf keeps ${shelf.wanted})`);

    for (const engine of shelf.held().ready) disposeEngine(engine);
    // The released contexts' handles collected while isolated-vm can (see shelf-steady-load.test.ts).
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
  });
}

/**
 * The refill has caught up: asked to prepare ahead (as its interval does), the shelf has
 * nothing left to do. No clock: the refill's end is what is waited for, however long it takes.
 */
async function settled(shelf: Shelf): Promise<void> {
  await eventually(
    'the refill done',
    () => {
      shelf.prepareAhead(MEMORY_MB);
      return !shelf.refilling && shelf.held().idle.length === 0;
    },
    { attempts: 1000, intervalMs: 10 },
  );
}
