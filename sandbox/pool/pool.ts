// The server side of the sandbox: a pool of runner child processes, each hosting many runs
// at once (a waiting run holds memory, not a process). Admission bounds the runs in flight
// and queues the rest fairly; the pool answers the runners' host calls through the
// execution layer's HostHandler, owns the watchdogs (heartbeats, deadline margin,
// cancellation) and replaces any runner that crashes or hangs: only the runs it hosted
// (at most `runsPerRunner`) notice.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BYTES_TAG, PROGRAM_FILENAME } from '../contract';
import { hostCallTooLarge, MAX_HOST_CALL_ARGS_CHARS, PROGRAM_MAP_BYTES, PROGRAM_MAPS_KEPT, type FromRunner, type ToRunner } from '../runner/protocol';
import { Recent } from '../runner/recent';
import { readHostCall, readOutcome, type CheckedOutcome } from './report';
import type { HostHandler, HostReply, RunError, RunJob, RunOutcome } from './types';
import { Admission, type AdmissionLimits } from './admission';

const HEARTBEAT_TIMEOUT_MS = 3_000;
const DEADLINE_MARGIN_MS = 2_000;
const CANCEL_GRACE_MS = 1_000;
/** What a run hears when another run crashed the runner process they shared. */
const SHARED_CRASH = 'the run was stopped because the runner process hosting it crashed (another run it hosted broke it); the server replaced the runner: run it again';

export interface RunnerPoolOptions {
  /** Runner child processes. */
  size: number;
  memoryMb: number;
  /** Runs one runner hosts at once (1: each run in its own process); a runner crash ends at most this many. */
  runsPerRunner?: number;
  /** Server-wide ceilings on runs in flight and queued (defaults: no ceiling beyond the runners, a queue of 1024). */
  admission?: Partial<AdmissionLimits>;
  /** Runner entry (defaults to dist/runner.js next to the server bundle, or the TS source). */
  runnerEntry?: string;
  execArgv?: string[];
  /** Silence after which a runner counts as stuck and is replaced (default 3 s); tests whose stand-in runner blocks its own loop on purpose raise it. */
  heartbeatTimeoutMs?: number;
  onLog?: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** A runner was killed and replaced; `reason` is the outcome that ended its run. */
  onRestart?: (reason: string) => void;
}

interface ActiveRun {
  runId: number;
  job: RunJob;
  host: HostHandler;
  resolve: (outcome: RunOutcome) => void;
  started: number;
  timers: NodeJS.Timeout[];
  settled: boolean;
  /** Who sent the run (admission shares slots fairly among them). */
  tenant: string;
  memoryMb: number;
  /** Admitted (counted in flight) and given to this runner. */
  admitted: boolean;
  runner: Runner | null;
  /** Host calls being answered, by call id: a cancellation from the guest aborts one. */
  calls: Map<number, AbortController>;
  /** Removes the run's abort listener (a listener left behind keeps the whole job alive). */
  detach?: () => void;
}

interface Runner {
  child: ChildProcess;
  ready: boolean;
  /** Runs this runner hosts, by run id. */
  runs: Map<number, ActiveRun>;
  lastHeard: number;
  catastrophic: { message: string; runId: number | null } | null;
  /** The run whose synchronous attempt holds the runner's main thread, if it said so. */
  slicing: number | null;
  /** Holds an isolate that cannot stop: gets no further run, replaced once its runs end. */
  draining: boolean;
  /** Programs whose source map and source this runner holds (half its own budget). */
  maps: Recent<true>;
}

const DEFAULT_QUEUED_RUNS = 1024;

function defaultEntry(): { entry: string; execArgv: string[] } {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bundled = [path.join(here, 'runner.js'), path.join(here, '..', '..', 'dist', 'runner.js')].find((p) => fs.existsSync(p));
  if (bundled) return { entry: bundled, execArgv: [] };
  return { entry: path.join(here, '..', 'runner', 'main.ts'), execArgv: ['--import', 'tsx'] };
}

/** Host replies carry bytes as tagged base64, the same wire the guest uses. */
function replyToWire(reply: HostReply): string {
  return JSON.stringify(reply, (_key, value) => {
    if (value instanceof Uint8Array) return { [BYTES_TAG]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    if (value && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) return { [BYTES_TAG]: Buffer.from(value.data).toString('base64') };
    return value;
  });
}

/** The guest's arguments: a JSON array (bytes tagged); anything else is a TypeError reply. */
function argsFromWire(text: string): unknown[] {
  const args: unknown = JSON.parse(text, (_key, value) =>
    value && typeof value === 'object' && typeof value[BYTES_TAG] === 'string' && Object.keys(value).length === 1 ? new Uint8Array(Buffer.from(value[BYTES_TAG], 'base64')) : value,
  );
  if (!Array.isArray(args)) throw new TypeError('the arguments did not arrive as a list');
  return args;
}

/** Limit messages begin with stable markers (agents and tests read them). */
function limitMessage(kind: string, limits: RunJob['limits']): string {
  switch (kind) {
    case 'fuel_exhausted':
      return `fuel exhausted: the run used its whole budget of ${limits.fuel} fuel (max_execution_fuel); do less work per run or split it across runs`;
    case 'timeout':
      return `timeout exceeded: the run passed its time limit of ${limits.timeMs / 1000} s (max_execution_time)`;
    case 'memory_exhausted':
      return `memory exhausted: the run passed its limit of ${limits.memoryMb} MB (max_execution_memory): out of memory; process the data in smaller pieces`;
    case 'stack_exhausted':
      return `call stack exhausted: the call depth passed the limit of about ${Math.max(16, limits.stackKib * 4)} frames (max_execution_stack ${limits.stackKib} KiB); make deep recursion iterative or raise max_execution_stack`;
    case 'cancelled':
      return 'cancelled: the run was stopped before it finished (the server cancelled it, for example while shutting down)';
    default:
      return 'the run crashed the sandbox; the server replaced the runner';
  }
}

export class RunnerPool {
  private readonly runners: Runner[] = [];
  private readonly admission: Admission<ActiveRun>;
  private readonly runsPerRunner: number;
  private nextRunId = 1;
  private stopped = false;
  private watchdog: NodeJS.Timeout | null = null;
  private readonly entry: string;
  private readonly execArgv: string[];

  /** Runs waiting for admission (for the metrics). */
  get queueDepth(): number {
    return this.admission.queueDepth;
  }

  constructor(private readonly options: RunnerPoolOptions) {
    const fallback = defaultEntry();
    this.entry = options.runnerEntry ?? fallback.entry;
    this.execArgv = options.execArgv ?? fallback.execArgv;
    this.runsPerRunner = Math.max(1, options.runsPerRunner ?? 1);
    this.admission = new Admission({
      runsInFlight: options.admission?.runsInFlight ?? options.size * this.runsPerRunner,
      memoryMb: options.admission?.memoryMb ?? Number.MAX_SAFE_INTEGER,
      queued: options.admission?.queued ?? DEFAULT_QUEUED_RUNS,
    });
  }

  async start(): Promise<void> {
    const starting = Array.from({ length: this.options.size }, () => this.spawn());
    await Promise.all(starting.map((runner) => this.whenReady(runner)));
    this.watchdog = setInterval(() => this.checkHeartbeats(), 500);
    this.watchdog.unref();
  }

  run(job: RunJob, host: HostHandler): Promise<RunOutcome> {
    if (this.stopped) return Promise.resolve(this.ended(job, 'cancelled', 0));
    return new Promise((resolve) => {
      const active: ActiveRun = { runId: this.nextRunId++, job, host, resolve, started: Date.now(), timers: [], settled: false, tenant: job.tenant ?? '', memoryMb: job.limits.memoryMb, admitted: false, runner: null, calls: new Map() };
      const signal = job.signal;
      if (signal?.aborted) {
        resolve(this.ended(job, 'cancelled', 0));
        return;
      }
      const refusal = this.admission.offer(active);
      if (refusal) {
        resolve(this.ended(job, 'error', 0, refusal.refused));
        return;
      }
      if (signal) {
        const onAbort = () => this.abort(active);
        signal.addEventListener('abort', onAbort, { once: true });
        active.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.dispatch();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const queued of this.admission.drain()) this.finish(queued, this.ended(queued.job, 'cancelled', Date.now() - queued.started));
    for (const runner of this.runners) {
      for (const active of runner.runs.values()) this.finish(active, this.ended(active.job, 'cancelled', Date.now() - active.started));
      runner.runs.clear();
      runner.child.kill('SIGKILL');
    }
    this.runners.length = 0;
  }

  private spawn(): Runner {
    const child = fork(this.entry, [String(this.options.memoryMb)], {
      execArgv: ['--no-node-snapshot', '--disallow-code-generation-from-strings', ...this.execArgv],
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const runner: Runner = { child, ready: false, runs: new Map(), lastHeard: Date.now(), catastrophic: null, slicing: null, draining: false, maps: new Recent(PROGRAM_MAPS_KEPT / 2, PROGRAM_MAP_BYTES / 2) };
    this.runners.push(runner);
    child.on('message', (message: unknown) => this.onMessage(runner, message));
    child.on('exit', (code, signal) => this.onExit(runner, code, signal));
    child.on('error', (error) => this.options.onLog?.('error', 'runner process error', { error: error.message }));
    return runner;
  }

  private whenReady(runner: Runner): Promise<void> {
    return new Promise((resolve, reject) => {
      if (runner.ready) return resolve();
      const onMessage = (message: unknown) => {
        if (message !== null && typeof message === 'object' && (message as { type?: unknown }).type === 'ready') {
          runner.child.off('message', onMessage);
          resolve();
        }
      };
      runner.child.on('message', onMessage);
      runner.child.once('exit', (code) => reject(new Error(`runner exited during start (code ${code})`)));
    });
  }

  /** The runner with the most room (runs spread over the cores), or null when all are full. */
  private roomiest(): Runner | null {
    let best: Runner | null = null;
    for (const runner of this.runners) {
      if (!runner.ready || runner.draining || !runner.child.connected || runner.runs.size >= this.runsPerRunner) continue;
      if (best === null || runner.runs.size < best.runs.size) best = runner;
    }
    return best;
  }

  private dispatch(): void {
    while (this.admission.queueDepth > 0) {
      const runner = this.roomiest();
      if (!runner) return;
      const active = this.admission.next();
      if (!active) return;
      active.admitted = true;
      this.assign(runner, active);
    }
  }

  private assign(runner: Runner, active: ActiveRun): void {
    runner.runs.set(active.runId, active);
    active.runner = runner;
    const { job } = active;
    const source = job.script.sources[PROGRAM_FILENAME] ?? '';
    // The runner maps a failure's stack itself (sandbox/runner/render-stack.ts); a large
    // program's map is sent once per runner, not with every run.
    const known = this.holds(runner, job.script.key, job.script.sourceMap.length + source.length);
    const message: ToRunner = {
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
      ...(job.packages?.length
        ? { packages: job.packages.map(({ script, imports, listed }) => ({ name: script.name, key: script.key, code: script.code, filename: script.filename, ...this.mapFor(runner, script.key, script.sourceMap), imports, listed })) }
        : {}),
    };
    runner.child.send(message);
    if (job.limits.timeMs > 0) {
      // The runner enforces the limit; this catches a runner that cannot.
      active.timers.push(setTimeout(() => this.replace(runner, 'timeout', active.runId), job.limits.timeMs + DEADLINE_MARGIN_MS));
    }
  }

  /** The run's caller gave up: a queued run leaves the queue, a running one is cancelled in its runner. */
  private abort(active: ActiveRun): void {
    if (active.settled) return;
    if (!active.admitted) {
      if (this.admission.withdraw(active)) this.finish(active, this.ended(active.job, 'cancelled', Date.now() - active.started));
      return;
    }
    const runner = active.runner;
    if (!runner) return;
    runner.child.send({ type: 'cancel', runId: active.runId } satisfies ToRunner);
    active.timers.push(setTimeout(() => this.replace(runner, 'cancelled', active.runId), CANCEL_GRACE_MS));
  }

  /** Whether `runner` holds the map kept under `key` (then it is left out); notes it as sent otherwise. */
  private holds(runner: Runner, key: string, bytes: number): boolean {
    if (runner.maps.get(key) !== undefined) return true;
    runner.maps.set(key, true, bytes);
    return false;
  }

  private mapFor(runner: Runner, key: string, sourceMap: string): { sourceMap?: string } {
    return this.holds(runner, key, sourceMap.length) ? {} : { sourceMap };
  }

  /** Whatever a runner sends, the server keeps serving: a failure ends that run, logged. */
  private onMessage(runner: Runner, message: unknown): void {
    try {
      this.handleMessage(runner, message);
    } catch (error) {
      this.options.onLog?.('error', 'a runner message could not be handled; its runs end as errors and the runner is replaced', { error: describe(error) });
      if (this.runners.includes(runner)) this.replace(runner, 'error');
    }
  }

  private handleMessage(runner: Runner, raw: unknown): void {
    runner.lastHeard = Date.now();
    const message = raw as FromRunner;
    if (raw === null || typeof raw !== 'object' || typeof message.type !== 'string') throw new Error('a runner message without a type');
    switch (message.type) {
      case 'ready':
        runner.ready = true;
        this.dispatch();
        return;
      case 'heartbeat':
        runner.slicing = null;
        return;
      case 'slice':
        runner.slicing = typeof message.runId === 'number' ? message.runId : null;
        return;
      case 'catastrophic':
        runner.catastrophic = { message: typeof message.message === 'string' ? message.message : 'catastrophic error', runId: typeof message.runId === 'number' ? message.runId : null };
        return;
      case 'host-cancel': {
        const active = typeof message.runId === 'number' ? runner.runs.get(message.runId) : undefined;
        active?.calls.get(message.callId)?.abort(new DOMException('the program aborted the call', 'AbortError'));
        return;
      }
      case 'host-call': {
        const call = readHostCall(message);
        if (!call) throw new Error('a malformed host call');
        void this.answerHostCall(runner, call).catch((error) => this.options.onLog?.('error', 'answering a host call failed', { error: describe(error) }));
        return;
      }
      case 'done': {
        const active = typeof message.runId === 'number' ? runner.runs.get(message.runId) : undefined;
        if (!active) return;
        this.release(runner, active);
        this.finish(active, this.toOutcome(active.job, message.outcome));
        if (message.retiring === true) this.drain(runner);
        this.dispatch();
        return;
      }
      default:
        throw new Error('a runner message of an unknown type');
    }
  }

  /** The run no longer occupies its runner or its admission slot. */
  private release(runner: Runner, active: ActiveRun): void {
    if (!runner.runs.delete(active.runId)) return;
    this.admission.ended(active);
    if (runner.draining && runner.runs.size === 0) this.replace(runner, 'error');
  }

  /** A runner holds an isolate that cannot stop: a fresh one takes its share now; it goes once its runs end. */
  private drain(runner: Runner): void {
    if (runner.draining) return;
    runner.draining = true;
    this.options.onRestart?.('error');
    // The replacement starts here: replace() starts none for a draining runner.
    if (!this.stopped) this.startReplacement();
    if (runner.runs.size === 0) this.replace(runner, 'error');
  }

  private async answerHostCall(runner: Runner, message: Extract<FromRunner, { type: 'host-call' }>): Promise<void> {
    const active = runner.runs.get(message.runId);
    if (!active) return;
    let reply: HostReply;
    const cancel = new AbortController();
    active.calls.set(message.callId, cancel);
    try {
      // The runner refuses these already; a message over the bound is never parsed.
      if (message.args.length > MAX_HOST_CALL_ARGS_CHARS) throw new RangeError(hostCallTooLarge(message.module, message.op, message.args.length));
      reply = await active.host({ module: message.module, op: message.op, args: argsFromWire(message.args), fuelLeft: message.fuelLeft, signal: cancel.signal, ...(message.attribution ? { attribution: message.attribution } : {}) });
    } catch (error) {
      reply = { ok: false, fuel: 0, error: { name: 'Error', message: `host call ${message.module}.${message.op} failed: ${describe(error)}` } };
    } finally {
      active.calls.delete(message.callId);
    }
    // The run ended, or the program gave up on the call, meanwhile: discard.
    if (active.settled || cancel.signal.aborted || !runner.child.connected) return;
    let wire: string;
    try {
      wire = replyToWire(reply);
    } catch (error) {
      reply = { ok: false, fuel: reply.fuel, error: { name: 'Error', message: `host call ${message.module}.${message.op}: the reply could not be encoded (${describe(error)})` } };
      wire = replyToWire(reply);
    }
    const fuel = Number.isFinite(reply.fuel) && reply.fuel >= 0 ? reply.fuel : 0;
    runner.child.send({ type: 'host-reply', runId: message.runId, callId: message.callId, reply: wire, fuel } satisfies ToRunner);
  }

  private checkHeartbeats(): void {
    const now = Date.now();
    for (const runner of [...this.runners]) {
      if (runner.ready && now - runner.lastHeard > (this.options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS)) {
        // Programs run on isolated-vm's threads; only a synchronous attempt runs on the
        // runner's main thread, under a 3 ms slice that V8 enforces, so a runner that stops
        // answering is stuck in an allocation V8 cannot interrupt (measured: Array(2e8).fill(0)
        // under a 50 MB limit): that run's memory. The others it hosted end as crashes (or timeouts).
        const culprit = runner.slicing ?? (runner.runs.size === 1 ? [...runner.runs.keys()][0] : undefined);
        this.options.onLog?.('warn', 'runner stopped answering; replacing it', { pid: runner.child.pid, runs: runner.runs.size });
        this.replace(runner, culprit === undefined ? 'error' : 'memory_exhausted', culprit);
      }
    }
  }

  /**
   * Kills a runner, ends each run it hosted, and starts a replacement. The run that caused
   * it (`culprit`) ends with `kind`; the others it hosted end as crashes, or as timeouts
   * when they are past their own deadline.
   */
  private replace(runner: Runner, kind: RunOutcome['outcome'], culprit?: number): void {
    const index = this.runners.indexOf(runner);
    if (index === -1) return;
    this.runners.splice(index, 1);
    const runs = [...runner.runs.values()];
    runner.runs.clear();
    runner.ready = false;
    runner.child.removeAllListeners('exit');
    runner.child.kill('SIGKILL');
    this.options.onRestart?.(kind);
    const now = Date.now();
    for (const active of runs) {
      this.admission.ended(active);
      const late = active.job.limits.timeMs > 0 && now - active.started >= active.job.limits.timeMs;
      const own = culprit === undefined || culprit === active.runId ? kind : late ? 'timeout' : 'error';
      const message = own === 'error' && culprit !== undefined ? SHARED_CRASH : undefined;
      this.finish(active, this.ended(active.job, own === 'error' && late ? 'timeout' : own, now - active.started, message));
    }
    if (!this.stopped && !runner.draining) this.startReplacement();
    this.dispatch();
  }

  private startReplacement(): void {
    const fresh = this.spawn();
    this.whenReady(fresh).catch((error) => this.options.onLog?.('error', 'replacement runner failed to start', { error: (error as Error).message }));
  }

  private onExit(runner: Runner, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopped) return;
    this.options.onLog?.('warn', 'runner process exited; replacing it', { code, signal, catastrophic: runner.catastrophic?.message ?? undefined });
    // isolated-vm's catastrophic error follows an allocation the engine could not survive:
    // that run's memory; any other exit during a run crashed the sandbox (runtime_error).
    if (runner.catastrophic) this.replace(runner, 'memory_exhausted', runner.catastrophic.runId ?? undefined);
    else this.replace(runner, 'error');
  }

  private finish(active: ActiveRun, outcome: RunOutcome): void {
    if (active.settled) return;
    active.settled = true;
    active.detach?.();
    for (const call of active.calls.values()) call.abort(new DOMException('the run has ended', 'AbortError'));
    active.calls.clear();
    for (const timer of active.timers) clearTimeout(timer);
    active.resolve(outcome);
  }

  private ended(job: RunJob, kind: RunOutcome['outcome'], wallMs: number, message?: string): RunOutcome {
    const error: RunError | null = kind === 'ok' ? null : { kind: kind === 'error' ? 'runtime_error' : kind, message: message ?? limitMessage(kind, job.limits) };
    return { outcome: kind, result: null, console: [], error, wasmFuel: kind === 'fuel_exhausted' ? job.limits.fuel : 0, hostFuel: 0, memoryPeak: kind === 'memory_exhausted' ? job.limits.memoryMb * 1048576 : 0, wallMs };
  }

  /** The runner's report, checked field by field; whatever it holds, this never throws. */
  private toOutcome(job: RunJob, raw: unknown): RunOutcome {
    const checked = readOutcome(raw, job.limits);
    if (!checked) {
      this.options.onLog?.('error', 'a runner reported a run in a shape the server does not accept; the run ends as an error', { execution_id: job.executionId });
      return this.ended(job, 'error', 0);
    }
    return outcomeOf(job, checked);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The headline with the runner's rendered trace (frames and excerpt) under it. */
function withTrace(headline: string, trace: string | undefined): string {
  return trace ? `${headline}\n${trace}` : headline;
}

function outcomeOf(job: RunJob, raw: CheckedOutcome): RunOutcome {
  const base = { console: raw.console, wasmFuel: raw.wasmFuel, hostFuel: raw.hostFuel, memoryPeak: raw.memoryPeak, wallMs: raw.wallMs };
  if (raw.kind === 'ok') return { ...base, outcome: 'ok', result: raw.result, error: null };
  if (raw.kind === 'error' || raw.kind === 'crashed') {
    const failure = raw.failure ?? { name: 'Error', message: 'the run failed inside the sandbox' };
    const headline = failure.headline ?? (failure.message === '' ? failure.name : `${failure.name}: ${failure.message}`);
    const message = withTrace(headline, failure.trace);
    if (failure.denied) {
      return { ...base, outcome: 'error', result: null, error: { kind: 'permission_denied', message, caller: failure.denied.caller, capability: failure.denied.capability, source: failure.denied.source } };
    }
    return { ...base, outcome: 'error', result: null, error: { kind: 'runtime_error', message } };
  }
  const headline = limitMessage(raw.kind, job.limits);
  // A fuel end names where the run stopped, with the excerpt.
  const message = raw.kind === 'fuel_exhausted' ? withTrace(headline, raw.limitTrace) : headline;
  return { ...base, outcome: raw.kind, result: null, error: { kind: raw.kind, message } };
}
