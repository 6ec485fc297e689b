// One run: links the program into a prepared context, runs it (first synchronously when
// it seems to need no host), waits out its timers, enforces the time limit, and reports
// how it ended. Many runs are in flight at once in one runner, each on its own isolate.
import ivm from 'isolated-vm';
import { boundedCache, textBytes } from '../bounded-cache';
import { dropPendingRejections, temporalSource, type Engine } from './engines';
import { compileShared, compileSharedAsync, contentKey } from './script-cache';
import { endRun, GC_SLACK_BYTES, MAX_CONSOLE_LINES, notePeak, releaseContext, suspendIfIdle, withJournal, type Prepared, type RunnerLink, type Slot } from './context';
import type { Shelf } from './shelf';
import { RunDeadline } from './deadline';
import { type CpuLedger, type CpuMeter, cpuLimitOf } from './cpu-limit';
import type { CpuTurns } from './cpu';
import type { GuestFailure, RunMessage, RunnerOutcome } from './protocol';
import { mapsOf, reportOf, type RunMaps } from './render-stack';
import { JournalKeeper } from '../journal/keeper';
import { replyMessage } from './journal-replies';

/** What a run needs from the runner process. */
export interface RunHost extends RunnerLink {
  shelf: Shelf;
  /** Whether each run holds a CPU slot; it computes only while it does. */
  cpu: CpuTurns;
  /** What each run is charged of the runner's CPU time (its limit's meter). */
  cpuLedger: CpuLedger;
  /** The slot this run's host replies and cancellation reach (null: the run has ended). */
  attach(runId: number, slot: Slot | null): void;
  /** Runs this runner hosts now. */
  runsInFlight(): number;
  /**
   * The pool sends this runner one run at a time (`runs_per_runner: 1`): no other run shares
   * its main thread, so a program's first slice may run there. With more, guest code never
   * runs on the main thread (a slice V8 cannot interrupt would stop every run it hosts).
   */
  soleRun: boolean;
}

/**
 * The run's event loop: while main is pending, hand the guest each host reply as it
 * arrives and fire each timer when due, one per call into the isolate (microtasks drain
 * after each, on the isolate's thread, never this one). It ends when main has settled,
 * or when nothing is left that could settle it (no timer, no host call in flight). Waits
 * count against the time limit (except a host call's wait for a person while the run
 * computes nothing: RunDeadline); a limit or cancellation wakes it and ends the loop.
 * Returns the run's report when the loop's last call brought it (a small one), else null.
 */
async function runLoop(prepared: Prepared, cpu: CpuTurns): Promise<string | null> {
  const { slot, timers } = prepared;
  const { isolate } = slot;
  while (!isolate.isDisposed) {
    if (slot.journal.replaying) {
      if (!(await replayTurn(prepared, cpu))) return null;
      continue;
    }
    if (slot.deliveries.length > 0) {
      await holdCpu(cpu, slot);
      const delivery = slot.deliveries.shift();
      if (!delivery || isolate.isDisposed) continue;
      if (delivery.entry) slot.journal.record(delivery.entry.entry, delivery.entry.bytes);
      await surfacing(prepared, () => prepared.deliver.apply(undefined, [delivery.callId, delivery.reply]));
      continue;
    }
    // Runs no program code (microtasks drained when the last call returned).
    const due = retriedOnce(prepared, () => timers.nextTimer.applySync(undefined, [true], { result: { copy: true } }));
    if (typeof due === 'string') return due;
    if (typeof due !== 'number' || due === -2) return null;
    if (due < 0 && slot.asyncCalls === 0) return null;
    const wait = due < 0 ? Infinity : due - Date.now();
    if (wait > 0) {
      // Waiting computes nothing: the slot goes to another run meanwhile.
      parkCpu(cpu, slot);
      await new Promise<void>((resolve) => {
        const timer = wait === Infinity ? null : setTimeout(resolve, wait);
        slot.wake = () => {
          if (timer) clearTimeout(timer);
          resolve();
        };
        // The pool asked to suspend the run before it came to wait: it may now (no timer is due).
        if (wait === Infinity && slot.suspendWanted !== null) suspendIfIdle(slot, slot.suspendWanted);
      });
      slot.wake = null;
      continue;
    }
    await holdCpu(cpu, slot);
    if (isolate.isDisposed) return null;
    const now = Date.now();
    slot.journal.record({ kind: 'order', event: 'timer', now });
    await surfacing(prepared, () => timers.fireTimers.apply(undefined, [now]));
  }
  return null;
}

/** The run takes a CPU slot to compute: its time limit counts (even while a call waits for a person). */
async function holdCpu(cpu: CpuTurns, slot: Slot): Promise<void> {
  await cpu.hold(slot.runId, slot);
  slot.deadline?.computing(true);
}

/** The run waits for the host or a timer: its slot goes back, and a person's wait stops its time limit again. */
function parkCpu(cpu: CpuTurns, slot: Slot): void {
  slot.deadline?.computing(false);
  cpu.park(slot.runId);
}

/**
 * One turn of a replayed run's event loop: the journal says what came next (an answer, or
 * a timer at its recorded time). False when the loop ends: main has settled, nothing is
 * left to wait for, or the program wanted something the journal does not hold.
 */
async function replayTurn(prepared: Prepared, cpu: CpuTurns): Promise<boolean> {
  const { slot, timers } = prepared;
  const due = retriedOnce(prepared, () => timers.nextTimer.applySync(undefined, [], { result: { copy: true } }));
  if (typeof due !== 'number' || due === -2) return false;
  if (due < 0 && slot.asyncCalls === 0) return false;
  const turn = slot.journal.nextTurn();
  if (turn === null) {
    endRun(slot, 'error');
    return false;
  }
  await holdCpu(cpu, slot);
  if (slot.isolate.isDisposed) return false;
  if (turn.kind === 'order') {
    await surfacing(prepared, () => timers.fireTimers.apply(undefined, [turn.now]));
    return true;
  }
  const callId = slot.replayCalls.get(turn.call);
  const answer = callId === undefined ? undefined : slot.pendingCalls.get(callId);
  if (callId === undefined || answer === undefined) {
    slot.journal.diverge(slot.journal.position - 1, `the answer to host_call #${turn.call}`, 'no such call in flight');
    endRun(slot, 'error');
    return false;
  }
  slot.replayCalls.delete(turn.call);
  slot.pendingCalls.delete(callId);
  answer(replyMessage(slot.runId, callId, turn));
  const delivery = slot.deliveries.pop();
  if (delivery) await surfacing(prepared, () => prepared.deliver.apply(undefined, [delivery.callId, delivery.reply]));
  return true;
}

/**
 * isolated-vm throws a rejection the program left unhandled out of whichever call into the
 * isolate is running when it surfaces, not necessarily the call whose code rejected. Such a
 * throw is the program's business (its own outcome still counts), never the runner's
 * failure; only a disposed isolate or a limit that has struck is. A call into guest code
 * (a delivery, due timers) has done its work when the rejection surfaces at its end.
 */
async function surfacing(prepared: Prepared, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (prepared.slot.isolate.isDisposed || prepared.slot.limit) throw error;
  }
}

/** The same for an asynchronous call. */
async function retriedOnceAsync<T>(prepared: Prepared, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (prepared.slot.isolate.isDisposed || prepared.slot.limit) throw error;
    return call();
  }
}

/** A trusted call that runs no program code may still be where a rejection surfaces: it is made again, once. */
function retriedOnce<T>(prepared: Prepared, call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (prepared.slot.isolate.isDisposed || prepared.slot.limit) throw error;
    return call();
  }
}

/** This run's memory as a fresh isolate would report it: its context and growth over what it found, plus the isolate's floor. */
function runMemory(prepared: Prepared): number {
  return Math.max(prepared.engine.floor, prepared.slot.memoryPeak - prepared.base + prepared.engine.floor);
}

function classifyFailure(message: string): RunnerOutcome['kind'] | null {
  if (/memory limit/i.test(message)) return 'memory_exhausted';
  return null;
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
 * On a runner that hosts one run at a time (RunHost.soleRun), a program that imports nothing from the host is first run synchronously on this thread,
 * for at most this long: an asynchronous call moves the isolate to another thread, which
 * cost 0.2-0.5 ms per run (more than a hello-world run itself). If the program wants the host, runs longer, or
 * runs out of stack (this thread's stack is not the one an asynchronous run gets), the
 * attempt is discarded, and the run starts again asynchronously in a fresh context. Only
 * what stayed in the isolate happened: no host call, console line or fuel of the attempt
 * is kept.
 */
const SYNC_SLICE_MS = 3;

/**
 * Programs whose synchronous attempt was discarded lately, by content key (not by their code:
 * 64 programs of up to 2 MiB each were kept whole): they go straight to an asynchronous run.
 */
const restartedPrograms = boundedCache<true>({ maxEntries: 64, maxBytes: 64 * 1024, sizeOf: (_, key) => textBytes(key) });

function trySyncFirst(message: RunMessage, soleRun: boolean): boolean {
  if (!soleRun || restartedPrograms.has(message.programKey) || message.journal) return false;
  if (message.usesTemporal || (message.packages?.length ?? 0) > 0) return false;
  if (Object.keys(message.hostModules ?? {}).length > 0 || Object.keys(message.guestModules ?? {}).length > 0) return false;
  if (message.limits.timeMs > 0 && message.limits.timeMs <= SYNC_SLICE_MS) return false;
  // Names of the web platform's host-backed globals: such a program would restart.
  return !/\b(?:fetch|subtle)\b/.test(message.code);
}

/**
 * Reports over this many characters (a large result) are parsed and sent one at a time,
 * each in a turn of the event loop of its own: 30 runs returning 15 MB results at once
 * held this thread for 4.9 s in one stretch (their reports all arrived in one turn), so
 * the other runs' messages and the heartbeat waited behind them, and the server replaced
 * the runner. Measured: about 0.1 s per 15 MB report.
 */
const LARGE_REPORT_CHARS = 1024 * 1024;
let largeReports: Promise<void> = Promise.resolve();

/** Waits for this report's own turn; the returned function lets the next one go. */
function largeReportTurn(): Promise<() => void> {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const turn = largeReports.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  largeReports = turn.then(() => done);
  return turn.then(() => release);
}

/**
 * Code up to this size compiles on this thread (a hop to isolated-vm's thread costs more
 * than compiling it); larger code, up to a program's 2 MiB, compiles there, so the
 * runner's other runs are not held by one run's compile.
 */
const SYNC_COMPILE_CHARS = 64 * 1024;

function compiledScript(isolate: ivm.Isolate, code: string, filename: string, key: string): ivm.Script | Promise<ivm.Script> {
  return code.length <= SYNC_COMPILE_CHARS ? compileShared(isolate, code, filename, key) : compileSharedAsync(isolate, code, filename, key);
}

/**
 * Programs up to this size stay compiled on their isolate for its next run (one per isolate):
 * a compile of the same code, even from the code cache, cost ~35 us of this thread per run.
 * Larger ones are not kept: their code would stay in the isolate's heap between runs.
 */
const KEPT_PROGRAM_CHARS = 16 * 1024;

/** The program compiled on this isolate; the caller releases it with the context unless the isolate keeps it (`engine.lastProgram`). */
function programScript(engine: Engine, message: RunMessage): ivm.Script | Promise<ivm.Script> {
  const key = `${message.filename}\0${message.programKey}`;
  const kept = engine.lastProgram;
  if (kept !== null && kept.key === key) return kept.script;
  // Forgotten before the compile: a compile that throws must not leave a released script kept.
  kept?.script.release();
  engine.lastProgram = null;
  const script = compiledScript(engine.isolate, message.code, message.filename, message.programKey);
  engine.lastProgram = message.code.length <= KEPT_PROGRAM_CHARS && script instanceof ivm.Script ? { key, script } : null;
  return script;
}

/** One run from its message to its report; the runner keeps serving other runs meanwhile. */
export class Run {
  private readonly started = Date.now();
  /** The report has been sent (a stuck isolate reports early; the run's own end then stays silent). */
  private reported = false;
  /** The source maps its failure is rendered with, kept as the message arrived. */
  private readonly maps: RunMaps;
  /** Lets the next large report go, once this one is sent (see largeReportTurn). */
  private releaseReportTurn: (() => void) | null = null;

  constructor(
    private readonly message: RunMessage,
    private readonly host: RunHost,
  ) {
    this.maps = mapsOf(message);
  }

  async execute(): Promise<void> {
    const { message, host } = this;
    let prepared: Prepared;
    try {
      prepared = await host.shelf.take(message.limits.memoryMb);
    } catch (error) {
      this.failedToStart(error);
      return;
    }
    let attempt = await this.attempt(prepared, trySyncFirst(message, host.soleRun));
    if (attempt.restart) {
      restartedPrograms.set(message.programKey, true);
      const first = prepared;
      first.slot.live = false;
      try {
        prepared = this.again(first);
      } catch (error) {
        host.shelf.giveBack(first, false);
        this.failedToStart(error);
        return;
      }
      // A finalizer the attempt registered lives in the isolate: it still retires it.
      prepared.slot.leftState = first.slot.leftState;
      attempt = await this.attempt(prepared, false);
    }
    let ended: { kind: RunnerOutcome['kind']; crash: string | null };
    try {
      ended = this.report(prepared, attempt);
    } finally {
      this.releaseReportTurn?.();
    }
    const { kind, crash } = ended;
    host.attach(message.runId, null);
    host.shelf.giveBack(prepared, (kind === 'ok' || kind === 'error') && crash === null && !prepared.slot.leftState);
  }

  /** The context for the asynchronous run after a discarded synchronous attempt. */
  private again(first: Prepared): Prepared {
    const { shelf } = this.host;
    const memoryMb = this.message.limits.memoryMb;
    if (first.engine.isolate.isDisposed) return shelf.fresh(memoryMb);
    releaseContext(first);
    // The attempt was stopped before isolated-vm reported the rejections it left unhandled.
    dropPendingRejections(first.engine);
    const next = shelf.prepareOn(first.engine);
    if (next.base <= first.base + GC_SLACK_BYTES) return next;
    // The attempt's garbage still counts (array buffers are freed after the collection,
    // not by it): it would inflate this run's memory, so a fresh isolate takes the run.
    shelf.giveBack(next, false);
    return shelf.fresh(memoryMb);
  }

  private async attempt(prepared: Prepared, sync: boolean): Promise<Attempt> {
    const { message } = this;
    const { engine, context, slot } = prepared;
    const { isolate } = engine;
    engine.owner = message.runId;
    slot.runId = message.runId;
    slot.live = true;
    slot.memoryLimitBytes = this.message.limits.memoryMb * 1024 * 1024;
    const ceiling = message.limits.hostCallsInFlight;
    if (typeof ceiling === 'number' && Number.isInteger(ceiling) && ceiling > 0) slot.maxAsyncCalls = ceiling;
    slot.journal = new JournalKeeper(message.limits.journalBytes ?? 0, message.journal ?? null, () => {
      // The replay has caught up: the calls it started that the journal does not answer go to the host now.
      for (const call of slot.unsent.values()) this.host.send(withJournal(slot, call));
      slot.unsent.clear();
    });
    this.host.attach(message.runId, slot);
    const deadline = message.limits.timeMs > 0 ? new RunDeadline(message.limits.timeMs, this.started, () => endRun(slot, 'timeout')) : null;
    slot.deadline = deadline;
    const meter = this.host.cpuLedger.open(isolate, slot, cpuLimitOf(message.limits));
    const stuck = this.watch(slot, meter);

    let collected: Collected | null = null;
    let crash: string | null = null;
    try {
      // No code of the run runs before it holds a CPU slot (its time limit counts the wait).
      await this.host.cpu.hold(message.runId, slot);
      if (isolate.isDisposed) throw new Error('the run ended while it waited for a CPU slot');
      if (message.usesTemporal) {
        engine.temporal ??= await isolate.compileScript(temporalSource(), { filename: 'svc-temporal.js' });
        await engine.temporal.run(context);
      }
      const guestEntries = Object.entries(message.guestModules ?? {});
      if (guestEntries.length > 0) {
        // Guest-side module code is ours; the prelude takes (and deletes) it before the program runs.
        const table = guestEntries.map(([name, source]) => `${JSON.stringify(name)}: (${source})`).join(',\n');
        const modules = `globalThis.__svc_guest_modules = {\n${table}\n};`;
        compileShared(isolate, modules, 'svc-modules.js', contentKey(modules)).runSync(context);
      }
      // Compiling and linking run no program code (the script is one function expression),
      // so they happen synchronously; only the run itself needs the event loop (host calls).
      const script = await programScript(engine, message);
      const link = script.runSync(context, { reference: true }) as ivm.Reference<unknown>;
      prepared.handles.push(link);
      if (engine.lastProgram?.script !== script) prepared.handles.push(script);
      // Packages: each its own script under its own file name (its frames' owner), kept
      // compiled in the isolate by content key; linking runs none of their code.
      const packages = Array.isArray(message.packages) ? message.packages : [];
      const packageLinks: ivm.Reference<unknown>[] = [];
      for (const entry of packages) {
        let compiled = engine.packageScripts.get(entry.key);
        if (!compiled) {
          compiled = await compiledScript(isolate, entry.code, entry.filename, entry.key);
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
        // A native hang here stops the heartbeat: the pool then knows whose run hung the thread.
        this.host.send({ type: 'slice', runId: message.runId });
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
      const small = await runLoop(prepared, this.host.cpu);
      // Microtasks have drained and no timer can fire: main has settled, or it never will.
      if (!isolate.isDisposed) {
        notePeak(prepared);
        // A large report (a result of up to 16 MiB) is built and copied out on isolated-vm's
        // thread, not on this one, which every other run of the runner shares.
        const text = small ?? (await retriedOnceAsync(prepared, () => prepared.collect.apply(undefined, [], { result: { copy: true } }) as Promise<string>));
        if (text.length > LARGE_REPORT_CHARS) {
          // No code of the run runs again: its CPU slot goes to another run while it waits.
          this.host.cpu.park(message.runId);
          this.releaseReportTurn = await largeReportTurn();
        }
        collected = JSON.parse(text);
      }
    } catch (error) {
      crash = (error as Error).message ?? String(error);
    } finally {
      deadline?.stop();
      slot.deadline = null;
      clearInterval(stuck);
      meter.close();
    }
    const restart = sync && (slot.restart || slot.limit?.kind === 'stack_exhausted');
    return { collected, crash, restart };
  }

  /** Reports how the run ended; returns the kind (the isolate's reuse depends on it). */
  private report(prepared: Prepared, attempt: Attempt): { kind: RunnerOutcome['kind']; crash: string | null } {
    const { message } = this;
    const { slot } = prepared;
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
    const divergence = slot.journal.divergence;
    if (divergence) failure = { name: 'ReplayDivergence', message: divergence.message };
    else if (kind === 'error') {
      if (collected && !collected.ok) failure = { name: collected.name, message: collected.message, headline: collected.headline, stack: collected.stack, denied: collected.denied };
      else failure = { name: 'Error', message: `the run failed inside the sandbox: ${crash ?? 'unknown failure'}` };
    }
    slot.live = false;
    const journal = slot.journal.drain();
    if (slot.suspended) {
      // Nothing of the run is lost: its journal, with the calls still waiting, resumes it elsewhere.
      this.reported = true;
      this.host.send({ type: 'suspended', runId: message.runId, ...(journal ? { journal } : {}) });
      return { kind: 'cancelled', crash: null };
    }
    this.send({
      kind,
      result: kind === 'ok' && collected?.ok ? collected.result : null,
      failure,
      limitStack: slot.limit?.stack,
      ...(slot.limit?.cpu ? { cpuLimited: true } : {}),
      console: consoleLines,
      wasmFuel,
      hostFuel: slot.hostFuel,
      memoryPeak: kind === 'memory_exhausted' ? limitBytes : memoryPeak,
      wallMs: Date.now() - this.started,
      ...(journal ? { journal } : {}),
      ...(divergence ? { divergence } : {}),
    });
    return { kind, crash };
  }

  private send(outcome: RunnerOutcome, retiring = false): void {
    if (this.reported) return;
    this.reported = true;
    this.host.send({ type: 'done', runId: this.message.runId, outcome: reportOf(outcome, this.message, this.maps), ...(retiring ? { retiring: true } : {}) });
  }

  private failedToStart(error: unknown): void {
    this.host.attach(this.message.runId, null);
    this.send({ kind: 'error', result: null, failure: { name: 'Error', message: `the run failed inside the sandbox: ${(error as Error).message}` }, console: [], wasmFuel: 0, hostFuel: 0, memoryPeak: 0, wallMs: Date.now() - this.started });
  }

  /**
   * Watches the run from this thread while it runs elsewhere. Its CPU time: past its limit
   * the run ends, wherever that time went (./cpu-limit.ts). And an isolate that does not
   * stop: some allocations inside V8 builtins cannot be interrupted, so the isolate is
   * disposed (by a limit) but never stops, and its thread may never come back. Report the
   * run as ended and ask to be retired: the pool sends this runner no further run and
   * replaces it once the other runs it hosts have ended.
   */
  private watch(slot: Slot, meter: CpuMeter): NodeJS.Timeout {
    const { message } = this;
    let disposedAt: number | null = null;
    const interval = setInterval(() => {
      if (slot.live && slot.limit === null && meter.spent()) {
        slot.limit = { kind: meter.limit.kind, cpu: true };
        endRun(slot, meter.limit.kind);
      }
      if (!slot.isolate.isDisposed) return;
      disposedAt ??= Date.now();
      if (Date.now() - disposedAt < 500) return;
      const kind = slot.limit?.kind ?? 'memory_exhausted';
      this.host.attach(message.runId, null);
      this.send(
        {
          kind,
          result: null,
          failure: null,
          ...(slot.limit?.cpu ? { cpuLimited: true } : {}),
          console: slot.console,
          wasmFuel: kind === 'fuel_exhausted' ? Math.max(0, message.limits.fuel - slot.hostFuel) : 0,
          hostFuel: slot.hostFuel,
          memoryPeak: kind === 'memory_exhausted' ? message.limits.memoryMb * 1024 * 1024 : slot.memoryPeak,
          wallMs: Date.now() - this.started,
        },
        true,
      );
      clearInterval(interval);
      meter.close();
    }, 100);
    return interval;
  }
}
