// One runner child process as the pool sees it: how it is started, when it is ready, and
// the run message it is sent (with only the source maps it does not hold yet).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROGRAM_FILENAME } from '../contract';
import { confineRunnerSpawn, ENVIRONMENT_ONLY, type RunnerConfinement } from '../confine';
import { boundedCache } from '../bounded-cache';
import { mapBytes, PROGRAM_MAP_BYTES, PROGRAM_MAPS_KEPT, type RunMessage } from '../runner/protocol';
import { lowerPriority, type PriorityLog } from './priority';
import type { ActiveRun, Runner } from './runs';

/** The runner entry: dist/runner.js next to the server bundle, or the TypeScript source through tsx. */
export function defaultEntry(): { entry: string; execArgv: string[] } {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bundled = [path.join(here, 'runner.js'), path.join(here, '..', '..', 'dist', 'runner.js')].find((p) => fs.existsSync(p));
  if (bundled) return { entry: bundled, execArgv: [] };
  return { entry: path.join(here, '..', 'runner', 'main.ts'), execArgv: ['--import', 'tsx'] };
}

export interface RunnerEvents {
  message(runner: Runner, message: unknown): void;
  exit(runner: Runner, code: number | null, signal: NodeJS.Signals | null): void;
  error(error: Error): void;
}

/**
 * Node flags of every runner. V8 compiles lazily there, as by default: the prelude's code
 * cache carries the functions preparing a context uses (sandbox/runner/engines.ts,
 * warmPreludeCache), and each isolate compiles the rest at their first use. Compiling
 * everything eagerly (`--no-lazy`, until round 57 of bench/PROFILE.md) made a new isolate's
 * first runs cheaper but every isolate's heap larger and each collection longer.
 *
 * `--max-semi-space-size=1` (MiB): under load the runner's own young generation grew to V8's
 * 16 MiB semi-spaces and stayed resident (issue 39, item 3). V8's flag also overrides the
 * young generation isolated-vm sizes from each isolate's memory limit: 1 MiB is what V8 gives
 * an isolate of up to about 384 MB anyway, so the isolates of ordinary runs are unchanged.
 */
export const RUNNER_FLAGS = ['--no-node-snapshot', '--disallow-code-generation-from-strings', '--max-semi-space-size=1'];

/** The nice value of runners' threads and sessions (`runner_nice`; 0: the server's priority, unchanged). */
export interface RunnerPriority {
  nice: number;
  log: PriorityLog;
}

/** What a runner hosts: its runs' default memory limit (MB), the most runs at once, and the isolates its shelf keeps prepared once it has run (`runner_shelf_floor`; null: the shelf's own default). */
export interface RunnerCapacity {
  memoryMb: number;
  runsAtOnce: number;
  shelfFloor: number | null;
}

/** Starts a runner process (not ready until it says so: see whenReady); it hosts at most `capacity.runsAtOnce` runs. */
export function spawnRunner(entry: string, execArgv: readonly string[], capacity: RunnerCapacity, events: RunnerEvents, confinement: RunnerConfinement = ENVIRONMENT_ONLY, priority?: RunnerPriority): Runner {
  // Inside the walls the host allows (sandbox/confine), with an allow-listed environment.
  const launch = confineRunnerSpawn(confinement, { nodeArgs: [...RUNNER_FLAGS, ...execArgv], entry, args: [String(capacity.memoryMb), String(capacity.runsAtOnce), ...(capacity.shelfFloor === null ? [] : [String(capacity.shelfFloor)])] });
  const child = spawn(launch.command, launch.args, { env: launch.env, serialization: 'advanced', stdio: launch.stdio });
  launch.started(child);
  if (priority && priority.nice > 0 && child.pid !== undefined) lowerOnceReady(child, child.pid, priority);
  const runner: Runner = { child, ready: false, runs: new Map(), lastHeard: Date.now(), catastrophic: null, slicing: null, draining: false, rss: 0, maps: boundedCache<number>({ maxBytes: PROGRAM_MAP_BYTES / 2, maxEntries: PROGRAM_MAPS_KEPT / 2, sizeOf: (bytes) => bytes }) };
  child.on('message', (message: unknown) => events.message(runner, message));
  child.on('exit', (code, signal) => events.exit(runner, code, signal));
  child.on('error', (error) => events.error(error));
  return runner;
}

/**
 * Lowers the wrapper's priority now, before it starts anything (its children inherit it), and
 * the whole tree's once the runner is ready: by then its threads exist and bubblewrap's
 * session (an autogroup of its own) too. A failure is logged and never stops the runner.
 */
function lowerOnceReady(child: ChildProcess, pid: number, priority: RunnerPriority): void {
  void lowerPriority(pid, priority.nice, priority.log, false);
  const onMessage = (message: unknown) => {
    if (!isReady(message)) return;
    child.off('message', onMessage);
    void lowerPriority(pid, priority.nice, priority.log, true);
  };
  child.on('message', onMessage);
}

function isReady(message: unknown): boolean {
  return message !== null && typeof message === 'object' && (message as { type?: unknown }).type === 'ready';
}

/** Resolves when the runner says it is ready; rejects when it exits first. */
export function whenReady(runner: Runner): Promise<void> {
  return new Promise((resolve, reject) => {
    if (runner.ready) return resolve();
    const onMessage = (message: unknown) => {
      if (isReady(message)) {
        runner.child.off('message', onMessage);
        resolve();
      }
    };
    runner.child.on('message', onMessage);
    runner.child.once('exit', (code) => reject(new Error(`runner exited during start (code ${code})`)));
  });
}

/**
 * The message that starts `active` in `runner`. The runner maps a failure's stack itself
 * (sandbox/runner/render-stack.ts); a large program's map is sent once per runner, not
 * with every run.
 */
export function runMessage(runner: Runner, active: ActiveRun): RunMessage {
  const { job } = active;
  const source = job.script.sources[PROGRAM_FILENAME] ?? '';
  const known = holds(runner, job.script.key, mapBytes({ sourceMap: job.script.sourceMap, source }));
  return {
    type: 'run',
    runId: active.runId,
    code: job.script.code,
    filename: job.script.filename,
    hostModules: job.hostModules,
    guestModules: job.guestModules ?? {},
    limits: job.limits,
    usesTemporal: job.script.usesTemporal || (job.packages?.some((p) => p.script.usesTemporal) ?? false),
    programKey: job.script.key,
    ...(known ? {} : { sourceMap: job.script.sourceMap, source }),
    ...(job.journal ? { journal: job.journal } : {}),
    ...(job.packages?.length
      ? { packages: job.packages.map(({ script, imports, listed }) => ({ name: script.name, key: script.key, code: script.code, filename: script.filename, ...mapFor(runner, script.key, script.sourceMap), imports, listed })) }
      : {}),
  };
}

/** Whether `runner` holds the map kept under `key` (then it is left out); notes it as sent otherwise. */
function holds(runner: Runner, key: string, bytes: number): boolean {
  if (runner.maps.get(key) !== undefined) return true;
  runner.maps.set(key, bytes);
  return false;
}

function mapFor(runner: Runner, key: string, sourceMap: string): { sourceMap?: string } {
  return holds(runner, key, mapBytes({ sourceMap, source: '' })) ? {} : { sourceMap };
}
