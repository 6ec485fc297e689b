// One checker thread: a long-lived worker that answers checks in the order they were posted,
// each within CHECK_LIMIT_MS (past it the worker is ended and a new one starts on demand).
import { Worker } from 'node:worker_threads';
import type { CheckRequest, CheckResult } from './types';

/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
export const CHECK_LIMIT_MS = 30_000;

export type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; message: string });

export class CheckerThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { worker: Worker; resolve: (reply: WorkerReply) => void; timer: NodeJS.Timeout }>();
  private nextId = 1;

  constructor(private readonly file: URL) {}

  /** Loads TypeScript and the library declarations now, not on the first program. */
  warm(): void {
    const worker = (this.worker ??= this.startWorker());
    worker.postMessage({ warm: true });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  ask(request: CheckRequest): Promise<WorkerReply> {
    const worker = (this.worker ??= this.startWorker());
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ id, ok: false, message: `it did not finish within ${CHECK_LIMIT_MS / 1000} s` });
        // The worker is stuck on this check: every other waiting check fails with it, and the next starts a new one.
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
      }, CHECK_LIMIT_MS);
      this.pending.set(id, { worker, resolve, timer });
      worker.ref();
      worker.postMessage({ id, ...request });
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(this.file, { resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    worker.on('message', (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if (![...this.pending.values()].some((p) => p.worker === worker)) worker.unref();
      waiting.resolve(reply);
    });
    const failAll = (message: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, waiting] of this.pending) {
        if (waiting.worker !== worker) continue;
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        waiting.resolve({ id, ok: false, message });
      }
    };
    worker.on('error', (error) => failAll(error.message));
    worker.on('exit', () => failAll('the type checker stopped'));
    worker.unref();
    return worker;
  }
}
