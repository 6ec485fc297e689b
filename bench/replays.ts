// Replaying recorded runs (BENCH_ONLY=replays): REPLAY_RUNS (default 1,000) varied runs
// (timers, fan-out, randomness, failures, @mcp calls; test/support/varied-runs.ts) are
// recorded through the server, their tapes fetched and replayed offline; every one must
// reproduce its result, console and fuel exactly.
import { startVariedRig } from '../test/support/varied-runs';

const RUNS = Number(process.env.REPLAY_RUNS ?? 1000);

export async function measureReplays(): Promise<Record<string, string>> {
  const rig = await startVariedRig();
  try {
    const started = performance.now();
    const { replayed, mismatches, kinds } = await rig.recordAndReplay(RUNS, 8);
    const seconds = (performance.now() - started) / 1000;
    if (mismatches.length > 0) console.error(mismatches.slice(0, 20).join('\n'));
    return {
      [`replays of ${RUNS} varied recorded runs matching result, console and fuel`]: `${replayed - mismatches.length} of ${replayed} (${seconds.toFixed(0)} s to record and replay)`,
      ['  journal entries replayed, by kind']: Object.entries(kinds).map(([kind, n]) => `${kind} ${n}`).join(', '),
    };
  } finally {
    await rig.stop();
  }
}
