// A runner child process: keeps a pre-warmed isolate (prelude evaluated) ready, runs one
// program at a time in a fresh isolate, forwards standard-library calls to the server,
// enforces the time limit, and reports how the run ended. The server kills and replaces
// a runner that crashes or stops sending heartbeats.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import ivm from 'isolated-vm';
import type { FromRunner, GuestFailure, HostReplyMessage, RunMessage, RunnerOutcome, ToRunner } from './protocol';

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

/** Run-specific state the isolate's native callbacks reach through. */
interface Slot {
  runId: number;
  limit: { kind: RunnerOutcome['kind']; fuelLeft?: number; stack?: string } | null;
  console: string[];
  consoleBytes: number;
  consoleDropped: number;
  hostFuel: number;
  lastFuelLeft: number | null;
  memoryPeak: number;
  pendingCalls: Map<number, (reply: HostReplyMessage) => void>;
  nextCallId: number;
}

interface WarmIsolate {
  isolate: ivm.Isolate;
  context: ivm.Context;
  run: ivm.Reference<(link: unknown, spec: string) => void>;
  collect: ivm.Reference<() => string>;
  slot: Slot;
  memoryMb: number;
}

let catastrophic = false;

function newSlot(): Slot {
  return {
    runId: -1,
    limit: null,
    console: [],
    consoleBytes: 0,
    consoleDropped: 0,
    hostFuel: 0,
    lastFuelLeft: null,
    memoryPeak: 0,
    pendingCalls: new Map(),
    nextCallId: 1,
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
  if (slot.limit === null) slot.limit = { kind, fuelLeft, stack: typeof stack === 'string' ? stack : undefined };
  if (!isolate.isDisposed) isolate.dispose();
}

function createWarmIsolate(memoryMb: number): WarmIsolate {
  const slot = newSlot();
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    onCatastrophicError: (message: string) => {
      catastrophic = true;
      send({ type: 'catastrophic', message });
      // The process cannot be trusted after this; the server replaces it.
      process.exit(70);
    },
  });
  const context = isolate.createContextSync();
  const jail = context.global;

  const hostCall = (module: string, op: string, args: string, fuelLeft: number) => {
    slot.lastFuelLeft = fuelLeft;
    const callId = slot.nextCallId++;
    void isolate.getHeapStatistics().then(
      (stats) => (slot.memoryPeak = Math.max(slot.memoryPeak, stats.used_heap_size)),
      () => undefined,
    );
    return new Promise<string>((resolve) => {
      slot.pendingCalls.set(callId, (reply) => {
        slot.hostFuel += reply.fuel + Math.ceil((args.length * 2) / 8) + Math.ceil((reply.reply.length * 2) / 8);
        resolve(reply.reply);
      });
      send({ type: 'host-call', runId: slot.runId, callId, module, op, args, fuelLeft });
    });
  };
  const consoleLine = (line: unknown) => {
    // The isolate's value is data: only a string is a console line.
    if (typeof line !== 'string') return;
    if (slot.console.length >= MAX_CONSOLE_LINES || slot.consoleBytes + line.length > MAX_CONSOLE_BYTES) {
      slot.consoleDropped++;
      return;
    }
    slot.console.push(line);
    slot.consoleBytes += line.length;
  };
  const limit = (kind: RunnerOutcome['kind'], fuelLeft?: number, stack?: string) => endRun(isolate, slot, kind, fuelLeft, stack);
  const random = (count: number) => randomBytes(Math.max(0, Math.min(65536, Number(count) || 0))).toString('base64');

  jail.setSync(
    '__svc_native',
    new ivm.ExternalCopy({}).copyInto(),
  );
  const native = jail.getSync('__svc_native', { reference: true }) as ivm.Reference<Record<string, unknown>>;
  native.setSync('hostCall', new ivm.Reference(hostCall));
  native.setSync('console', new ivm.Reference(consoleLine));
  native.setSync('limit', new ivm.Reference(limit));
  native.setSync('random', new ivm.Reference(random));
  native.setSync('url', new ivm.Reference(parseUrlParts));
  // V8's code cache for the prelude makes every further isolate cheaper to prepare.
  const prelude = isolate.compileScriptSync(preludeSource, { filename: 'svc-prelude.js', ...(preludeCache ? { cachedData: preludeCache } : { produceCachedData: true }) });
  const produced = (prelude as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (!preludeCache && produced) preludeCache = produced;
  prelude.runSync(context);
  const entry = jail.getSync('__svc_entry', { reference: true }) as ivm.Reference<Record<string, unknown>>;
  const run = entry.getSync('run', { reference: true }) as ivm.Reference<(link: unknown, spec: string) => void>;
  const collect = entry.getSync('collect', { reference: true }) as ivm.Reference<() => string>;
  jail.deleteSync('__svc_entry');
  return { isolate, context, run, collect, slot, memoryMb };
}

let warm: WarmIsolate | null = null;
let current: { runId: number; warm: WarmIsolate } | null = null;

function prepareNext(memoryMb: number): void {
  setImmediate(() => {
    if (warm === null && !catastrophic) {
      try {
        warm = createWarmIsolate(memoryMb);
      } catch {
        warm = null;
      }
    }
  });
}

function takeIsolate(memoryMb: number): WarmIsolate {
  if (warm && warm.memoryMb === memoryMb) {
    const taken = warm;
    warm = null;
    return taken;
  }
  if (warm) warm.isolate.dispose();
  warm = null;
  return createWarmIsolate(memoryMb);
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

async function handleRun(message: RunMessage): Promise<void> {
  const started = Date.now();
  const instance = takeIsolate(message.limits.memoryMb);
  const { isolate, context, slot } = instance;
  slot.runId = message.runId;
  current = { runId: message.runId, warm: instance };
  let timer: NodeJS.Timeout | null = null;
  if (message.limits.timeMs > 0) timer = setTimeout(() => endRun(isolate, slot, 'timeout'), message.limits.timeMs);
  const stuck = watchForStuckIsolate(message, isolate, slot, started);

  let collected: ({ ok: true; result: string | null } | ({ ok: false } & GuestFailure)) & { fuelLeft?: number | null } | null = null;
  let crash: string | null = null;
  try {
    if (message.usesTemporal) await (await isolate.compileScript(temporal(), { filename: 'svc-temporal.js' })).run(context);
    const guestEntries = Object.entries(message.guestModules ?? {});
    if (guestEntries.length > 0) {
      // Guest-side module code is ours; the prelude takes (and deletes) it before the program runs.
      const table = guestEntries.map(([name, source]) => `${JSON.stringify(name)}: (${source})`).join(',\n');
      await (await isolate.compileScript(`globalThis.__svc_guest_modules = {\n${table}\n};`, { filename: 'svc-modules.js' })).run(context);
    }
    const script = await isolate.compileScript(message.code, { filename: message.filename });
    const link = (await script.run(context, { reference: true })) as ivm.Reference<unknown>;
    const spec = JSON.stringify({ fuelBudget: message.limits.fuel, maxDepth: Math.max(16, message.limits.stackKib * 4), hostModules: message.hostModules });
    try {
      await instance.run.apply(undefined, [link.derefInto(), spec]);
    } catch (error) {
      // A rejection nobody handled surfaces here; the program's own outcome still counts.
      if (isolate.isDisposed) throw error;
    }
    // Microtasks have drained: main has settled, or it never will.
    collected = JSON.parse(await instance.collect.apply(undefined, [], { result: { copy: true } }) as string);
    if (!isolate.isDisposed) {
      const stats = await isolate.getHeapStatistics();
      slot.memoryPeak = Math.max(slot.memoryPeak, stats.used_heap_size);
    }
  } catch (error) {
    crash = (error as Error).message ?? String(error);
  } finally {
    if (timer) clearTimeout(timer);
    clearInterval(stuck);
  }

  const limits = message.limits;
  let kind: RunnerOutcome['kind'];
  if (slot.limit) kind = slot.limit.kind;
  else if (crash !== null) kind = classifyFailure(crash) ?? 'error';
  // V8 admits one large allocation past the heap limit; the limit still applies.
  else if (slot.memoryPeak > limits.memoryMb * 1024 * 1024) kind = 'memory_exhausted';
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
    memoryPeak: kind === 'memory_exhausted' ? limits.memoryMb * 1024 * 1024 : slot.memoryPeak,
    wallMs: Date.now() - started,
  };
  if (!isolate.isDisposed) isolate.dispose();
  current = null;
  send({ type: 'done', runId: message.runId, outcome });
  prepareNext(message.limits.memoryMb);
}

process.on('message', (message: ToRunner) => {
  switch (message.type) {
    case 'run':
      void handleRun(message);
      break;
    case 'host-reply': {
      if (!current || current.runId !== message.runId) return;
      const resolve = current.warm.slot.pendingCalls.get(message.callId);
      current.warm.slot.pendingCalls.delete(message.callId);
      resolve?.(message);
      break;
    }
    case 'cancel':
      if (current && current.runId === message.runId) endRun(current.warm.isolate, current.warm.slot, 'cancelled');
      break;
  }
});

process.on('disconnect', () => process.exit(0));
setInterval(() => send({ type: 'heartbeat' }), HEARTBEAT_MS).unref();
const initialMemory = Number(process.argv[2] ?? '50');
warm = createWarmIsolate(initialMemory);
send({ type: 'ready' });
