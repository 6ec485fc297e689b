// A pool of checker threads: long-lived workers that each take one batch at a time: a
// program, or a tenant's waiting programs of one declaration set and mode (BATCH_LIMIT),
// checked one after another in one Program. The waiting checks are taken one tenant (the
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
import type { CheckBatchMessage, CheckerThreadData, CheckRequest, CheckResult, HeapReport, WarmMessage } from './types';

/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
export const CHECK_LIMIT_MS = 10_000;

/** Why a check has no answer: it passed its budget, or its worker failed. */
export type CheckFailure = 'budget' | 'failed';
export type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; failure: CheckFailure; message: string });
/** Something the operator should know that is no check's answer (the code cache could not be written). */
type WorkerNotice = { notice: string };
/** The worker has begun the check (a new worker loads TypeScript first). */
type WorkerStarted = { started: number };
type WorkerWarmed = { warmed: number };
type WorkerHeap = { heap: HeapReport };

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
  /** MiB of V8 old generation each worker may use (default DEFAULT_THREAD_HEAP_MB). */
  heapMb?: number;
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
  /** Its heap as last reported (after a batch or warm-up). */
  heap: HeapReport | null;
}

/**
 * Programs one worker is given at once: a tenant's waiting checks of the same declaration
 * set and mode are checked in one Program (checker.ts), which makes the type checker and
 * the library types once for all of them; under load that is most of a check's cost.
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

  constructor(
    private readonly file: URL,
    private readonly options: CheckerThreadOptions = { codeCacheDirectory: null },
  ) {
    this.size = Math.max(1, options.workers ?? 1);
    this.perTenant = Math.max(1, this.size - 1);
    this.budgetMs = options.budgetMs ?? CHECK_LIMIT_MS;
  }

  /**
   * Loads TypeScript and the library declarations in the first worker, unless one started
   * already, and makes the warm checkers of `sets` in an idle worker (none idle: a check is
   * running, and the sets' first checks make their checkers).
   */
  warm(sets: WarmMessage['sets'] = []): void {
    if (this.slots.length > 0 && sets.length === 0) return;
    const slot = this.slots.length === 0 ? this.startSlot() : this.slots.find((s) => !s.running);
    if (!slot) return;
    const message: WarmMessage = { warm: true, sets };
    slot.worker.postMessage(message);
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
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
      const slot = this.slots.find((s) => !s.running) ?? (this.slots.length < this.size ? this.startSlot() : null);
      if (!slot) break;
      const [tenant, jobs] = next;
      const batch = takeBatch(jobs);
      // The tenant's other checks go to the back of the line, behind every tenant waiting now.
      this.waiting.delete(tenant);
      if (jobs.length > 0) this.waiting.set(tenant, jobs);
      this.runningByTenant.set(tenant, (this.runningByTenant.get(tenant) ?? 0) + 1);
      slot.running = { jobs: batch, timer: this.budgetTimer(slot, batch[0], WORKER_START_LIMIT_MS) };
      slot.worker.ref();
      const { mode, set } = batch[0].request;
      const message: CheckBatchMessage = { ids: batch.map((job) => job.id), sources: batch.map((job) => job.request.source), mode, set };
      slot.worker.postMessage(message);
    }
    for (const slot of this.slots) if (!slot.running) slot.worker.unref();
  }

  /** Ends the slot's worker when the check has not answered within `ms`: it goes, and the next check starts a new one. */
  private budgetTimer(slot: Slot, job: Job, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      this.removeSlot(slot);
      void slot.worker.terminate();
      this.finish(slot, { id: job.id, ok: false, failure: 'budget', message: `its check did not finish within ${this.budgetMs / 1000} s` });
    }, ms);
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
      running.timer = this.budgetTimer(slot, rest[0], this.budgetMs);
      return;
    }
    slot.running = null;
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
  }

  private startSlot(): Slot {
    const workerData: CheckerThreadData = { codeCacheDirectory: this.options.codeCacheDirectory };
    const worker = new Worker(this.file, { workerData, resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb ?? 1024 } });
    const slot: Slot = { worker, running: null, heap: null };
    this.slots.push(slot);
    worker.on('message', (reply: WorkerReply | WorkerNotice | WorkerStarted | WorkerWarmed | WorkerHeap) => {
      if ('heap' in reply) slot.heap = reply.heap;
      else if ('notice' in reply) this.options.onNotice?.(reply.notice);
      else if ('warmed' in reply) this.options.onWarmed?.(reply.warmed);
      else if ('started' in reply) {
        // The check itself has begun: its budget starts now.
        if (slot.running?.jobs[0].id !== reply.started) return;
        clearTimeout(slot.running.timer);
        slot.running.timer = this.budgetTimer(slot, slot.running.jobs[0], this.budgetMs);
      } else this.finish(slot, reply);
    });
    const failed = (message: string) => {
      this.removeSlot(slot);
      // Only the running check fails with its worker; the waiting ones go to the next worker.
      if (slot.running) this.finish(slot, { id: slot.running.jobs[0].id, ok: false, failure: 'failed', message });
    };
    worker.on('error', (error) => failed(error.message));
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
