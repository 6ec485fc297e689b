// The server side of the sandbox: a pool of runner child processes, each hosting many runs
// at once (a waiting run holds memory, not a process). Admission bounds the runs in flight
// and queues the rest fairly; the pool answers the runners' host calls through the
// execution layer's HostHandler, owns the watchdogs (heartbeats, deadline margin,
// cancellation) and replaces any runner that crashes or hangs, never one that only seemed
// silent because this process was busy (stall.ts). Of the runs a lost runner hosted, only
// the one that broke it ends with its limit; the others run again on another runner when
// they had not called the host yet, and otherwise end as lost (outcomes.ts). The breaker's
// tenant is quarantined (quarantine.ts): its next runs get a runner of their own.
// Runs that only wait for people are parked with no isolate (parking.ts) and resume from
// their journal (resume.ts); which runner takes a run is placement.ts's.
import type { FromRunner, ToRunner } from '../runner/protocol';
import { readArgsPiece, readHostCall, readOutcome } from './report';
import { ArgsPieces } from './args-pieces';
import type { HostHandler, RunJob, RunOutcome } from './types';
import { Admission, OVER_COMMIT_FACTOR, type AdmissionLimits, type TenantRuns } from './admission';
import { newActiveRun, type ActiveRun, type Runner } from './runs';
import { defaultEntry, runMessage, spawnRunner, whenReady } from './runner-process';
import { answerHostCall, describe, type LargeArgsDecoder } from './host-calls';
import { endedOutcome, limitMessage, lostOutcome, reportedOutcome } from './outcomes';
import { Quarantine } from './quarantine';
import { LoopWatch } from './stall';
import { CpuGate } from './cpu-gate';
import { abortSoon, PROGRAM_ABORTED, RUN_ENDED } from './call-aborts';
import { defaultComputingRuns } from './cpu-slots';
import { clockStopped, countedMs, whileWaiting } from './clock';
import type { RunnerConfinement } from '../confine';
import { journalIntake, readyToResume, takeJournal } from './resume';
import { Parking } from './parking';
import { Placement } from './placement';
import { memoryBoundFields, pastMemoryBound, reportedRss } from './memory-bound';

const HEARTBEAT_TIMEOUT_MS = 3_000;
/**
 * A runner whose main thread runs no guest code (no synchronous slice under way) is slow,
 * not stuck, when it is silent: starved of CPU on a loaded machine, or passing large results
 * on (measured: 30 runs returning 15 MB at once kept a runner's main thread from its
 * heartbeat for over 3 s on a 2-core machine at load 20). It is replaced only after this
 * many heartbeat timeouts of silence.
 */
const SILENT_RUNNER_FACTOR = 10;
/** Times a backstop waits again for a runner that still answers (its own timer ends the run) before replacing it anyway. */
const BACKSTOP_REARMS = 5;
const DEADLINE_MARGIN_MS = 2_000;
const CANCEL_GRACE_MS = 1_000;
const WATCHDOG_TICK_MS = 500;
/** Placements a run gets: a run lost with its runner before it called the host runs once more. */
const MAX_ATTEMPTS = 2;

export interface RunnerPoolOptions {
  /** Runner child processes. */
  size: number;
  memoryMb: number;
  /** Runs one runner hosts at once (1: each run in its own process); a runner crash ends at most this many. */
  runsPerRunner?: number;
  /** Server-wide ceilings on runs in flight and queued (defaults: no ceiling beyond the runners, a queue of 1024). */
  admission?: Partial<AdmissionLimits>;
  /** Runs computing at once, server-wide, shared fairly across tenants (default: one per core, at least 2). */
  computingRuns?: number;
  /** Runner entry (defaults to dist/runner.js next to the server bundle, or the TS source). */
  runnerEntry?: string;
  execArgv?: string[];
  /**
   * Silence after which a runner inside a synchronous slice counts as stuck and is replaced
   * (default 3 s); a runner without one gets SILENT_RUNNER_FACTOR times as long. Tests whose
   * stand-in runner blocks its own loop on purpose raise it.
   */
  heartbeatTimeoutMs?: number;
  onLog?: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** A run was refused admission by `quota` (a setting's name). */
  onRefused?: (tenant: string, quota: string) => void;
  /** A runner was killed and replaced; `reason` is the outcome that ended its run. */
  onRestart?: (reason: string) => void;
  /** How runners are started (sandbox/confine's probe); default: the allow-listed environment alone. */
  confinement?: RunnerConfinement;
  /** Decodes large host-call arguments off the event loop (default: on it, as small ones). */
  decodeLargeArgs?: LargeArgsDecoder;
  /** Runs parked at once while they wait for people (`max_runs_parked`; default: no ceiling; parking.ts). */
  parkedRuns?: number;
  /** How long a tenant whose run broke a runner has its runs kept apart (default 5 minutes). */
  quarantineMs?: number;
  /**
   * Resident MB past which a runner, when one of its runs ends, takes no new runs and is
   * replaced once the runs it hosts end (`runner_memory_recycle`; 0 or absent: never).
   */
  memoryRecycleMb?: number;
  /** The nice value runners run at, threads and session (`runner_nice`; 0 or absent: the server's own). */
  runnerNice?: number;
  /** Isolates each runner keeps prepared once it has run (`runner_shelf_floor`; absent or null: the runner's own default). */
  shelfFloor?: number | null;
}

const DEFAULT_QUEUED_RUNS = 1024;

export class RunnerPool {
  private readonly runners: Runner[] = [];
  private readonly admission: Admission<ActiveRun>;
  /** Which admitted runs compute now: CPU slots shared across tenants (cpu-gate.ts). */
  private readonly cpu: CpuGate<ActiveRun>;
  private readonly runsPerRunner: number;
  private nextRunId = 1;
  private readonly placement = new Placement();
  private stopped = false;
  private watchdog: NodeJS.Timeout | null = null;
  private readonly loop = new LoopWatch(WATCHDOG_TICK_MS);
  private readonly quarantine: Quarantine;
  /** Admitted runs no runner of their kind had room for yet (a quarantined tenant's, runs lost with their runner). */
  private readonly unplaced: ActiveRun[] = [];
  /** Shared by every host call (not made per call: a fan-out keeps thousands waiting). */
  private readonly deliverReply = (active: ActiveRun, reply: Extract<ToRunner, { type: 'host-reply' }>, blocking: boolean): void => this.cpu.reply(active, reply, blocking);
  private readonly waitingWork = <T,>(active: ActiveRun, work: Promise<T>): Promise<T> => {
    const waited = whileWaiting(active, work, () => {
      if (active.runner && active.job.limits.timeMs > 0) this.armDeadline(active, active.runner);
    });
    if (!this.stopped) this.offerParking(active);
    return waited;
  };
  private readonly answerFailed = (error: unknown): void => this.options.onLog?.('error', 'answering a host call failed', { error: describe(error) });
  /** Runs whose isolate ended while they only waited for people: no runner holds them until an answer comes (parking.ts). */
  private readonly parking: Parking;
  private readonly entry: string;
  private readonly execArgv: string[];

  /** Runs waiting for admission (for the metrics). */
  get queueDepth(): number {
    return this.admission.queueDepth;
  }

  /** Runs in flight and queued per token (for the metrics). */
  runsByTenant(): Map<string, TenantRuns> {
    return this.admission.byTenant();
  }

  /** Runs waiting for a person with no isolate (for the metrics: svc_runs_parked). */
  get parkedRuns(): number {
    return this.parking.size;
  }

  /** Parked runs per token (for the metrics: max_runs_parked's use). */
  parkedByTenant(): Map<string, number> {
    return this.parking.byTenant();
  }

  /** Runs holding a CPU slot, and runs waiting for one (for the metrics). */
  get cpuSlots(): { computing: number; waiting: number } {
    return { computing: this.cpu.computingRuns, waiting: this.cpu.waitingRuns };
  }

  constructor(private readonly options: RunnerPoolOptions) {
    const fallback = defaultEntry();
    this.entry = options.runnerEntry ?? fallback.entry;
    this.execArgv = options.execArgv ?? fallback.execArgv;
    this.runsPerRunner = Math.max(1, options.runsPerRunner ?? 1);
    this.quarantine = new Quarantine(options.quarantineMs);
    this.parking = new Parking(options.parkedRuns ?? Number.MAX_SAFE_INTEGER);
    this.admission = new Admission({
      runsInFlight: options.admission?.runsInFlight ?? options.size * this.runsPerRunner,
      memoryMb: options.admission?.memoryMb ?? Number.MAX_SAFE_INTEGER,
      queued: options.admission?.queued ?? DEFAULT_QUEUED_RUNS,
      ...(options.admission?.runsPerToken === undefined ? {} : { runsPerToken: options.admission.runsPerToken }),
      ...(options.admission?.queuedPerToken === undefined ? {} : { queuedPerToken: options.admission.queuedPerToken }),
    });
    this.cpu = new CpuGate<ActiveRun>(options.computingRuns ?? defaultComputingRuns(), (active, message) => {
      // A runner being replaced (not ready) ends its runs: a grant to one of them goes nowhere.
      if (!active.settled && active.runner?.ready && active.runner.child.connected) active.runner.child.send(message);
    });
  }

  async start(): Promise<void> {
    const starting = Array.from({ length: this.options.size }, () => this.spawn());
    await Promise.all(starting.map((runner) => whenReady(runner)));
    this.loop.restart();
    this.watchdog = setInterval(() => this.checkHeartbeats(), WATCHDOG_TICK_MS);
    this.watchdog.unref();
  }

  run(job: RunJob, host: HostHandler): Promise<RunOutcome> {
    if (this.stopped) return Promise.resolve(endedOutcome(job, 'cancelled', 0));
    return new Promise((resolve) => {
      const active = newActiveRun(this.nextRunId++, job, host, resolve, journalIntake(job));
      const signal = job.signal;
      if (signal?.aborted) {
        resolve(endedOutcome(job, 'cancelled', 0));
        return;
      }
      const refusal = this.admission.offer(active);
      if (refusal) {
        this.options.onRefused?.(active.tenant, refusal.quota);
        resolve(endedOutcome(job, 'error', 0, refusal.refused));
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
    for (const queued of this.admission.drain()) this.finish(queued, endedOutcome(queued.job, 'cancelled', Date.now() - queued.started));
    for (const waiting of this.unplaced.splice(0)) this.finish(waiting, endedOutcome(waiting.job, 'cancelled', Date.now() - waiting.started));
    for (const parked of this.parking.drain()) this.finish(parked, endedOutcome(parked.job, 'cancelled', Date.now() - parked.started));
    for (const runner of this.runners) {
      for (const active of runner.runs.values()) this.finish(active, endedOutcome(active.job, 'cancelled', Date.now() - active.started));
      runner.runs.clear();
      runner.child.kill('SIGKILL');
    }
    this.runners.length = 0;
  }

  private spawn(quarantine = false): Runner {
    const capacity = { memoryMb: this.options.memoryMb, runsAtOnce: this.runsPerRunner, shelfFloor: this.options.shelfFloor ?? null };
    const runner = spawnRunner(this.entry, this.execArgv, capacity, {
      message: (from, message) => this.onMessage(from, message),
      exit: (from, code, signal) => this.onExit(from, code, signal),
      error: (error) => this.options.onLog?.('error', 'runner process error', { error: error.message }),
    }, this.options.confinement, { nice: this.options.runnerNice ?? 0, log: (msg, fields) => this.options.onLog?.('warn', msg, fields) });
    if (quarantine) runner.quarantine = true;
    this.runners.push(runner);
    return runner;
  }

  /** Where this run may go now: a quarantined tenant's run only to the quarantine runner (started when there is none). */
  private placeFor(active: ActiveRun, beyond = false): Runner | null {
    const quarantined = this.quarantine.holds(active.tenant);
    // A run admitted past the server-wide ceiling (a token below its fair share) may go past
    // the runners' share of it too, unless each run has a process of its own.
    const capacity = beyond && this.runsPerRunner > 1 ? this.runsPerRunner * OVER_COMMIT_FACTOR : this.runsPerRunner;
    const runner = this.placement.roomiest(this.runners, quarantined, capacity);
    if (!runner && quarantined && !this.stopped && !this.runners.some((r) => r.quarantine && !r.draining)) this.startReplacement(true);
    return runner;
  }

  private dispatch(): void {
    for (let index = 0; index < this.unplaced.length; ) {
      const waiting = this.unplaced[index];
      const runner = this.placeFor(waiting);
      if (!runner) {
        index++;
        continue;
      }
      this.unplaced.splice(index, 1);
      this.assign(runner, waiting);
    }
    while (this.admission.queueDepth > 0) {
      let runner = null as Runner | null;
      const active = this.admission.next((beyond, candidate) => (runner = this.placeFor(candidate, beyond)) !== null);
      if (!active || !runner) return;
      active.admitted = true;
      this.assign(runner, active);
    }
  }

  private assign(runner: Runner, active: ActiveRun): void {
    runner.runs.set(active.runId, active);
    active.runner = runner;
    active.attempts++;
    active.placement++;
    const { job } = active;
    runner.child.send({ ...runMessage(runner, active), ...(this.cpu.start(active) ? {} : { waitForCpu: true }) } satisfies ToRunner);
    // Resumed while a call it made waits for a person: its time limit stays stopped.
    if (clockStopped(active)) runner.child.send({ type: 'clock', runId: active.runId, paused: true } satisfies ToRunner);
    // The runner enforces the limit; this catches a runner that cannot.
    if (job.limits.timeMs > 0) this.armDeadline(active, runner);
  }

  /**
   * The time-limit backstop, counting only the time the run's clock ran: while a call waits
   * for a person it does nothing (the clock's resumption arms it again), and one that fires
   * early after such a wait waits out the rest.
   */
  private armDeadline(active: ActiveRun, runner: Runner): void {
    const allowed = active.job.limits.timeMs + DEADLINE_MARGIN_MS;
    this.backstop(active, runner, Math.max(0, allowed - countedMs(active, Date.now())), () => {
      if (clockStopped(active) || active.runner !== runner) return;
      if (countedMs(active, Date.now()) < allowed) this.armDeadline(active, runner);
      else this.replace(runner, 'timeout', active.runId);
    });
  }

  /**
   * A timer that replaces a runner which did not end a run itself: when it fires late, or
   * just after a stall, this process was busy (the runner's answer may be waiting unread),
   * and while the runner still sends heartbeats its own timer ends the run (a stuck isolate
   * retires the runner, run.ts), so it is armed once more instead (a few times at most).
   */
  private backstop(active: ActiveRun, runner: Runner, delayMs: number, replace: () => void, rearms = BACKSTOP_REARMS): void {
    const due = Date.now() + delayMs;
    active.timers.push(
      setTimeout(() => {
        if (active.settled) return;
        if (this.loop.late(due)) this.backstop(active, runner, delayMs, replace, rearms);
        else if (rearms > 0 && Date.now() - runner.lastHeard < this.heartbeatTimeoutMs) this.backstop(active, runner, Math.min(delayMs, DEADLINE_MARGIN_MS), replace, rearms - 1);
        else replace();
      }, delayMs),
    );
  }

  private get heartbeatTimeoutMs(): number {
    return this.options.heartbeatTimeoutMs ?? HEARTBEAT_TIMEOUT_MS;
  }

  /** The run's caller gave up: a queued or parked run leaves the queue or the parking, a running one is cancelled in its runner. */
  private abort(active: ActiveRun): void {
    if (active.settled) return;
    if (this.parking.withdraw(active)) {
      this.finish(active, endedOutcome(active.job, 'cancelled', Date.now() - active.started));
      return;
    }
    if (!active.admitted) {
      if (this.admission.withdraw(active)) this.finish(active, endedOutcome(active.job, 'cancelled', Date.now() - active.started));
      return;
    }
    const runner = active.runner;
    if (!runner) {
      // Admitted but waiting for a runner of its kind (or to run again): it leaves that wait.
      const index = this.unplaced.indexOf(active);
      if (index === -1) return;
      this.unplaced.splice(index, 1);
      this.admission.ended(active);
      this.finish(active, endedOutcome(active.job, 'cancelled', Date.now() - active.started));
      return;
    }
    active.cancelling = true;
    runner.child.send({ type: 'cancel', runId: active.runId } satisfies ToRunner);
    this.backstop(active, runner, CANCEL_GRACE_MS, () => this.replace(runner, 'cancelled', active.runId));
  }

  /** Whatever a runner sends, the server keeps serving: a failure ends that run, logged. */
  private onMessage(runner: Runner, message: unknown): void {
    try {
      this.handleMessage(runner, message);
    } catch (error) {
      this.options.onLog?.('error', 'a runner message could not be handled; the runner is replaced (its runs run again or end as lost)', { error: describe(error) });
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
        runner.rss = reportedRss(message.rss, runner.rss);
        this.dispatch();
        return;
      case 'heartbeat':
        runner.slicing = null;
        runner.rss = reportedRss(message.rss, runner.rss);
        return;
      case 'slice':
        runner.slicing = typeof message.runId === 'number' ? message.runId : null;
        return;
      case 'catastrophic':
        runner.catastrophic = { message: typeof message.message === 'string' ? message.message : 'catastrophic error', runId: typeof message.runId === 'number' ? message.runId : null };
        // isolated-vm gave up on that run's isolate: the process is done for (its exit can
        // hang on the stuck isolate), so it is replaced now, that run blamed.
        this.options.onLog?.('warn', 'runner reported a catastrophic error; replacing it', { pid: runner.child.pid, catastrophic: runner.catastrophic.message });
        this.replace(runner, 'memory_exhausted', runner.catastrophic.runId ?? undefined);
        return;
      case 'host-cancel': {
        const active = typeof message.runId === 'number' ? runner.runs.get(message.runId) : undefined;
        const started = active?.calls.get(message.callId);
        if (started) abortSoon(started, PROGRAM_ABORTED);
        if (typeof message.callId === 'number') active?.journal?.forget(message.callId);
        return;
      }
      case 'cpu-free':
      case 'cpu-want': {
        const active = typeof message.runId === 'number' ? runner.runs.get(message.runId) : undefined;
        if (active) this.cpu[message.type === 'cpu-free' ? 'park' : 'want'](active);
        return;
      }
      case 'host-call-args': {
        const part = readArgsPiece(message);
        if (!part) throw new Error('a malformed piece of host-call arguments');
        if (!(runner.argsPieces ??= new ArgsPieces()).add(part.runId, part.callId, part.piece)) throw new Error('pieces of host-call arguments over their bound');
        return;
      }
      case 'host-call': {
        const call = readHostCall(message);
        if (!call) throw new Error('a malformed host call');
        // Its arguments arrived ahead in pieces (none: the call is answered with an error).
        if (call.argsBytes !== undefined) call.pieces = runner.argsPieces?.take(call) ?? undefined;
        // The isolate waits for this reply: its CPU slot goes to another run meanwhile.
        const caller = runner.runs.get(call.runId);
        // From here the call may have effects: a run lost with its runner is not run again.
        if (caller) caller.hostCalls++;
        // The journal up to this call: the answers it names were sent before it.
        if (caller) takeJournal(caller, call.journal);
        if (caller && call.blocking) this.cpu.park(caller, true);
        void answerHostCall(runner, call, this.deliverReply, this.waitingWork, this.options.decodeLargeArgs).catch(this.answerFailed);
        return;
      }
      case 'suspended': {
        const active = typeof message.runId === 'number' ? runner.runs.get(message.runId) : undefined;
        if (active) this.park(runner, active, message.journal);
        return;
      }
      case 'done': {
        const active = typeof message.runId === 'number' ? runner.runs.get(message.runId) : undefined;
        if (!active) return;
        this.release(runner, active);
        this.finish(active, this.toOutcome(active, message.outcome));
        if (message.retiring === true) {
          // Its isolate would not stop: the run's tenant broke the runner.
          this.quarantine.blame(active.tenant);
          this.drain(runner);
        }
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
    const boundMb = this.options.memoryRecycleMb ?? 0;
    if (pastMemoryBound(runner, boundMb)) {
      this.options.onLog?.('info', 'runner passed runner_memory_recycle: it takes no new runs and is replaced once the runs it hosts end', memoryBoundFields(runner, boundMb));
      this.drain(runner, 'memory');
    } else if (runner.draining && runner.runs.size === 0) this.replace(runner, 'error');
  }

  /**
   * A fresh runner takes this one's share now; it goes once its runs end, none of them lost:
   * it holds an isolate that cannot stop (`error`), or passed its memory bound (`memory`).
   */
  private drain(runner: Runner, reason: 'error' | 'memory' = 'error'): void {
    if (runner.draining) return;
    runner.draining = true;
    this.options.onRestart?.(reason);
    // The replacement starts here: replace() starts none for a draining runner (a
    // quarantine runner's is started when a quarantined run needs one).
    if (!this.stopped && !runner.quarantine) this.startReplacement();
    if (runner.runs.size === 0) this.replace(runner, 'error');
  }

  private checkHeartbeats(): void {
    const now = Date.now();
    if (this.loop.tick()) {
      // This process was stalled: runners' heartbeats may be waiting unread. Each gets a
      // fresh grace; none is judged by a silence this process caused.
      this.options.onLog?.('warn', 'the server was busy; runners get a fresh grace before their heartbeats are judged');
      for (const runner of this.runners) runner.lastHeard = Math.max(runner.lastHeard, now);
      return;
    }
    this.retireQuarantineRunner();
    for (const runner of [...this.runners]) {
      // Programs run on isolated-vm's threads; only a synchronous attempt (runners that
      // host one run at a time) runs on the runner's main thread, and it says so first
      // (`slice`): if the thread does not come back, that run's allocation could not be
      // interrupted (measured: Array(2e8).fill(0) under a 50 MB limit). Without a slice the
      // runner is slow rather than stuck, and gets longer; if it is replaced all the same,
      // no run can be blamed: every run it hosted is lost, not ended by a limit of its own.
      const allowed = runner.slicing !== null ? this.heartbeatTimeoutMs : this.heartbeatTimeoutMs * SILENT_RUNNER_FACTOR;
      if (runner.ready && now - runner.lastHeard > allowed) {
        const culprit = runner.slicing ?? runner.catastrophic?.runId ?? undefined;
        this.options.onLog?.('warn', 'runner stopped answering; replacing it', { pid: runner.child.pid, runs: runner.runs.size });
        this.replace(runner, culprit === undefined ? 'error' : 'memory_exhausted', culprit);
      }
    }
  }

  /** The quarantine runner goes once no tenant is quarantined and it hosts no run. */
  private retireQuarantineRunner(): void {
    if (!this.quarantine.empty) return;
    for (const runner of [...this.runners]) {
      if (!runner.quarantine || runner.runs.size > 0) continue;
      this.runners.splice(this.runners.indexOf(runner), 1);
      runner.child.removeAllListeners('exit');
      runner.child.kill('SIGKILL');
    }
  }

  /**
   * Kills a runner and starts a replacement. The run that caused it (`culprit`) ends with
   * `kind` and its tenant is quarantined. Each other run it hosted runs again on another
   * runner when it had not called the host yet (nothing of it can have had an effect) and
   * had not been lost before; otherwise it ends as lost (or as a timeout when it is past its
   * own deadline). Without a culprit, every run it hosted is such an other run.
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
    // A draining runner was counted when it began to drain.
    if (!runner.draining) this.options.onRestart?.(culprit === undefined ? 'error' : kind);
    const now = Date.now();
    for (const active of runs) {
      const late = active.job.limits.timeMs > 0 && !clockStopped(active) && countedMs(active, now) >= active.job.limits.timeMs;
      if (active.runId === culprit) {
        // A run its runner could not stop by a limit broke it; one it could not cancel may just have been unlucky.
        if (kind !== 'cancelled') this.quarantine.blame(active.tenant);
        this.admission.ended(active);
        this.finish(active, endedOutcome(active.job, kind, now - active.started));
      } else if (active.cancelling) {
        // Its caller had stopped it (a shutdown's deadline, a cancel): whatever then ended the
        // runner, the run ends as asked, not as lost to a crash.
        this.admission.ended(active);
        this.finish(active, endedOutcome(active.job, 'cancelled', now - active.started));
      } else if (late) {
        this.admission.ended(active);
        this.finish(active, endedOutcome(active.job, 'timeout', now - active.started));
      } else if (!this.stopped && active.attempts < MAX_ATTEMPTS && !active.job.signal?.aborted && (active.hostCalls === 0 || readyToResume(active, now))) {
        this.runAgain(active);
      } else {
        this.admission.ended(active);
        this.finish(active, lostOutcome(active.job, now - active.started, culprit !== undefined, active.hostCalls > 0));
      }
    }
    // A quarantine runner is started again when a quarantined run needs one (placeFor).
    if (!this.stopped && !runner.draining && !runner.quarantine) this.startReplacement();
    this.dispatch();
  }

  /**
   * A run lost with its runner through no fault of its own: it keeps its admission and goes
   * to the next runner with room, from the start (it had not called the host) or resumed
   * from its journal (resumable()).
   */
  private runAgain(active: ActiveRun): void {
    this.leaveRunner(active);
    this.unplaced.unshift(active);
    const resumed = active.job.journal?.live === true && active.hostCalls > 0;
    this.options.onLog?.('info', resumed ? 'a run lost with its runner after it called the host resumes on another runner from its journal' : 'a run lost with its runner before it called the host runs again on another runner', { execution_id: active.job.executionId });
  }

  private startReplacement(quarantine = false): void {
    const fresh = this.spawn(quarantine);
    whenReady(fresh).catch((error) => this.options.onLog?.('error', 'replacement runner failed to start', { error: (error as Error).message }));
  }

  private onExit(runner: Runner, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopped) return;
    this.options.onLog?.('warn', 'runner process exited; replacing it', { code, signal, catastrophic: runner.catastrophic?.message ?? undefined });
    // isolated-vm's catastrophic error follows an allocation the engine could not survive:
    // that run's memory; any other exit during a run crashed the sandbox (runtime_error).
    if (runner.catastrophic) this.replace(runner, 'memory_exhausted', runner.catastrophic.runId ?? undefined);
    else this.replace(runner, 'error');
  }

  /**
   * The run leaves its runner (lost with it, or parked): its CPU slot and timers end.
   * Its host calls in flight go on (a resumed run gets their answers); the next runner's
   * call ids start anew.
   */
  private leaveRunner(active: ActiveRun): void {
    this.cpu.end(active);
    for (const timer of active.timers) clearTimeout(timer);
    active.timers.length = 0;
    active.runner = null;
    active.calls.clear();
  }

  private finish(active: ActiveRun, outcome: RunOutcome): void {
    if (active.settled) return;
    active.settled = true;
    this.cpu.end(active);
    this.parking.ended(active);
    active.detach?.();
    for (const call of active.calls.values()) abortSoon(call, RUN_ENDED);
    active.calls.clear();
    for (const call of active.outstanding.values()) abortSoon(call.cancel, RUN_ENDED);
    active.outstanding.clear();
    for (const timer of active.timers) clearTimeout(timer);
    active.resolve(outcome);
  }

  /** The runner's report, checked field by field, with the run's journal; whatever it holds, this never throws. */
  private toOutcome(active: ActiveRun, raw: unknown): RunOutcome {
    const { job } = active;
    const checked = readOutcome(raw, job.limits);
    if (!checked) {
      this.options.onLog?.('error', 'a runner reported a run in a shape the server does not accept; the run ends as an error', { execution_id: job.executionId });
      return endedOutcome(job, 'error', 0);
    }
    const reported = reportedOutcome(job, checked);
    const outcome = active.cancelling && reported.outcome === 'error' ? { ...reported, outcome: 'cancelled' as const, error: { kind: 'cancelled' as const, message: limitMessage('cancelled', job.limits) } } : reported;
    if (active.journal) {
      takeJournal(active, (raw as { journal?: unknown }).journal);
      outcome.journal = active.journal.result();
    }
    return outcome;
  }

  /** The run only waits for people: it parks, unless max_runs_parked refuses it (counted and logged once per run). */
  private offerParking(active: ActiveRun): void {
    const refused = this.parking.offer(active);
    if (refused === null || active.parkRefused) return;
    active.parkRefused = true;
    this.options.onRefused?.(active.tenant, 'max_runs_parked');
    this.options.onLog?.('info', 'a run waiting for a person could not park', { execution_id: active.job.executionId, reason: refused });
  }

  /**
   * The runner ended the run's isolate while it only waited for people: the run holds no
   * runner and no run slot (parking.ts) until one of those calls is answered; then it queues
   * again, first of its token's, and resumes on a runner from its journal, the answered call
   * given its answer there.
   */
  private park(runner: Runner, active: ActiveRun, chunk: unknown): void {
    runner.runs.delete(active.runId);
    if (runner.draining && runner.runs.size === 0) this.replace(runner, 'error');
    takeJournal(active, chunk);
    const now = Date.now();
    if (this.stopped || !readyToResume(active, now)) {
      this.admission.ended(active);
      this.finish(active, lostOutcome(active.job, now - active.started, false, true));
      this.dispatch();
      return;
    }
    this.leaveRunner(active);
    this.admission.ended(active);
    active.admitted = false;
    this.parking.park(active, () => {
      this.admission.requeue(active);
      this.dispatch();
    });
    this.dispatch();
  }
}
