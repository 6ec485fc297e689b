// The ordinary checker pool alone (sandbox/typecheck, the built worker), driven with
// thread-split.ts's new programs against svc's modules, printing each thread's CPU per
// check from /proc: what a live server's checker thread and V8's platform threads cost
// without the rest of the server. Run it with the server's V8 flags (bin/svc-server):
//   MALLOC_ARENA_MAX=2 node --initial-old-space-size=64 --heap-growing-percent=50 --expose-gc \
//     --max-semi-space-size=4 --no-node-snapshot --import tsx bench/checker-alone.ts
// CHECKER_GAP_MS waits that long after each answer before the next check (a server's checks
// come between compiles and runs; one after an idle gap costs more: bench/PROFILE.md).
// CHECKER_PHASES (warm,check,check,check), CHECKER_RUNS (500 a phase), CHECKER_CLIENTS (1).
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Typechecker } from '../sandbox';
import { hostModules } from '../src/stdlib';
import { repoRoot } from '../test/harness';

const PHASES = (process.env.CHECKER_PHASES ?? 'warm,check,check,check').split(',');
const RUNS = Number(process.env.CHECKER_RUNS ?? 500);
const CLIENTS = Number(process.env.CHECKER_CLIENTS ?? 1);
const GAP_MS = Number(process.env.CHECKER_GAP_MS ?? 0);

// As the server sets it for all its threads (src/serve/young-collections.ts).
v8.setFlagsFromString('--no-parallel-scavenge');
const modules = [...hostModules().values()].filter((m) => m.name.includes(':') || m.name.startsWith('@')).map((m) => m.declarations);
const checker = new Typechecker({ workerFile: pathToFileURL(path.join(repoRoot, 'dist', 'typecheck-worker.js')), codeCacheDirectory: path.join(repoRoot, '.tmp', 'test-code-cache') });
let counter = 0;

/** ns on a CPU of each thread of this process. */
function threadCpu(): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      threads.set(Number(tid), Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return threads;
}

async function checkOne(): Promise<void> {
  const outcome = await checker.check({ source: `export function main() { const n = ${counter++}; return n >= 0 ? "hello" : "x"; }`, mode: 'on', modules, tenant: 'bench' });
  if (!outcome.ok || outcome.warnings.length > 0) throw new Error(`unexpected check ${JSON.stringify(outcome)}`);
  if (GAP_MS > 0) await sleep(GAP_MS);
}

try {
  for (const phase of PHASES) {
    const before = threadCpu();
    let next = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < RUNS) {
        next++;
        await checkOne();
      }
    }));
    const after = threadCpu();
    if (phase === 'warm') continue;
    let total = 0;
    const rows: string[] = [];
    for (const [tid, ns] of after) {
      const us = (ns - (before.get(tid) ?? 0)) / 1e3 / RUNS;
      total += us;
      if (us >= 5) rows.push(`${tid === process.pid ? 'main' : tid} ${us.toFixed(0)}`);
    }
    console.log(`${phase} ${RUNS} checks, ${CLIENTS} clients, gap ${GAP_MS} ms: ${total.toFixed(0)} us per check; by thread: ${rows.join(', ')}`);
  }
} finally {
  await checker.close();
}
