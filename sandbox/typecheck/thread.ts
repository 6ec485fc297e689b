// A pool of checker threads: long-lived workers that each check one program at a time. The
// waiting checks are taken one tenant (the token that sent the program) at a time, in turn,
// and a tenant has at most all workers but one running: a token that sends many programs,
// or slow ones, never holds every worker, so another token's next program always finds one
// (at once, or after an ordinary check); alone, a token's programs are checked in parallel.
// Each check gets a budget from when the worker begins it (a new worker's loading of
// TypeScript is not counted); past it the worker is ended (a new one starts) and the
// program runs unchecked. Workers start as checks need them (or when the server warms the
// first), not at boot: a short-lived server never loads TypeScript.
import { Worker } from 'node:worker_threads';
import type { CheckerThreadData, CheckRequest, CheckResult } from './types';

/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
export const CHECK_LIMIT_MS = 10_000;

/** Why a check has no answer: it passed its budget, or its worker failed. */
export type CheckFailure = 'budget' | 'failed';
export type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; failure: CheckFailure; message: string });
/** Something the operator should know that is no check's answer (the code cache could not be written). */
type WorkerNotice = { notice: string };
/** The worker has begun the check (a new worker loads TypeScript first). */
type WorkerStarted = { started: number };

/** How long a new worker may take to load TypeScript and the libraries before its first check begins. */
const WORKER_START_LIMIT_MS = 120_000;

export interface CheckerThreadOptions extends CheckerThreadData {
  onNotice?: (message: string) => void;
  /** Workers at most (default 1); with more than one, a tenant has at most all but one running. */
  workers?: number;
  /** A check's budget in ms (default CHECK_LIMIT_MS). */
  budgetMs?: number;
}

interface Job {
  id: number;
  request: CheckRequest;
  tenant: string;
  resolve: (reply: WorkerReply) => void;
}

interface Slot {
  worker: Worker;
  running: { job: Job; timer: NodeJS.Timeout } | null;
}

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

  /** Loads TypeScript and the library declarations in the first worker, unless one started already. */
  warm(): void {
    if (this.slots.length > 0) return;
    this.startSlot().worker.postMessage({ warm: true });
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
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
      const job = jobs.shift()!;
      // The tenant's other checks go to the back of the line, behind every tenant waiting now.
      this.waiting.delete(tenant);
      if (jobs.length > 0) this.waiting.set(tenant, jobs);
      this.runningByTenant.set(tenant, (this.runningByTenant.get(tenant) ?? 0) + 1);
      slot.running = { job, timer: this.budgetTimer(slot, job, WORKER_START_LIMIT_MS) };
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, ...job.request });
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

  /** Answers the slot's running check (if the reply is its) and starts the next. */
  private finish(slot: Slot, reply: WorkerReply): void {
    const running = slot.running;
    if (!running || running.job.id !== reply.id) return;
    slot.running = null;
    clearTimeout(running.timer);
    const tenant = running.job.tenant;
    const count = (this.runningByTenant.get(tenant) ?? 1) - 1;
    if (count > 0) this.runningByTenant.set(tenant, count);
    else this.runningByTenant.delete(tenant);
    running.job.resolve(reply);
    this.dispatch();
  }

  private removeSlot(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
  }

  private startSlot(): Slot {
    const workerData: CheckerThreadData = { codeCacheDirectory: this.options.codeCacheDirectory };
    const worker = new Worker(this.file, { workerData, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    const slot: Slot = { worker, running: null };
    this.slots.push(slot);
    worker.on('message', (reply: WorkerReply | WorkerNotice | WorkerStarted) => {
      if ('notice' in reply) this.options.onNotice?.(reply.notice);
      else if ('started' in reply) {
        // The check itself has begun: its budget starts now.
        if (slot.running?.job.id !== reply.started) return;
        clearTimeout(slot.running.timer);
        slot.running.timer = this.budgetTimer(slot, slot.running.job, this.budgetMs);
      } else this.finish(slot, reply);
    });
    const failed = (message: string) => {
      this.removeSlot(slot);
      // Only the running check fails with its worker; the waiting ones go to the next worker.
      if (slot.running) this.finish(slot, { id: slot.running.job.id, ok: false, failure: 'failed', message });
    };
    worker.on('error', (error) => failed(error.message));
    worker.on('exit', () => failed('the type checker stopped'));
    worker.unref();
    return slot;
  }
}
