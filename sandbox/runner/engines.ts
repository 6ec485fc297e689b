// Warm isolates: one per run in flight, reused across runs (never their contexts), with
// the prelude compiled from a shared code cache and a maintenance context for `gc()`.
import fs from 'node:fs';
import v8 from 'node:v8';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';

function readBundle(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(here, name), path.join(here, '..', '..', 'dist', name)]) {
    if (fs.existsSync(candidate)) return fs.readFileSync(candidate, 'utf8');
  }
  throw new Error(`runner: ${name} not found; run \`npm run build\``);
}

// The prelude ends by taking its entry function off the global object, so the value of its
// run is that function (sandbox/prelude/entry.ts): the asynchronous prelude run hands it over,
// and no synchronous call into the isolate follows it (one did, and waited ~0.6 ms per
// context for the isolate that had just run the prelude on isolated-vm's thread).
const TAKE_ENTRY = `;(() => { const entry = globalThis.__svc_entry; delete globalThis.__svc_entry; return entry; })()`;
const preludeSource = `${readBundle('prelude.js')}\n${TAKE_ENTRY}`;
let preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;
/** The prelude's code cache was made again after a prepared context (1), and after a first run too (2). */
let preludeCacheWarmth: 0 | 1 | 2 = 0;
let temporal: string | null = null;

/** The Temporal polyfill's classic-script build (the package's exports do not expose it; it sits beside the entry). */
export function temporalSource(): string {
  temporal ??= fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.resolve('temporal-polyfill'))), 'global.js'), 'utf8');
  return temporal;
}

/** A warm isolate: reused across runs, each of which gets its own fresh context. */
export interface Engine {
  isolate: ivm.Isolate;
  memoryMb: number;
  prelude: ivm.Script;
  /** CONTEXT_SETUP, compiled for this isolate: its value in a fresh context installs the native callbacks. */
  setup: ivm.Script;
  temporal: ivm.Script | null;
  runs: number;
  /**
   * A context no program sees, with V8's `gc()`: collects earlier runs' garbage before a
   * run. Made the first time there is garbage to collect (a new isolate's first run finds
   * none), so an isolate made during a burst costs one context less.
   */
  maintenance: ivm.Context | null;
  /** Heap the maintenance context holds (not the runs' garbage). */
  maintenanceBytes: number;
  /** Heap of the isolate before its first context: added to each run's own growth. */
  floor: number;
  /** Compiled Package scripts by content key (isolate-bound; they go with the isolate). */
  packageScripts: Map<string, ivm.Script>;
  /** The last small program compiled here, by content key: the same program's next run links it again without a compile. */
  lastProgram: { key: string; script: ivm.Script } | null;
  /** The run this isolate serves now (named when the engine fails catastrophically). */
  owner: number | null;
}

/** isolated-vm gave up on an isolate: the process cannot be trusted after this. */
export type CatastrophicHandler = (engine: Engine, message: string) => void;

/**
 * isolated-vm reports a rejection nobody handled at the end of the call into the isolate
 * during which it happened. A call V8 terminated (a synchronous attempt past its slice)
 * ends before that report, and the isolate would throw the rejection out of its next
 * call, whatever that call is. One empty call takes every such rejection.
 */
export function dropPendingRejections(engine: Engine): void {
  try {
    engine.isolate.compileScriptSync('');
  } catch {
    // The rejection, as expected; or the isolate is gone, which its next user sees.
  }
}

/** Heap plus array buffers of the isolate (isolated-vm counts buffers as external memory). */
export function memoryInUse(isolate: ivm.Isolate): number {
  const stats = isolate.getHeapStatisticsSync() as ivm.HeapStatistics & { externally_allocated_size?: number };
  return stats.used_heap_size + (stats.externally_allocated_size ?? 0);
}

function newIsolate(memoryMb: number, onCatastrophic: CatastrophicHandler): { isolate: ivm.Isolate; adopt: (engine: Engine) => void } {
  let engine: Engine | null = null;
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    onCatastrophicError: (message: string) => {
      if (engine) onCatastrophic(engine, message);
    },
  });
  return { isolate, adopt: (made) => (engine = made) };
}

const PRELUDE_FILENAME = 'svc-prelude.js';
const SETUP_FILENAME = 'svc-context-setup.js';

function engineOf(isolate: ivm.Isolate, memoryMb: number, prelude: ivm.Script, setup: ivm.Script): Engine {
  const engine: Engine = { isolate, memoryMb, prelude, setup, temporal: null, runs: 0, maintenance: null, maintenanceBytes: 0, floor: 0, packageScripts: new Map(), lastProgram: null, owner: null };
  engine.floor = memoryInUse(isolate);
  return engine;
}

export function createEngine(memoryMb: number, onCatastrophic: CatastrophicHandler): Engine {
  const { isolate, adopt } = newIsolate(memoryMb, onCatastrophic);
  // V8's code cache for the prelude makes every further isolate cheaper to prepare.
  const prelude = isolate.compileScriptSync(preludeSource, { filename: PRELUDE_FILENAME, ...(preludeCache ? { cachedData: preludeCache } : { produceCachedData: true }) });
  const produced = (prelude as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (!preludeCache && produced) preludeCache = produced;
  const setup = isolate.compileScriptSync(CONTEXT_SETUP, { filename: SETUP_FILENAME });
  const engine = engineOf(isolate, memoryMb, prelude, setup);
  adopt(engine);
  return engine;
}

/**
 * The same engine with its compiles on isolated-vm's threads: only the `Isolate`
 * constructor holds this thread (about a third of a new isolate's cost), so the runner
 * keeps serving its other runs while a burst's new isolates are made. Needs the prelude's
 * code cache (made by the first, synchronous engine).
 */
export async function createEngineAsync(memoryMb: number, onCatastrophic: CatastrophicHandler): Promise<Engine> {
  if (!preludeCache) return createEngine(memoryMb, onCatastrophic);
  const { isolate, adopt } = newIsolate(memoryMb, onCatastrophic);
  try {
    const prelude = await isolate.compileScript(preludeSource, { filename: PRELUDE_FILENAME, cachedData: preludeCache });
    const setup = await isolate.compileScript(CONTEXT_SETUP, { filename: SETUP_FILENAME });
    const engine = engineOf(isolate, memoryMb, prelude, setup);
    adopt(engine);
    return engine;
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw error;
  }
}

/** The maintenance context, made here (synchronously) the first time it is needed. */
function maintenanceOf(engine: Engine): ivm.Context {
  if (engine.maintenance) return engine.maintenance;
  const before = memoryInUse(engine.isolate);
  // Only this context gets `gc`: the flag is read when a context is created (on this
  // thread, synchronously: no other context is created meanwhile, contexts are only made
  // here).
  v8.setFlagsFromString('--expose-gc');
  try {
    engine.maintenance = engine.isolate.createContextSync();
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  engine.maintenanceBytes = Math.max(0, memoryInUse(engine.isolate) - before);
  return engine.maintenance;
}

/** Earlier runs left more garbage in the isolate (`inUse`: its memory now) than a run's memory_peak may hide. */
export function holdsGarbage(engine: Engine, inUse: number, slackBytes: number): boolean {
  return inUse - engine.maintenanceBytes > engine.floor + slackBytes;
}

/** Collects the garbage of earlier runs in this isolate (V8's `gc()`, in the maintenance context). */
export function collectGarbage(engine: Engine): void {
  maintenanceOf(engine).evalSync('gc()');
}

/** The same on isolated-vm's thread. */
export async function collectGarbageAsync(engine: Engine): Promise<void> {
  await maintenanceOf(engine).eval('gc()');
}

/**
 * Makes the prelude's code cache again, once a context has evaluated the prelude (`prepared`)
 * and once more after the runner's first run that ended well (`ran`). V8 compiles inner
 * functions lazily, and a cache made at compile time holds only the top level: every new
 * isolate then compiled the prelude's functions on its first context (~7 ms, against ~1 ms
 * with them cached; measured). Compiling the same source again in the same isolate returns
 * the script V8 already holds, now with those functions compiled, and the cache made from it
 * carries them: after `ran`, also what that run used of the prelude (its entry, its result,
 * the console, the lazy groups and core-js modules it touched). A first burst of 64 runs of a
 * program using `Object.groupBy`, URL, the encoding classes, `structuredClone` and `console`
 * then cost its runner 590-780 against 980-1,100 ms of CPU; hello world's burst and steady
 * runs the same (bench/PROFILE.md, round 59). Only the prelude's own functions are in the
 * cache: a program is a script of its own. Runners compiled everything eagerly once
 * (`--no-lazy`): every isolate's heap then held the whole prelude's bytecode, 1,639 against
 * 896 KiB live, and each pre-run collection marked it (round 57).
 */
export function warmPreludeCache(engine: Engine, stage: 'prepared' | 'ran' = 'prepared'): void {
  const warmth = stage === 'prepared' ? 1 : 2;
  if (preludeCacheWarmth >= warmth || engine.isolate.isDisposed) return;
  preludeCacheWarmth = warmth;
  let again: ivm.Script;
  try {
    again = engine.isolate.compileScriptSync(preludeSource, { filename: PRELUDE_FILENAME, produceCachedData: true });
  } catch {
    // An isolate a run left short of memory: the cache made before stays.
    return;
  }
  const produced = (again as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (produced) preludeCache = produced;
  again.release();
}

export function disposeEngine(engine: Engine): void {
  if (!engine.isolate.isDisposed) engine.isolate.dispose();
}

/** The native callbacks the prelude takes (sandbox/prelude/native.ts), in the order CONTEXT_SETUP's function receives them. */
export const NATIVE_NAMES = ['hostCall', 'hostStart', 'hostCancel', 'console', 'limit', 'mayBlock', 'random', 'clock', 'url'] as const;

// Evaluated in each fresh context before the prelude; its value is a function the runner
// calls once with the finalizer mark and the native callbacks (References), in one call
// into the isolate (setting them one by one was eleven calls, ~10 us each, per context).
// The function is never on the global object: nothing but this call reaches it.
// - The finalizer watch marks the slot when the program registers a finalizer (its callback
//   runs outside the run). Nothing in the prelude registers one or captures `register`.
// - The callbacks go on the global object as \`__svc_native\`; the prelude takes and deletes
//   it before any program code runs.
// Compiled once per isolate (a per-context evalClosure compiled it on every run).
const CONTEXT_SETUP = `(function setup(mark, ${NATIVE_NAMES.join(', ')}) {
const FR = globalThis.FinalizationRegistry;
if (FR) {
  const register = FR.prototype.register;
  const apply = Reflect.apply;
  let marked = false;
  Object.defineProperty(FR.prototype, 'register', { value: { register(...args) { if (!marked) { marked = true; mark.applySync(undefined, []); } return apply(register, this, args); } }.register, writable: true, configurable: true });
}
Object.defineProperty(globalThis, '__svc_native', { value: { ${NATIVE_NAMES.join(', ')} }, writable: true, enumerable: false, configurable: true });
})`;

