// What the server retains, for bench/attacks.ts with BENCH_LOOP_DELAY=<dir> and
// BENCH_RETAINED=1: the server's preloaded hook (./loop-delay-hook.cjs) collects all garbage
// on SIGUSR2 and appends its heap in use to <dir>/<pid>.heap. Off by default: the forced full
// collections are pauses of their own, so the loop and /healthz figures of such a run are
// not comparable with a run without them.
import fs from 'node:fs';
import path from 'node:path';
import type { TestServer } from '../test/harness';

export function retainedEnabled(): boolean {
  return process.env.BENCH_RETAINED === '1' && !!process.env.BENCH_LOOP_DELAY;
}

function heapLines(file: string): string[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The server's heap in use (bytes) right after a full collection. */
export async function heapAfterGc(server: TestServer): Promise<number> {
  const file = path.join(path.resolve(process.env.BENCH_LOOP_DELAY!), `${server.child.pid}.heap`);
  const before = heapLines(file).length;
  server.child.kill('SIGUSR2');
  for (;;) {
    const lines = heapLines(file);
    if (lines.length > before) return Number(lines[lines.length - 1].split(' ')[1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
