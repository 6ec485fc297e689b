// One checker thread: a long-lived worker that checks one program at a time, taking the
// waiting checks of each tenant (the token that sent the program) in turn, so a token that
// sends many programs delays another token's next program by one check at most. Each check
// gets CHECK_LIMIT_MS from when it starts; past it the worker is ended and a new one starts.
// The worker starts with the first check or when the server warms it (service.ts), not
// at boot: a short-lived server that checks nothing never loads TypeScript.
import { Worker } from 'node:worker_threads';
import type { CheckerThreadData, CheckRequest, CheckResult } from './types';

/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
export const CHECK_LIMIT_MS = 30_000;

export type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; message: string });
/** Something the operator should know that is no check's answer (the code cache could not be written). */
type WorkerNotice = { notice: string };

export interface CheckerThreadOptions extends CheckerThreadData {
  onNotice?: (message: string) => void;
}

interface Job {
  id: number;
  request: CheckRequest;
  resolve: (reply: WorkerReply) => void;
}

export class CheckerThread {
  private worker: Worker | null = null;
  /** Waiting checks per tenant; a Map iterates in insertion order, so its first tenant is next. */
  private readonly waiting = new Map<string, Job[]>();
  /** The check being answered; its tenant's other checks wait aside until it ends, then queue behind everyone waiting. */
  private running: { job: Job; tenant: string; later: Job[]; worker: Worker; timer: NodeJS.Timeout } | null = null;
  private nextId = 1;

  constructor(
    private readonly file: URL,
    private readonly options: CheckerThreadOptions = { codeCacheDirectory: null },
  ) {}

  /** Loads TypeScript and the library declarations now, unless a check started the worker already. */
  warm(): void {
    if (this.worker) return;
    this.worker = this.startWorker();
    this.worker.postMessage({ warm: true });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  /** Checks are answered one at a time, tenants taking turns. */
  ask(request: CheckRequest, tenant = ''): Promise<WorkerReply> {
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, request, resolve };
      if (this.running?.tenant === tenant) {
        this.running.later.push(job);
        return;
      }
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(job);
      else this.waiting.set(tenant, [job]);
      this.dispatchNext();
    });
  }

  private dispatchNext(): void {
    if (this.running) return;
    const next = this.waiting.entries().next();
    if (next.done) {
      this.worker?.unref();
      return;
    }
    const [tenant, later] = next.value;
    const job = later.shift()!;
    this.waiting.delete(tenant);
    const worker = (this.worker ??= this.startWorker());
    const timer = setTimeout(() => {
      // The worker is stuck on this check: it goes first, so the next check starts a new one.
      if (this.worker === worker) this.worker = null;
      void worker.terminate();
      this.finish(worker, { id: job.id, ok: false, message: `it did not finish within ${CHECK_LIMIT_MS / 1000} s` });
    }, CHECK_LIMIT_MS);
    this.running = { job, tenant, later, worker, timer };
    worker.ref();
    worker.postMessage({ id: job.id, ...job.request });
  }

  /** Answers the running check (if it is this worker's) and starts the next. */
  private finish(worker: Worker, reply: WorkerReply): void {
    const running = this.running;
    if (!running || running.worker !== worker || running.job.id !== reply.id) return;
    this.running = null;
    clearTimeout(running.timer);
    // The tenant's other checks go to the back of the line, behind every tenant that waited meanwhile.
    if (running.later.length > 0) this.waiting.set(running.tenant, running.later);
    running.job.resolve(reply);
    this.dispatchNext();
  }

  private startWorker(): Worker {
    const workerData: CheckerThreadData = { codeCacheDirectory: this.options.codeCacheDirectory };
    const worker = new Worker(this.file, { workerData, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    worker.on('message', (reply: WorkerReply | WorkerNotice) => {
      if ('notice' in reply) this.options.onNotice?.(reply.notice);
      else this.finish(worker, reply);
    });
    const failed = (message: string) => {
      if (this.worker === worker) this.worker = null;
      // Only the running check fails with its worker; the waiting ones go to the next worker.
      if (this.running?.worker === worker) this.finish(worker, { id: this.running.job.id, ok: false, message });
    };
    worker.on('error', (error) => failed(error.message));
    worker.on('exit', () => failed('the type checker stopped'));
    worker.unref();
    return worker;
  }
}
