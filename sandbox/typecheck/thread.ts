// A pool of checker threads: long-lived workers that each take one batch at a time: a
// program, or a tenant's waiting programs of one declaration set and mode (BATCH_LIMIT),
// checked one after another with one type checker (checker.ts). The waiting checks are taken one tenant (the
// token that sent the program) at a time, in turn, and a tenant has at most all workers but
// one running: a token that sends many programs, or slow ones, never holds every worker, so
// another token's next program always finds one (at once, or after an ordinary batch);
// alone, a token's programs are checked in parallel. Each check gets a budget from when the
// worker begins it (a new worker's loading of TypeScript is not counted); past it the worker
// is ended (a new one starts), the program runs unchecked and the rest of its batch waits
// at the front of its tenant's line. Workers start as checks need them (or when the server warms the
// first), not at boot: a short-lived server never loads TypeScript.
import { Worker } from 'node:worker_threads';
import { batchable } from './checker';
import type { CheckBatchMessage, CheckerThreadData, CheckRequest, CheckResult, HeapReport, SetToWarm, WarmMessage } from './types';
import { DeclarationSetMemory } from './set-memory';
import { processFlagLock } from '../v8-flags';

/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
export const CHECK_LIMIT_MS = 10_000;

/** Why a check has no answer: it passed its budget, or its worker failed. */
export type CheckFailure = 'budget' | 'failed';
export type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; failure: CheckFailure; message: string });
/** Something the operator should know that is no check's answer (the code cache could not be written). */
type WorkerNotice = { notice: string };
/** The worker has begun a batch it was asked to announce (CheckBatchMessage.announce). */
type WorkerStarted = { started: number };
type WorkerWarmed = { warmed: number };
/** After a warm-up (`warmedUp`), and after a batch when a full collection ran since the last report. */
type WorkerHeap = { heap: HeapReport; warmedUp?: true };
/** A check made its declaration set's warm checker (none was warmed ahead). */
type WorkerCold = { cold: true };
/** The code cache is written (or was not needed) after the thread's first check. */
type WorkerCacheSettled = { cacheSettled: true };

/** Default of `typecheck_thread_memory`: MiB of V8 heap one checker thread may use (a thread with one warm checker holds 50-80 MiB). */
export const DEFAULT_THREAD_HEAP_MB = 512;
/**
 * A thread whose heap after a full collection passes this share of its limit is replaced:
 * what it holds (warm checkers past their byte estimate, whatever TypeScript keeps) is
 * near the limit, where V8 collects without end and then fails the check.
 */
const REPLACE_AT_SHARE = 0.75;
/**
 * Batches a thread checks before it may be replaced: a limit set below what a warm thread
 * needs would otherwise replace every thread as soon as it warmed.
 */
const REPLACE_AFTER_BATCHES = 64;
/** A replacement warms the recent sets, most recent first, while their parsed declarations (about ten times the text) fit in this share of the limit. */
const WARM_SHARE = 0.25;

/** How long a new worker may take to load TypeScript and the libraries before its first check begins. */
const WORKER_START_LIMIT_MS = 120_000;

export interface CheckerThreadOptions extends CheckerThreadData {
  onNotice?: (message: string) => void;
  /** Hears how many warm checkers a warm-up made. */
  onWarmed?: (count: number) => void;
  /** Workers at most (default 1); with more than one, a tenant has at most all but one running. */
  workers?: number;
  /** A check's budget in ms (default CHECK_LIMIT_MS). */
  budgetMs?: number;
  /** How long a worker may take to begin a check, in ms (default WORKER_START_LIMIT_MS). */
  startLimitMs?: number;
  /** MiB of V8 old generation each worker may use (default DEFAULT_THREAD_HEAP_MB). */
  heapMb?: number;
  /** Heap in use after a full collection past which a worker is replaced (default REPLACE_AT_SHARE of heapMb). */
  replaceAtBytes?: number;
  /** Batches a worker checks before it may be replaced (default REPLACE_AFTER_BATCHES). */
  replaceAfterBatches?: number;
  /** Hears of each check that waited for a cold checker: a worker it started, or a declaration set's checker its check made. */
  onCold?: () => void;
}

interface Job {
  id: number;
  request: CheckRequest;
  tenant: string;
  resolve: (reply: WorkerReply) => void;
}

interface Slot {
  worker: Worker;
  /** The checks given to the worker, the one it is on first, and the timer of that one's budget. */
  running: { jobs: Job[]; timer: NodeJS.Timeout } | null;
  /** Its heap as last reported (after a warm-up or a full collection). */
  heap: HeapReport | null;
  /** It has loaded TypeScript (it answered something). */
  loaded: boolean;
  /** Warm-ups posted to it that have not reported their end: a batch sent now waits behind them. */
  warmsPending: number;
  /**
   * `serving` takes checks; `warming` is a replacement making its warm checkers (it takes
   * checks only when no serving worker can); `retiring` finishes its batch and ends.
   */
  state: 'serving' | 'warming' | 'retiring';
  /** The worker warming to take its place (its heap passed REPLACE_AT_SHARE of the limit). */
  replacement: Slot | null;
  /** Batches it was given. */
  batches: number;
  /** Its code cache may still be written after its first check: it stays referenced until then, so a process that ends right after a check (the CLI) does not cut the write off. */
  cachePending: boolean;
  /** The declaration sets the worker holds: a message names those by hash. */
  sets: DeclarationSetMemory;
}

/** Declaration sets and modes a thread's workers recently checked or warmed: what a replacement warms. */
const RECENT_SETS = 16;

/**
 * Programs one worker is given at once: a tenant's waiting checks of the same declaration
 * set and mode go in one message (one each way per batch, not per check) and are checked
 * one after another with the set's resident type checker (checker.ts, resident.ts).
 */
export const BATCH_LIMIT = 16;
/** Source characters in one batch at most (large programs take seconds each). */
const BATCH_CHARACTERS = 256 * 1024;

export class CheckerThread {
  private readonly slots: Slot[] = [];
  /** Waiting checks per tenant; a Map iterates in insertion order, so its first tenant is next (tenants go to the back when served). */
  private readonly waiting = new Map<string, Job[]>();
  /** Checks running per tenant. */
  private readonly runningByTenant = new Map<string, number>();
  private nextId = 1;
  private readonly size: number;
  /** Checks one tenant may have running at once. */
  private readonly perTenant: number;
  private readonly budgetMs: number;
  private readonly startLimitMs: number;
  private readonly heapMb: number;
  /** Recently checked or warmed sets (hash:mode), least recent first. */
  private readonly recentSets = new Map<string, SetToWarm>();
  /** Workers replaced because of their heap (a status for tests and metrics), and those of them ended since. */
  replaced = 0;
  retired = 0;

  constructor(
    private readonly file: URL,
    private readonly options: CheckerThreadOptions = { codeCacheDirectory: null },
  ) {
    this.size = Math.max(1, options.workers ?? 1);
    this.perTenant = Math.max(1, this.size - 1);
    this.budgetMs = options.budgetMs ?? CHECK_LIMIT_MS;
    this.startLimitMs = options.startLimitMs ?? WORKER_START_LIMIT_MS;
    this.heapMb = options.heapMb ?? DEFAULT_THREAD_HEAP_MB;
  }

  /**
   * Loads TypeScript and the library declarations in the first worker, unless one started
   * already, and makes the warm checkers of `sets` in an idle worker (none idle: a check is
   * running, and the sets' first checks make their checkers).
   */
  warm(sets: readonly SetToWarm[] = []): void {
    for (const set of sets) this.noteSet(set);
    if (this.slots.length > 0 && sets.length === 0) return;
    const slot = this.slots.length === 0 ? this.startSlot() : this.slots.find((s) => !s.running && s.state === 'serving');
    if (!slot) return;
    this.postWarm(slot, sets);
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    if (slots.length === 0) return;
    // A worker being terminated no longer holds its parent's event loop up, and one may take
    // a while to end (a preloaded exit hook writing a code cache: test processes): a process
    // awaiting this (a test) ran dry meanwhile and was ended with the close unanswered. This
    // handle holds it up until every worker has ended.
    const holding = setInterval(() => {}, 1 << 30);
    try {
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    } finally {
      clearInterval(holding);
    }
  }

  /** The workers' heaps as last reported. */
  get heaps(): HeapReport[] {
    return this.slots.flatMap((slot) => (slot.heap ? [slot.heap] : []));
  }

  /** Checks running now (a status for tests and metrics). */
  get running(): number {
    return this.slots.filter((slot) => slot.running).length;
  }

  /** Checks are answered tenants taking turns, each with at most `perTenant` running. */
  ask(request: CheckRequest, tenant = ''): Promise<WorkerReply> {
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, request, tenant, resolve };
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(job);
      else this.waiting.set(tenant, [job]);
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (;;) {
      let next: [string, Job[]] | undefined;
      for (const entry of this.waiting) {
        if ((this.runningByTenant.get(entry[0]) ?? 0) < this.perTenant) {
          next = entry;
          break;
        }
      }
      if (!next) break;
      const slot = this.idleSlot();
      if (!slot) break;
      const [tenant, jobs] = next;
      const batch = takeBatch(jobs);
      // The tenant's other checks go to the back of the line, behind every tenant waiting now.
      this.waiting.delete(tenant);
      if (jobs.length > 0) this.waiting.set(tenant, jobs);
      this.runningByTenant.set(tenant, (this.runningByTenant.get(tenant) ?? 0) + 1);
      // A loaded worker with no warm-up ahead begins the batch at once: its budget starts now,
      // and the worker need not say when it began (a message each way per check was a fifth
      // of a checker thread's CPU per hello world, with the heap report after every batch).
      const announce = !slot.loaded || slot.warmsPending > 0;
      slot.running = { jobs: batch, timer: this.budgetTimer(slot, batch[0], announce ? 'start' : 'check') };
      slot.batches++;
      slot.worker.ref();
      const { mode, set } = batch[0].request;
      this.noteSet({ set, mode });
      const message: CheckBatchMessage = { ids: batch.map((job) => job.id), sources: batch.map((job) => job.request.source), mode, set: slot.sets.send(set), announce };
      slot.worker.postMessage(message);
    }
    for (const slot of this.slots) if (!slot.running && !slot.cachePending) slot.worker.unref();
  }

  /**
   * An idle serving worker, else a new one (counted cold: the check waits for TypeScript
   * to load), else a replacement still warming (the check waits behind its warm-up).
   */
  private idleSlot(): Slot | null {
    const idle = this.slots.find((s) => !s.running && s.state === 'serving');
    if (idle) return idle;
    if (this.slots.filter((s) => s.state !== 'retiring').length < this.size) {
      this.options.onCold?.();
      return this.startSlot();
    }
    return this.slots.find((s) => !s.running && s.state === 'warming') ?? null;
  }

  private noteSet(entry: SetToWarm): void {
    const key = `${entry.set.hash}:${entry.mode}`;
    this.recentSets.delete(key);
    this.recentSets.set(key, entry);
    if (this.recentSets.size > RECENT_SETS) this.recentSets.delete(this.recentSets.keys().next().value!);
  }

  /**
   * After a worker reports its heap: past REPLACE_AT_SHARE of the limit a replacement starts
   * and makes the warm checkers of the recent sets; it takes over once it has (heardHeap of
   * the replacement), and the old worker ends after its batch. Checks meanwhile go on on the
   * old one, so none waits for a cold checker.
   */
  private heardHeap(slot: Slot, heap: HeapReport): void {
    slot.heap = heap;
    if (slot.state === 'warming') {
      slot.state = 'serving';
      for (const old of this.slots) {
        if (old.replacement !== slot) continue;
        old.state = 'retiring';
        old.replacement = null;
        if (!old.running) this.retire(old);
      }
      this.dispatch();
      return;
    }
    const replaceAt = this.options.replaceAtBytes ?? this.heapMb * 1024 * 1024 * REPLACE_AT_SHARE;
    if (slot.state !== 'serving' || slot.replacement || slot.batches < (this.options.replaceAfterBatches ?? REPLACE_AFTER_BATCHES) || heap.live <= replaceAt) return;
    const replacement = this.startSlot();
    replacement.state = 'warming';
    slot.replacement = replacement;
    this.replaced++;
    this.postWarm(replacement, this.setsToWarm());
  }

  private postWarm(slot: Slot, sets: readonly SetToWarm[]): void {
    slot.warmsPending++;
    const message: WarmMessage = { warm: true, sets: sets.map(({ set, mode }) => ({ set: slot.sets.send(set), mode })) };
    slot.worker.postMessage(message);
  }

  /** The recent sets a replacement warms: the most recent first, within WARM_SHARE of the limit. */
  private setsToWarm(): SetToWarm[] {
    let budget = this.heapMb * 1024 * 1024 * WARM_SHARE;
    const sets: SetToWarm[] = [];
    for (const entry of [...this.recentSets.values()].reverse()) {
      budget -= 10 * 2 * entry.set.modules.reduce((sum, text) => sum + text.length, 0);
      if (budget < 0 && sets.length > 0) break;
      sets.push(entry);
    }
    return sets;
  }

  private retire(slot: Slot): void {
    this.retired++;
    this.removeSlot(slot);
    void slot.worker.terminate();
  }

  /**
   * Ends the slot's worker when the check has not begun within its start limit (`start`)
   * or not answered within its budget (`check`): it goes, and the next check starts a new one.
   * A slow start (a loaded machine loading TypeScript) is no fault of the program: its next
   * run is checked again, where one past its budget is not (service.ts).
   */
  private budgetTimer(slot: Slot, job: Job, limit: 'start' | 'check'): NodeJS.Timeout {
    const reply: WorkerReply =
      limit === 'start'
        ? { id: job.id, ok: false, failure: 'failed', message: `the type checker did not begin its check within ${this.startLimitMs / 1000} s` }
        : { id: job.id, ok: false, failure: 'budget', message: `its check did not finish within ${this.budgetMs / 1000} s` };
    return setTimeout(() => {
      this.removeSlot(slot);
      void slot.worker.terminate();
      this.finish(slot, reply);
    }, limit === 'start' ? this.startLimitMs : this.budgetMs);
  }

  /**
   * Answers the slot's current check (if the reply is its). The worker goes on with the rest
   * of its batch; when it has none, or is gone (a budget passed, it failed), the slot takes
   * the next waiting check and the rest of a batch goes back to the front of its tenant's line.
   */
  private finish(slot: Slot, reply: WorkerReply): void {
    const running = slot.running;
    if (!running || running.jobs[0].id !== reply.id) return;
    clearTimeout(running.timer);
    const [job, ...rest] = running.jobs;
    job.resolve(reply);
    const alive = this.slots.includes(slot);
    if (alive && rest.length > 0) {
      running.jobs = rest;
      running.timer = this.budgetTimer(slot, rest[0], 'check');
      return;
    }
    slot.running = null;
    if (slot.state === 'retiring') this.retire(slot);
    const tenant = job.tenant;
    const count = (this.runningByTenant.get(tenant) ?? 1) - 1;
    if (count > 0) this.runningByTenant.set(tenant, count);
    else this.runningByTenant.delete(tenant);
    if (rest.length > 0) {
      const queue = this.waiting.get(tenant);
      if (queue) queue.unshift(...rest);
      else this.waiting.set(tenant, rest);
    }
    this.dispatch();
  }

  private removeSlot(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    // A replacement that is gone replaces nothing: the next heap report starts another.
    for (const other of this.slots) if (other.replacement === slot) other.replacement = null;
  }

  private startSlot(): Slot {
    // Every checker thread of the process (ordinary and large-program pools) turns V8 flags under one lock.
    const workerData: CheckerThreadData = { codeCacheDirectory: this.options.codeCacheDirectory, flagLock: this.options.flagLock ?? processFlagLock().buffer };
    const worker = new Worker(this.file, { workerData, resourceLimits: { maxOldGenerationSizeMb: this.heapMb } });
    const slot: Slot = { worker, running: null, heap: null, loaded: false, warmsPending: 0, state: 'serving', replacement: null, batches: 0, cachePending: this.options.codeCacheDirectory !== null, sets: new DeclarationSetMemory() };
    this.slots.push(slot);
    worker.on('message', (reply: WorkerReply | WorkerNotice | WorkerStarted | WorkerWarmed | WorkerHeap | WorkerCold | WorkerCacheSettled) => {
      // Whatever it says, it has loaded TypeScript first.
      slot.loaded = true;
      if ('heap' in reply) {
        if (reply.warmedUp) slot.warmsPending = Math.max(0, slot.warmsPending - 1);
        this.heardHeap(slot, reply.heap);
      }
      else if ('cacheSettled' in reply) {
        slot.cachePending = false;
        if (!slot.running) slot.worker.unref();
      }
      else if ('cold' in reply) this.options.onCold?.();
      else if ('notice' in reply) this.options.onNotice?.(reply.notice);
      else if ('warmed' in reply) this.options.onWarmed?.(reply.warmed);
      else if ('started' in reply) {
        // The check itself has begun: its budget starts now.
        if (slot.running?.jobs[0].id !== reply.started) return;
        clearTimeout(slot.running.timer);
        slot.running.timer = this.budgetTimer(slot, slot.running.jobs[0], 'check');
      } else this.finish(slot, reply);
    });
    const failed = (message: string, failure: CheckFailure = 'failed') => {
      this.removeSlot(slot);
      // Only the running check fails with its worker; the waiting ones go to the next worker.
      if (slot.running) this.finish(slot, { id: slot.running.jobs[0].id, ok: false, failure, message });
    };
    // A check that fills the thread's heap is past its budget as one past its time is: its
    // answer is kept, so sending the program again does not end another thread.
    worker.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? failed(`its check needed more than the type checker's ${this.heapMb} MiB heap (typecheck_thread_memory)`, 'budget')
        : failed(error.message),
    );
    worker.on('exit', () => failed('the type checker stopped'));
    worker.unref();
    return slot;
  }
}

/** Takes the first waiting check and those after it that may share its Program (same declaration set and mode). */
function takeBatch(jobs: Job[]): Job[] {
  const first = jobs.shift()!;
  const batch = [first];
  if (!batchable(first.request.source)) return batch;
  let characters = first.request.source.length;
  for (let index = 0; index < jobs.length && batch.length < BATCH_LIMIT; ) {
    const { source, mode, set } = jobs[index].request;
    if (mode === first.request.mode && set.hash === first.request.set.hash && batchable(source) && characters + source.length <= BATCH_CHARACTERS) {
      characters += source.length;
      batch.push(...jobs.splice(index, 1));
    } else index++;
  }
  return batch;
}
