// A runner child process: keeps a warm isolate with a fresh context (prelude evaluated)
// ready, runs one program at a time in its own context, forwards standard-library calls to the server,
// enforces the time limit, and reports how the run ended. The server kills and replaces
// a runner that crashes or stops sending heartbeats.
import fs from 'node:fs';
import v8 from 'node:v8';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import { hostCallTooLarge, MAX_HOST_CALL_ARGS_CHARS, type FromRunner, type GuestFailure, type HostReplyMessage, type RunMessage, type RunnerOutcome, type ToRunner } from './protocol';
import { reportOf } from './render-stack';

const HEARTBEAT_MS = 250;
const MAX_CONSOLE_LINES = 10_000;
const MAX_CONSOLE_BYTES = 1024 * 1024;

function send(message: FromRunner): void {
  process.send?.(message);
}

function readBundle(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(here, name), path.join(here, '..', '..', 'dist', name)]) {
    if (fs.existsSync(candidate)) return fs.readFileSync(candidate, 'utf8');
  }
  throw new Error(`runner: ${name} not found; run \`npm run build\``);
}

const preludeSource = readBundle('prelude.js');
let preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;
let temporalSource: string | null = null;
function temporal(): string {
  // The package's exports do not expose the classic-script build; find it beside the entry.
  temporalSource ??= fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.resolve('temporal-polyfill'))), 'global.js'), 'utf8');
  return temporalSource;
}

/** Run-specific state the context's native callbacks reach through. */
interface Slot {
  runId: number;
  /** False once the run has ended: callbacks of an old context do nothing. */
  live: boolean;
  limit: { kind: RunnerOutcome['kind']; fuelLeft?: number; stack?: string } | null;
  console: string[];
  consoleBytes: number;
  consoleDropped: number;
  hostFuel: number;
  lastFuelLeft: number | null;
  /** Highest heap plus array-buffer use seen, in bytes of the isolate. */
  memoryPeak: number;
  /** The program registered a finalizer: its callback could run during a later run. */
  leftState: boolean;
  pendingCalls: Map<number, (reply: HostReplyMessage) => void>;
  nextCallId: number;
  /** Wakes the timer loop's wait when the run ends (limit, timeout, cancel). */
  wake: (() => void) | null;
  /** The program runs synchronously on this thread: a host call cannot block here. */
  syncSlice: boolean;
  /** The synchronous attempt wanted the host or ran past its slice: run it again. */
  restart: boolean;
}

/** A warm isolate: reused across runs, each of which gets its own fresh context. */
interface Engine {
  isolate: ivm.Isolate;
  memoryMb: number;
  prelude: ivm.Script;
  /** FINALIZER_WATCH, compiled for this isolate. */
  finalizerWatch: ivm.Script;
  temporal: ivm.Script | null;
  runs: number;
  /** A context no program sees, with V8's `gc()`: collects earlier runs' garbage before a run. */
  maintenance: ivm.Context;
  /** Heap of the isolate before its first context: added to each run's own growth. */
  floor: number;
  /** Compiled Package scripts by content key (isolate-bound; they go with the isolate). */
  packageScripts: Map<string, ivm.Script>;
}

/** A context with the prelude evaluated, ready for exactly one run. */
interface Prepared {
  engine: Engine;
  context: ivm.Context;
  run: ivm.Reference<(link: unknown, spec: string, ...packageLinks: unknown[]) => void>;
  collect: ivm.Reference<() => string>;
  timers: GuestTimers;
  /** Host-side handles into the context: released with it, or they keep it alive. */
  handles: Array<{ release(): void }>;
  slot: Slot;
  /** Isolate heap before this context was made (earlier runs' leftovers). */
  base: number;
}

/** Isolate retirement: after this many runs, or when the heap left after a run passes this share of the limit. */
const MAX_RUNS_PER_ISOLATE = 200;
const RETIRE_HEAP_SHARE = 0.4;
/** Garbage tolerated before a run (bounds how much memory_peak may under-count). */
const GC_SLACK_BYTES = 1024 * 1024;

let catastrophic = false;

function newSlot(): Slot {
  return {
    runId: -1,
    live: false,
    limit: null,
    console: [],
    consoleBytes: 0,
    consoleDropped: 0,
    hostFuel: 0,
    lastFuelLeft: null,
    memoryPeak: 0,
    leftState: false,
    pendingCalls: new Map(),
    nextCallId: 1,
    wake: null,
    syncSlice: false,
    restart: false,
  };
}

function parseUrlParts(input: string, base: string | null): string {
  try {
    const url = base === null ? new URL(input) : new URL(input, base);
    const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
    return JSON.stringify({ ok: true, parts: { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } });
  } catch {
    return JSON.stringify({ ok: false, message: `Invalid URL: ${input}` });
  }
}

function endRun(isolate: ivm.Isolate, slot: Slot, kind: RunnerOutcome['kind'], fuelLeft?: number, stack?: string): void {
  if (!slot.live) return;
  if (slot.limit === null) slot.limit = { kind, fuelLeft, stack: typeof stack === 'string' ? stack : undefined };
  if (!isolate.isDisposed) isolate.dispose();
  slot.wake?.();
}

/** The guest's timer entry points (sandbox/prelude/web/timers.ts). */
interface GuestTimers {
  nextTimer: ivm.Reference<() => number>;
  fireTimers: ivm.Reference<(now: number) => void>;
}

/**
 * The run loop for timers: while main is pending and a timer is, wait until the next one
 * is due and let the guest fire it (one per call, so microtasks drain between callbacks).
 * The wait counts against the time limit; a limit or cancellation wakes it and ends the loop.
 */
async function runTimers(isolate: ivm.Isolate, slot: Slot, timers: GuestTimers): Promise<void> {
  while (!isolate.isDisposed) {
    // Runs no program code (microtasks drained when the last call returned): no thread hop.
    const due = timers.nextTimer.applySync(undefined, [], { result: { copy: true } }) as number;
    if (typeof due !== 'number' || due < 0) return;
    const wait = due - Date.now();
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        slot.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      slot.wake = null;
    }
    if (isolate.isDisposed) return;
    await timers.fireTimers.apply(undefined, [Date.now()]);
  }
}

/** Heap plus array buffers of the isolate (isolated-vm counts buffers as external memory). */
function memoryInUse(isolate: ivm.Isolate): number {
  const stats = isolate.getHeapStatisticsSync() as ivm.HeapStatistics & { externally_allocated_size?: number };
  return stats.used_heap_size + (stats.externally_allocated_size ?? 0);
}

function notePeak(prepared: Prepared): void {
  const { engine, slot } = prepared;
  if (engine.isolate.isDisposed) return;
  try {
    slot.memoryPeak = Math.max(slot.memoryPeak, memoryInUse(engine.isolate));
  } catch {
    // The isolate was disposed meanwhile (a limit); the peak stays as measured.
  }
}

/** This run's memory as a fresh isolate would report it: its context and growth over what it found, plus the isolate's floor. */
function runMemory(prepared: Prepared): number {
  return Math.max(prepared.engine.floor, prepared.slot.memoryPeak - prepared.base + prepared.engine.floor);
}

function createEngine(memoryMb: number): Engine {
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    onCatastrophicError: (message: string) => {
      catastrophic = true;
      send({ type: 'catastrophic', message });
      // The process cannot be trusted after this; the server replaces it.
      process.exit(70);
    },
  });
  // V8's code cache for the prelude makes every further isolate cheaper to prepare.
  const prelude = isolate.compileScriptSync(preludeSource, { filename: 'svc-prelude.js', ...(preludeCache ? { cachedData: preludeCache } : { produceCachedData: true }) });
  const produced = (prelude as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (!preludeCache && produced) preludeCache = produced;
  // Only this context gets `gc`: the flag is read when a context is created.
  v8.setFlagsFromString('--expose-gc');
  let maintenance: ivm.Context;
  try {
    maintenance = isolate.createContextSync();
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  const finalizerWatch = isolate.compileScriptSync(FINALIZER_WATCH, { filename: 'svc-finalizer-watch.js' });
  const engine: Engine = { isolate, memoryMb, prelude, finalizerWatch, temporal: null, runs: 0, maintenance, floor: 0, packageScripts: new Map() };
  engine.floor = memoryInUse(isolate);
  return engine;
}

// Marks the slot when the program registers a finalizer (its callback runs outside the run).
// Compiled once per isolate (a per-context evalClosure compiled it on every run); the mark
// callback arrives as a global the script takes and deletes before any program code runs.
const FINALIZER_WATCH = `(() => {
const mark = globalThis.__svc_finalizer_mark;
delete globalThis.__svc_finalizer_mark;
const FR = globalThis.FinalizationRegistry;
if (FR) {
  const register = FR.prototype.register;
  const apply = Reflect.apply;
  let marked = false;
  Object.defineProperty(FR.prototype, 'register', { value: { register(...args) { if (!marked) { marked = true; mark.applySync(undefined, []); } return apply(register, this, args); } }.register, writable: true, configurable: true });
}
})();`;

function prepareContext(engine: Engine): Prepared {
  const { isolate } = engine;
  const slot = newSlot();
  let base = memoryInUse(isolate);
  if (base > engine.floor + GC_SLACK_BYTES) {
    // Earlier runs left garbage; collected now (off the request path) it cannot make this
    // run's memory_peak look smaller than it is.
    engine.maintenance.evalSync('gc()');
    base = memoryInUse(isolate);
  }
  const context = isolate.createContextSync();
  const jail = context.global;
  let prepared: Prepared | null = null;

  const hostCall = (module: string, op: string, args: string, fuelLeft: number, caller?: unknown, consumer?: unknown) => {
    if (!slot.live) return Promise.reject(new Error('the run has ended'));
    if (args.length > MAX_HOST_CALL_ARGS_CHARS) return Promise.reject(new RangeError(hostCallTooLarge(module, op, args.length)));
    slot.lastFuelLeft = fuelLeft;
    const callId = slot.nextCallId++;
    if (prepared) notePeak(prepared);
    return new Promise<string>((resolve) => {
      slot.pendingCalls.set(callId, (reply) => {
        slot.hostFuel += reply.fuel + Math.ceil((args.length * 2) / 8) + Math.ceil((reply.reply.length * 2) / 8);
        resolve(reply.reply);
      });
      const attribution = caller === undefined ? undefined : { caller: typeof caller === 'string' ? caller : null, consumer: typeof consumer === 'string' ? consumer : null };
      send({ type: 'host-call', runId: slot.runId, callId, module, op, args, fuelLeft, ...(attribution ? { attribution } : {}) });
    });
  };
  const consoleLine = (line: unknown) => {
    // The isolate's value is data: only a string is a console line.
    if (!slot.live || typeof line !== 'string') return;
    if (slot.console.length >= MAX_CONSOLE_LINES || slot.consoleBytes + line.length > MAX_CONSOLE_BYTES) {
      slot.consoleDropped++;
      return;
    }
    slot.console.push(line);
    slot.consoleBytes += line.length;
  };
  const limit = (kind: RunnerOutcome['kind'], fuelLeft?: number, stack?: string) => endRun(isolate, slot, kind, fuelLeft, stack);
  const mayBlock = () => {
    if (!slot.syncSlice) return true;
    slot.restart = true;
    return false;
  };
  const random = (count: number) => randomBytes(Math.max(0, Math.min(65536, Number(count) || 0))).toString('base64');

  jail.setSync('__svc_native', new ivm.ExternalCopy({}).copyInto());
  const native = jail.getSync('__svc_native', { reference: true }) as ivm.Reference<Record<string, unknown>>;
  native.setSync('hostCall', new ivm.Reference(hostCall));
  native.setSync('console', new ivm.Reference(consoleLine));
  native.setSync('limit', new ivm.Reference(limit));
  native.setSync('mayBlock', new ivm.Reference(mayBlock));
  native.setSync('random', new ivm.Reference(random));
  native.setSync('url', new ivm.Reference(parseUrlParts));
  engine.prelude.runSync(context);
  jail.setSync('__svc_finalizer_mark', new ivm.Reference(() => (slot.leftState = true)));
  engine.finalizerWatch.runSync(context);
  const entry = jail.getSync('__svc_entry', { reference: true }) as ivm.Reference<Record<string, unknown>>;
  const run = entry.getSync('run', { reference: true }) as Prepared['run'];
  const collect = entry.getSync('collect', { reference: true }) as ivm.Reference<() => string>;
  const timers: GuestTimers = {
    nextTimer: entry.getSync('nextTimer', { reference: true }) as GuestTimers['nextTimer'],
    fireTimers: entry.getSync('fireTimers', { reference: true }) as GuestTimers['fireTimers'],
  };
  jail.deleteSync('__svc_entry');
  prepared = { engine, context, run, collect, timers, handles: [native, entry, run, collect, timers.nextTimer, timers.fireTimers], slot, base };
  return prepared;
}

let engine: Engine | null = null;
let ready: Prepared | null = null;
let current: { runId: number; prepared: Prepared } | null = null;

/** Lets V8 collect a context: every host handle into it goes, then the context itself. */
function releaseContext(prepared: Prepared): void {
  for (const handle of prepared.handles) {
    try {
      handle.release();
    } catch {
      // Already released, or the isolate is gone.
    }
  }
  prepared.handles.length = 0;
  prepared.context.release();
}

function retire(): void {
  if (ready) releaseContext(ready);
  ready = null;
  if (engine && !engine.isolate.isDisposed) engine.isolate.dispose();
  engine = null;
}

/** Off the request path: the next run's context (and, after a retirement, its isolate). */
function prepareNext(memoryMb: number): void {
  setImmediate(() => {
    if (ready !== null || current !== null || catastrophic) return;
    try {
      if (engine === null || engine.isolate.isDisposed) engine = createEngine(memoryMb);
      ready = prepareContext(engine);
    } catch {
      retire();
    }
  });
}

function takePrepared(memoryMb: number): Prepared {
  if (ready && ready.engine === engine && ready.engine.memoryMb === memoryMb && !ready.engine.isolate.isDisposed) {
    const taken = ready;
    ready = null;
    return taken;
  }
  retire();
  engine = createEngine(memoryMb);
  return prepareContext(engine);
}

function classifyFailure(message: string): RunnerOutcome['kind'] | null {
  if (/memory limit/i.test(message)) return 'memory_exhausted';
  return null;
}

/**
 * Some allocations inside V8 builtins cannot be interrupted: the isolate is disposed (by a
 * limit) but never stops, and this process may never recover. Report the run as ended and
 * exit, so the pool replaces this runner.
 */
function watchForStuckIsolate(message: RunMessage, isolate: ivm.Isolate, slot: Slot, started: number): NodeJS.Timeout {
  let disposedAt: number | null = null;
  return setInterval(() => {
    if (!isolate.isDisposed) return;
    disposedAt ??= Date.now();
    if (Date.now() - disposedAt < 500) return;
    const kind = slot.limit?.kind ?? 'memory_exhausted';
    const outcome: RunnerOutcome = {
      kind,
      result: null,
      failure: null,
      console: slot.console,
      wasmFuel: kind === 'fuel_exhausted' ? Math.max(0, message.limits.fuel - slot.hostFuel) : 0,
      hostFuel: slot.hostFuel,
      memoryPeak: kind === 'memory_exhausted' ? message.limits.memoryMb * 1024 * 1024 : slot.memoryPeak,
      wallMs: Date.now() - started,
    };
    process.send?.({ type: 'done', runId: message.runId, outcome, retiring: true } satisfies FromRunner, () => process.exit(75));
  }, 100);
}

type Collected = ({ ok: true; result: string | null } | ({ ok: false } & GuestFailure)) & { fuelLeft?: number | null };

/** How one attempt at a run ended. */
interface Attempt {
  collected: Collected | null;
  crash: string | null;
  /** A synchronous attempt that must be run again asynchronously (nothing of it left the isolate). */
  restart: boolean;
}

/**
 * A program that imports nothing from the host is first run synchronously on this thread,
 * for at most this long: an asynchronous call moves the isolate to another thread, which
 * cost 0.2-0.5 ms per run (more than a hello-world run itself). If the program wants the host, runs longer, or
 * runs out of stack (this thread's stack is not the one an asynchronous run gets), the
 * attempt is discarded, and the run starts again asynchronously in a fresh context. Only
 * what stayed in the isolate happened: no host call, console line or fuel of the attempt
 * is kept.
 */
const SYNC_SLICE_MS = 3;

/** Programs whose synchronous attempt was discarded lately: they go straight to an asynchronous run. */
const restartedPrograms = new Set<string>();
const RESTARTED_PROGRAMS_KEPT = 64;

function noteRestarted(code: string): void {
  restartedPrograms.add(code);
  if (restartedPrograms.size > RESTARTED_PROGRAMS_KEPT) restartedPrograms.delete(restartedPrograms.values().next().value as string);
}

function trySyncFirst(message: RunMessage): boolean {
  if (restartedPrograms.has(message.code)) return false;
  if (message.usesTemporal || (message.packages?.length ?? 0) > 0) return false;
  if (Object.keys(message.hostModules ?? {}).length > 0 || Object.keys(message.guestModules ?? {}).length > 0) return false;
  if (message.limits.timeMs > 0 && message.limits.timeMs <= SYNC_SLICE_MS) return false;
  // Names of the web platform's host-backed globals: such a program would restart.
  return !/\b(?:fetch|subtle)\b/.test(message.code);
}

async function attemptRun(prepared: Prepared, message: RunMessage, started: number, sync: boolean): Promise<Attempt> {
  const { engine, context, slot } = prepared;
  const { isolate } = engine;
  slot.runId = message.runId;
  slot.live = true;
  current = { runId: message.runId, prepared };
  let timer: NodeJS.Timeout | null = null;
  if (message.limits.timeMs > 0) timer = setTimeout(() => endRun(isolate, slot, 'timeout'), Math.max(0, message.limits.timeMs - (Date.now() - started)));
  const stuck = watchForStuckIsolate(message, isolate, slot, started);

  let collected: Collected | null = null;
  let crash: string | null = null;
  try {
    if (message.usesTemporal) {
      engine.temporal ??= await isolate.compileScript(temporal(), { filename: 'svc-temporal.js' });
      await engine.temporal.run(context);
    }
    const guestEntries = Object.entries(message.guestModules ?? {});
    if (guestEntries.length > 0) {
      // Guest-side module code is ours; the prelude takes (and deletes) it before the program runs.
      const table = guestEntries.map(([name, source]) => `${JSON.stringify(name)}: (${source})`).join(',\n');
      isolate.compileScriptSync(`globalThis.__svc_guest_modules = {\n${table}\n};`, { filename: 'svc-modules.js' }).runSync(context);
    }
    // Compiling and linking run no program code (the script is one function expression),
    // so they happen synchronously; only the run itself needs the event loop (host calls).
    const script = isolate.compileScriptSync(message.code, { filename: message.filename });
    const link = script.runSync(context, { reference: true }) as ivm.Reference<unknown>;
    prepared.handles.push(script, link);
    // Packages: each its own script under its own file name (its frames' owner), kept
    // compiled in the isolate by content key; linking runs none of their code.
    const packages = Array.isArray(message.packages) ? message.packages : [];
    const packageLinks: ivm.Reference<unknown>[] = [];
    for (const entry of packages) {
      let compiled = engine.packageScripts.get(entry.key);
      if (!compiled) {
        compiled = isolate.compileScriptSync(entry.code, { filename: entry.filename });
        engine.packageScripts.set(entry.key, compiled);
      }
      const packageLink = compiled.runSync(context, { reference: true }) as ivm.Reference<unknown>;
      prepared.handles.push(packageLink);
      packageLinks.push(packageLink);
    }
    const spec = JSON.stringify({
      fuelBudget: message.limits.fuel,
      maxDepth: Math.max(16, message.limits.stackKib * 4),
      hostModules: message.hostModules,
      packages: packages.map((p) => ({ name: p.name, filename: p.filename, imports: p.imports })),
      listed: packages.filter((p) => p.listed).map((p) => p.name),
    });
    const args: Parameters<Prepared['run']['apply']>[1] = [link.derefInto(), spec, ...packageLinks.map((l) => l.derefInto())];
    if (sync) {
      slot.syncSlice = true;
      try {
        prepared.run.applySync(undefined, args, { timeout: SYNC_SLICE_MS });
      } catch (error) {
        if (isolate.isDisposed) throw error;
        // Past the slice (V8 terminated it), or an unhandled rejection: only the former restarts.
        if (/timed out/i.test((error as Error).message ?? '')) slot.restart = true;
      } finally {
        slot.syncSlice = false;
      }
      if (slot.restart) return { collected: null, crash: null, restart: true };
    } else {
      try {
        await prepared.run.apply(undefined, args);
      } catch (error) {
        // A rejection nobody handled surfaces here; the program's own outcome still counts.
        if (isolate.isDisposed) throw error;
      }
    }
    await runTimers(isolate, slot, prepared.timers);
    // Microtasks have drained and no timer can fire: main has settled, or it never will.
    if (!isolate.isDisposed) {
      notePeak(prepared);
      collected = JSON.parse(prepared.collect.applySync(undefined, [], { result: { copy: true } }) as string);
    }
  } catch (error) {
    crash = (error as Error).message ?? String(error);
  } finally {
    if (timer) clearTimeout(timer);
    clearInterval(stuck);
  }
  const restart = sync && (slot.restart || slot.limit?.kind === 'stack_exhausted');
  return { collected, crash, restart };
}

function failedToStart(message: RunMessage, started: number, error: unknown): void {
  retire();
  const outcome: RunnerOutcome = { kind: 'error', result: null, failure: { name: 'Error', message: `the run failed inside the sandbox: ${(error as Error).message}` }, console: [], wasmFuel: 0, hostFuel: 0, memoryPeak: 0, wallMs: Date.now() - started };
  current = null;
  send({ type: 'done', runId: message.runId, outcome });
}

async function handleRun(message: RunMessage): Promise<void> {
  const started = Date.now();
  let prepared: Prepared;
  try {
    prepared = takePrepared(message.limits.memoryMb);
  } catch (error) {
    failedToStart(message, started, error);
    return;
  }
  let attempt = await attemptRun(prepared, message, started, trySyncFirst(message));
  if (attempt.restart) {
    noteRestarted(message.code);
    const first = prepared;
    first.slot.live = false;
    try {
      if (first.engine.isolate.isDisposed) {
        retire();
        engine = createEngine(message.limits.memoryMb);
      } else releaseContext(first);
      prepared = prepareContext(engine ?? first.engine);
      if (prepared.base > first.base + GC_SLACK_BYTES) {
        // The attempt's garbage still counts (array buffers are freed after the collection,
        // not by it): it would inflate this run's memory, so a fresh isolate takes the run.
        releaseContext(prepared);
        retire();
        engine = createEngine(message.limits.memoryMb);
        prepared = prepareContext(engine);
      }
    } catch (error) {
      failedToStart(message, started, error);
      prepareNext(message.limits.memoryMb);
      return;
    }
    // A finalizer the attempt registered lives in the isolate: it still retires it.
    prepared.slot.leftState = first.slot.leftState;
    attempt = await attemptRun(prepared, message, started, false);
  }
  const { engine: runEngine, slot } = prepared;
  const { isolate } = runEngine;
  const { collected, crash } = attempt;

  const limits = message.limits;
  const limitBytes = limits.memoryMb * 1024 * 1024;
  const memoryPeak = runMemory(prepared);
  let kind: RunnerOutcome['kind'];
  if (slot.limit) kind = slot.limit.kind;
  else if (crash !== null) kind = classifyFailure(crash) ?? 'error';
  // V8 admits one large allocation past the heap limit, and array buffers live outside
  // the heap; the limit still applies to both.
  else if (memoryPeak > limitBytes) kind = 'memory_exhausted';
  else kind = collected?.ok ? 'ok' : 'error';

  const fuelLeft = kind === 'fuel_exhausted' ? 0 : (slot.limit?.fuelLeft ?? collected?.fuelLeft ?? slot.lastFuelLeft ?? limits.fuel);
  const wasmFuel = Math.max(0, limits.fuel - Math.max(0, fuelLeft) - slot.hostFuel);
  const consoleLines = slot.consoleDropped > 0 ? [...slot.console, `[${slot.consoleDropped} more console lines were dropped: a run keeps at most ${MAX_CONSOLE_LINES} lines and 1 MiB]`] : slot.console;
  let failure: GuestFailure | null = null;
  if (kind === 'error') {
    if (collected && !collected.ok) failure = { name: collected.name, message: collected.message, headline: collected.headline, stack: collected.stack, denied: collected.denied };
    else failure = { name: 'Error', message: `the run failed inside the sandbox: ${crash ?? 'unknown failure'}` };
  }
  const outcome: RunnerOutcome = {
    kind,
    result: kind === 'ok' && collected?.ok ? collected.result : null,
    failure,
    limitStack: slot.limit?.stack,
    console: consoleLines,
    wasmFuel,
    hostFuel: slot.hostFuel,
    memoryPeak: kind === 'memory_exhausted' ? limitBytes : memoryPeak,
    wallMs: Date.now() - started,
  };
  slot.live = false;
  current = null;
  send({ type: 'done', runId: message.runId, outcome: reportOf(outcome, message) });
  // The context is never used again. The isolate is, unless the run ended by a limit or
  // a crash, could have left something behind (a finalizer), ran often enough, or left a
  // large heap.
  let keep = (kind === 'ok' || kind === 'error') && crash === null && !slot.leftState && !isolate.isDisposed;
  if (keep) {
    releaseContext(prepared);
    runEngine.runs++;
    try {
      keep = runEngine.runs < MAX_RUNS_PER_ISOLATE && memoryInUse(isolate) < runEngine.memoryMb * 1024 * 1024 * RETIRE_HEAP_SHARE;
    } catch {
      keep = false;
    }
  }
  if (!keep && engine === prepared.engine) retire();
  else if (!keep && !isolate.isDisposed) isolate.dispose();
  prepareNext(message.limits.memoryMb);
}

process.on('message', (message: ToRunner) => {
  switch (message.type) {
    case 'run':
      void handleRun(message);
      break;
    case 'host-reply': {
      if (!current || current.runId !== message.runId) return;
      const resolve = current.prepared.slot.pendingCalls.get(message.callId);
      current.prepared.slot.pendingCalls.delete(message.callId);
      resolve?.(message);
      break;
    }
    case 'cancel':
      if (current && current.runId === message.runId) endRun(current.prepared.engine.isolate, current.prepared.slot, 'cancelled');
      break;
  }
});

process.on('disconnect', () => process.exit(0));
setInterval(() => send({ type: 'heartbeat' }), HEARTBEAT_MS).unref();
const initialMemory = Number(process.argv[2] ?? '50');
engine = createEngine(initialMemory);
ready = prepareContext(engine);
send({ type: 'ready' });
