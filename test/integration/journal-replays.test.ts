// Many varied recorded runs replayed offline from their tapes: each reproduces its result,
// console and fuel exactly (timers, fan-out, randomness, failures, @mcp calls). The bench
// (BENCH_ONLY=replays) does the same for 1,000 runs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startVariedRig, type VariedRig } from '../support/varied-runs';

let rig: VariedRig;
before(async () => {
  // Replays are not about types: the programs run unchecked (types stripped).
  rig = await startVariedRig({ typecheck: 'off' });
});
after(async () => rig?.stop());

test('60 varied recorded runs replay with the same result, console and fuel', async () => {
  const { replayed, mismatches, kinds } = await rig.recordAndReplay(60, 4);
  assert.deepEqual(mismatches, []);
  assert.equal(replayed, 60);
  for (const kind of ['host_call', 'clock', 'random', 'order']) assert.ok((kinds[kind] ?? 0) > 0, `the runs journalled ${kind} entries: ${JSON.stringify(kinds)}`);
});
