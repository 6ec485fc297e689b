// The server's young generation is collected by the thread that allocated it, not in parallel
// with V8's helper threads. A parallel scavenge waits for every helper that took a share of it;
// on a busy machine a helper may wait tens of milliseconds for a core while holding its share,
// and the main thread, with every request, waits with it (bench/PROFILE.md, round 47: the
// fan-out attack's longest scavenges were the main thread asleep beside runnable helpers).
// Alone, a scavenge of the server's small young generation (bin/svc-server's semi-spaces)
// costs the main thread a few milliseconds of its own time, which it can be scheduled for.
import v8 from 'node:v8';

/** V8's flag is process-wide and read at each scavenge: the worker threads' isolates scavenge alone too. */
export function scavengeWithoutHelpers(): void {
  v8.setFlagsFromString('--no-parallel-scavenge');
}
