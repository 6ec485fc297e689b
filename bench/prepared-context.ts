// `node --import tsx bench/prepared-context.ts [rounds] [per-round] [root...]`: the CPU of a
// prepared context (a fresh context on a warm isolate with the native callbacks and the
// prelude evaluated, no program, no `gc()`), made and released in a loop on one isolate per
// build. Prints the process's CPU per context (all threads, /proc) for each round, then the
// median and the fastest round, and the heap one prepared context adds to its isolate
// (measured right after a full collection, so nothing of it is collected yet: what the bare
// context and the prelude's evaluation allocate and keep until the next collection). Each
// `root` (default: this checkout) is a checkout with its own dist/; given two (a base and this
// one), their rounds alternate in one process, so both see the same load. It re-runs itself
// with the runners' V8 flags (which compile lazily since round 57).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RUNNER_FLAGS } from '../sandbox/pool/runner-process';
import { cpuOfProcess } from './proc';

const ROUNDS = Number(process.argv[2] ?? 8);
const PER_ROUND = Number(process.argv[3] ?? 200);
const given = process.argv.slice(4);
const roots = (given.length > 0 ? given : [path.join(import.meta.dirname, '..')]).map((root) => path.resolve(root));

if (process.env.BENCH_PREPARED_CHILD !== '1') {
  const child = spawnSync(process.execPath, [...RUNNER_FLAGS, '--import', 'tsx', import.meta.filename, String(ROUNDS), String(PER_ROUND), ...roots], { env: { ...process.env, BENCH_PREPARED_CHILD: '1' }, stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

type Engines = typeof import('../sandbox/runner/engines');
type Contexts = typeof import('../sandbox/runner/context');
const link = { send: () => {} };

/** One build's loop: its own runner modules (each reads its own dist/prelude.js) and isolate. */
async function buildAt(root: string) {
  const engines = (await import(pathToFileURL(path.join(root, 'sandbox/runner/engines.ts')).href)) as Engines;
  const contexts = (await import(pathToFileURL(path.join(root, 'sandbox/runner/context.ts')).href)) as Contexts;
  const engine = engines.createEngine(128, () => {});
  const once = () => contexts.releaseContext(contexts.prepareContext(engine, link));
  for (let i = 0; i < PER_ROUND; i++) once();
  /** Heap bytes a prepared context adds, right after a full collection (sorted, `times` readings). */
  const heapAdded = (times: number): number[] => {
    const added: number[] = [];
    for (let i = 0; i < times; i++) {
      engines.collectGarbage(engine);
      const before = engine.isolate.getHeapStatisticsSync().used_heap_size;
      const prepared = contexts.prepareContext(engine, link);
      added.push(engine.isolate.getHeapStatisticsSync().used_heap_size - before);
      contexts.releaseContext(prepared);
    }
    return added.sort((a, b) => a - b);
  };
  return { name: path.basename(root), once, heapAdded, rounds: [] as number[], dispose: () => engines.disposeEngine(engine) };
}

const builds = [];
for (const root of roots) builds.push(await buildAt(root));
for (let r = 0; r < ROUNDS; r++) {
  for (const build of builds) {
    const before = cpuOfProcess(process.pid);
    for (let i = 0; i < PER_ROUND; i++) build.once();
    build.rounds.push((cpuOfProcess(process.pid) - before) / PER_ROUND);
  }
}
for (const { name, rounds, heapAdded, dispose } of builds) {
  const sorted = [...rounds].sort((a, b) => a - b);
  console.log(`${name}: ms CPU per prepared context, rounds ${rounds.map((ms) => ms.toFixed(2)).join(' ')}; median ${sorted[sorted.length >> 1].toFixed(2)}, fastest ${sorted[0].toFixed(2)}`);
  const added = heapAdded(50);
  console.log(`${name}: KiB of heap a prepared context adds after a full collection, of 50: median ${(added[25] / 1024).toFixed(1)}, least ${(added[0] / 1024).toFixed(1)}, most ${(added[49] / 1024).toFixed(1)}`);
  dispose();
}
