// Which runner takes a run: the one with the most room among those of the kind asked for.
import type { Runner } from './runs';

export class Placement {
  /** Where the last search began its turn: the next search starts after the runner it picked. */
  private nextStart = 0;

  /**
   * The runner with the most room (runs spread over the cores) among those of the kind
   * asked for (the quarantine runner, or the others) hosting fewer than `capacity` runs, or
   * null when all are full. Among equals, the one after the runner used last: a runner that
   * just finished prepares its next context while another takes the following run (always
   * picking the first runner made each sequential run wait for that runner's preparation).
   */
  roomiest(runners: readonly Runner[], quarantine: boolean, capacity: number): Runner | null {
    let best: Runner | null = null;
    const count = runners.length;
    for (let step = 0; step < count; step++) {
      const runner = runners[(this.nextStart + step) % count];
      if (!hasRoom(runner, quarantine, capacity)) continue;
      if (best === null || runner.runs.size < best.runs.size) best = runner;
    }
    if (best) this.nextStart = (runners.indexOf(best) + 1) % count;
    return best;
  }
}

function hasRoom(runner: Runner, quarantine: boolean, capacity: number): boolean {
  return (runner.quarantine === true) === quarantine && runner.ready && !runner.draining && runner.child.connected && runner.runs.size < capacity;
}
