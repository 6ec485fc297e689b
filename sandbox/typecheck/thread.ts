// A pool of checker threads: long-lived workers that each check one program at a time. The
// waiting checks are taken one tenant (the token that sent the program) at a time, and a
// tenant has at most one check running: a token that sends many programs, or one whose
// check is slow, holds at most one worker, and another token's next program goes to the
// other. Each check gets a budget from when it starts; past it the worker is ended (a new
// one starts) and the program runs unchecked. Workers start with the first check (or when
// the server warms the first), not at boot: a short-lived server never loads TypeScript.
import { Worker } from 'node:worker_threads';
import type { CheckerThreadData, CheckRequest, CheckResult } from './types';

/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
export const CHECK_LIMIT_MS = 10_000;

/** Why a check has no answer: it passed its budget, or its worker failed. */
export type CheckFailure = 'budget' | 'failed';
export type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; failure: CheckFailure; message: string });
/** Something the operator should know that is no check's answer (the code cache could not be written). */
type WorkerNotice = { notice: string };

export interface CheckerThreadOptions extends CheckerThreadData {
  onNotice?: (message: string) => void;
  /** Workers at most (default 1). */
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
  /** Waiting checks per tenant with none running; a Map iterates in insertion order, so its first tenant is next. */
  private readonly waiting = new Map<string, Job[]>();
  /** Tenants with a check running, and their checks that wait until it ends (then queue behind everyone waiting). */
  private readonly busy = new Map<string, Job[]>();
  private nextId = 1;
  private readonly size: number;
  private readonly budgetMs: number;

  constructor(
    private readonly file: URL,
    private readonly options: CheckerThreadOptions = { codeCacheDirectory: null },
  ) {
    this.size = Math.max(1, options.workers ?? 1);
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

  /** Checks are answered tenants taking turns, one running check per tenant. */
  ask(request: CheckRequest, tenant = ''): Promise<WorkerReply> {
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, request, tenant, resolve };
      const later = this.busy.get(tenant) ?? this.waiting.get(tenant);
      if (later) later.push(job);
      else this.waiting.set(tenant, [job]);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.waiting.size > 0) {
      const slot = this.slots.find((s) => !s.running) ?? (this.slots.length < this.size ? this.startSlot() : null);
      if (!slot) return;
      const [tenant, jobs] = this.waiting.entries().next().value as [string, Job[]];
      const job = jobs.shift()!;
      this.waiting.delete(tenant);
      this.busy.set(tenant, jobs);
      const timer = setTimeout(() => {
        // The worker is stuck on this check: it goes, and the next check starts a new one.
        this.removeSlot(slot);
        void slot.worker.terminate();
        this.finish(slot, { id: job.id, ok: false, failure: 'budget', message: `its check did not finish within ${this.budgetMs / 1000} s` });
      }, this.budgetMs);
      slot.running = { job, timer };
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, ...job.request });
    }
    for (const slot of this.slots) if (!slot.running) slot.worker.unref();
  }

  /** Answers the slot's running check (if the reply is its) and starts the next. */
  private finish(slot: Slot, reply: WorkerReply): void {
    const running = slot.running;
    if (!running || running.job.id !== reply.id) return;
    slot.running = null;
    clearTimeout(running.timer);
    const tenant = running.job.tenant;
    const later = this.busy.get(tenant) ?? [];
    this.busy.delete(tenant);
    // The tenant's other checks go to the back of the line, behind every tenant that waited meanwhile.
    if (later.length > 0) this.waiting.set(tenant, later);
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
    worker.on('message', (reply: WorkerReply | WorkerNotice) => {
      if ('notice' in reply) this.options.onNotice?.(reply.notice);
      else this.finish(slot, reply);
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
