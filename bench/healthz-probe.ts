// A child process of bench/attacks.ts that asks the server's `/healthz` one request after the
// other while an attack is in flight. The bench process also serves the attacks' far ends
// (50 MiB bodies, a host that never answers) and drives hundreds of runs: a probe on its
// event loop counted the bench's own delays as the server's. Here the loop does nothing but
// the probe, so a slow answer is the server's (or the machine's).
// Messages from the parent: { start: url } begins probing, { stop: true } ends it and answers
// { latencies, failures, loopWorstMs, worstAt } (this process's own worst loop delay meanwhile, so that
// a stall of the probe itself shows).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, request } from 'undici';

export interface ProbeReport {
  latencies: number[];
  failures: string[];
  loopWorstMs: number;
  /** When the slowest request was sent (epoch ms), to line it up with the server's GC pauses. */
  worstAt: number;
}

type ProbeMessage = { start: string } | { stop: true };

const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
let probing: Promise<ProbeReport> | null = null;
let stopping = false;

async function probe(url: string): Promise<ProbeReport> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let worstAt = NaN;
  let worst = -1;
  loopDelay.reset();
  loopDelay.enable();
  while (!stopping) {
    const at = process.hrtime.bigint();
    const sentAt = Date.now();
    try {
      const health = await request(`${url}/healthz`, { dispatcher });
      await health.body.text();
    } catch (error) {
      // A stalled server may drop the connection: the wait until then still counts.
      failures.push((error as Error).message);
    }
    const ms = Number(process.hrtime.bigint() - at) / 1e6;
    latencies.push(ms);
    if (ms > worst) [worst, worstAt] = [ms, sentAt];
  }
  loopDelay.disable();
  return { latencies, failures, loopWorstMs: loopDelay.max / 1e6, worstAt };
}

process.on('message', (message: ProbeMessage) => {
  if ('start' in message) {
    stopping = false;
    probing = probe(message.start);
  } else if (probing) {
    stopping = true;
    void probing.then((report) => process.send?.(report));
    probing = null;
  }
});
// The parent's channel closing ends the probe (the bench exited or was killed).
process.on('disconnect', () => {
  void dispatcher.close();
  process.exit(0);
});
