// An isolate retires after 50 programs compiled in it (what V8 keeps of each grows its heap),
// not after 50 runs: runs of a program it already holds compile nothing, and a new isolate
// costs the runner ~4 ms of CPU. Real isolates on a shelf, runs one after another; a run's
// compile is counted as sandbox/runner/run.ts counts it (`engine.compiles`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Shelf } from '../../../sandbox/runner/shelf';
import type { Engine } from '../../../sandbox/runner/engines';
import { disposeEngine } from '../../../sandbox/runner/engines';
import { eventually } from '../../support/wait';

const MEMORY_MB = 50;
const RUNS = 150;
const COMPILES_PER_ISOLATE = 50;

async function isolatesFor(compilesEachRun: boolean): Promise<{ engines: Set<Engine>; kept: number }> {
  const shelf = new Shelf({ send: () => {} }, () => {}, () => 0, 1, 0);
  shelf.warm(MEMORY_MB);
  const engines = new Set<Engine>();
  for (let run = 0; run < RUNS; run++) {
    const prepared = await shelf.take(MEMORY_MB);
    // An isolate's first run of the program compiles it; later runs there find it compiled.
    if (compilesEachRun || !engines.has(prepared.engine)) prepared.engine.compiles++;
    engines.add(prepared.engine);
    shelf.giveBack(prepared, true);
    await settled(shelf);
  }
  const kept = shelf.wanted;
  for (const engine of [...shelf.held().ready, ...shelf.held().idle]) disposeEngine(engine);
  // The released contexts' handles collected while isolated-vm can (see shelf-steady-load.test.ts).
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  return { engines, kept };
}

test(`${RUNS} runs of one program, compiled once, keep their isolate`, async () => {
  const { engines, kept } = await isolatesFor(false);
  assert.ok(engines.size <= kept, `${RUNS} runs of one program took ${engines.size} isolates (the shelf keeps ${kept})`);
});

test(`${RUNS} runs of new programs retire their isolate after ${COMPILES_PER_ISOLATE}`, async () => {
  const { engines } = await isolatesFor(true);
  assert.ok(engines.size >= RUNS / COMPILES_PER_ISOLATE, `${RUNS} new programs took ${engines.size} isolates`);
});

/** The refill has caught up (no clock: its end is what is waited for). */
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
