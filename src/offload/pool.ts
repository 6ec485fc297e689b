// A small pool of worker threads for host work whose cost grows with what a program wrote
// or asked for (a regex over a file area, a diff, git hashing), so none of it runs on the
// server's event loop. Each worker runs one task at a time; more tasks wait, taken in turn
// per tenant (a token), and no tenant holds every worker while another's task waits: one
// tenant's slow tasks never queue everyone else's behind them. A task past its time budget, or whose caller gave up (its signal), ends its worker (the
// only way to stop a synchronous scan); the next task starts a fresh one. A worker that
// dies fails only the task it held.
import { Worker } from 'node:worker_threads';
import type { TaskReply, TaskRequest } from './protocol';

export type OffloadFailure = 'budget' | 'aborted' | 'crashed' | 'failed';

/** A task that did not produce an answer: why, and the worker's error message if it threw. */
export class OffloadError extends Error {
  constructor(
    readonly reason: OffloadFailure,
    message: string,
    /** The thrown error's name in the worker (`failed` only). */
    readonly remoteName = 'Error',
  ) {
    super(message);
    this.name = 'OffloadError';
  }
}

export interface PoolOptions {
  /** The worker entry (built file). */
  file: URL;
  /** Workers at most. */
  size: number;
  /** Old-generation heap of one worker, MB. */
  heapMb?: number;
}

export interface TaskOptions {
  /** Milliseconds the task may take once started; past it the worker is ended. */
  budgetMs?: number;
  /** The caller gave up (the run ended or cancelled the call). */
  signal?: AbortSignal;
  /** Whose task this is (a token): tenants take turns, and none holds every worker. */
  tenant?: string;
  /** Buffers of the input moved to the worker, not copied (the caller's own; unusable here after). */
  transfer?: ArrayBuffer[];
}

interface Task {
  request: TaskRequest;
  options: TaskOptions;
  resolve: (value: unknown) => void;
  reject: (error: OffloadError) => void;
}

interface Slot {
  worker: Worker;
  busy: Task | null;
  stop: (() => void) | null;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  /** Waiting tasks per tenant, in arrival order; tenants in the order they will be served. */
  private readonly queue = new Map<string, Task[]>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: PoolOptions) {}

  /** Runs `kind` with `input` in a worker; rejects with an OffloadError when no answer comes. */
  run<R>(kind: string, input: unknown, options: TaskOptions = {}): Promise<R> {
    if (options.signal?.aborted) return Promise.reject(new OffloadError('aborted', 'the call was cancelled'));
    if (this.closed) return Promise.reject(new OffloadError('crashed', 'the worker pool is closed'));
    return new Promise<R>((resolve, reject) => {
      const task: Task = { request: { id: ++this.nextId, kind, input }, options, resolve: resolve as (value: unknown) => void, reject };
      const tenant = options.tenant ?? '';
      // Cancelled while waiting: leave the queue at once.
      options.signal?.addEventListener(
        'abort',
        () => {
          const waiting = this.queue.get(tenant);
          const at = waiting?.indexOf(task) ?? -1;
          if (at !== -1) {
            waiting!.splice(at, 1);
            if (waiting!.length === 0) this.queue.delete(tenant);
            reject(new OffloadError('aborted', 'the call was cancelled'));
          }
        },
        { once: true },
      );
      const waiting = this.queue.get(tenant);
      if (waiting) waiting.push(task);
      else this.queue.set(tenant, [task]);
      this.dispatch();
    });
  }

  /** Tasks waiting for a worker, and workers busy: for tests and metrics. */
  load(): { waiting: number; busy: number; workers: number } {
    let waiting = 0;
    for (const tasks of this.queue.values()) waiting += tasks.length;
    return { waiting, busy: this.slots.filter((s) => s.busy).length, workers: this.slots.length };
  }

  /** Ends every worker; waiting and running tasks fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const tasks of this.queue.values()) for (const task of tasks) task.reject(new OffloadError('crashed', 'the worker pool is closed'));
    this.queue.clear();
    await Promise.all(this.slots.splice(0).map((slot) => this.end(slot, new OffloadError('crashed', 'the worker pool is closed'))));
  }

  private dispatch(): void {
    for (;;) {
      const tenant = this.nextTenant();
      if (tenant === null) return;
      let slot = this.slots.find((s) => s.busy === null);
      if (!slot) {
        if (this.slots.length >= this.options.size) return;
        slot = this.start();
      }
      const waiting = this.queue.get(tenant)!;
      const task = waiting.shift()!;
      // Served: to the back of the line.
      this.queue.delete(tenant);
      if (waiting.length > 0) this.queue.set(tenant, waiting);
      this.begin(slot, task);
    }
  }

  /** The first tenant in line that may take a worker: a named tenant leaves one worker for the others. */
  private nextTenant(): string | null {
    const cap = Math.max(1, this.options.size - 1);
    for (const tenant of this.queue.keys()) {
      let running = 0;
      for (const slot of this.slots) if (slot.busy && (slot.busy.options.tenant ?? '') === tenant) running++;
      if (tenant === '' || running < cap) return tenant;
    }
    return null;
  }

  private start(): Slot {
    const worker = new Worker(this.options.file, { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb ?? 512 } });
    const slot: Slot = { worker, busy: null, stop: null };
    // An idle worker never keeps the process alive.
    worker.unref();
    worker.on('message', (reply: TaskReply) => {
      const task = slot.busy;
      if (!task || task.request.id !== reply.id) return;
      this.finish(slot);
      if (reply.ok) task.resolve(reply.result);
      else task.reject(new OffloadError('failed', reply.error.message, reply.error.name));
    });
    const died = (why: string) => {
      const at = this.slots.indexOf(slot);
      if (at === -1) return;
      this.slots.splice(at, 1);
      const task = slot.busy;
      this.finish(slot);
      task?.reject(new OffloadError('crashed', why));
    };
    worker.on('error', (error) => died(`the worker failed: ${error.message}`));
    worker.on('exit', (code) => died(`the worker stopped (exit code ${code})`));
    this.slots.push(slot);
    return slot;
  }

  private begin(slot: Slot, task: Task): void {
    slot.busy = task;
    slot.worker.ref();
    const { budgetMs, signal } = task.options;
    const timer = budgetMs === undefined ? null : setTimeout(() => void this.end(slot, new OffloadError('budget', `the work took longer than its budget of ${budgetMs} ms`)), budgetMs);
    const onAbort = () => void this.end(slot, new OffloadError('aborted', 'the call was cancelled'));
    signal?.addEventListener('abort', onAbort, { once: true });
    slot.stop = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    slot.worker.postMessage(task.request, task.options.transfer ?? []);
  }

  /** The slot's task is over (answered or failed): free the slot, start the next task. */
  private finish(slot: Slot): void {
    slot.stop?.();
    slot.stop = null;
    slot.busy = null;
    slot.worker.unref();
    queueMicrotask(() => this.dispatch());
  }

  /** Ends a worker mid-task: its task fails with `error`, the slot goes. */
  private async end(slot: Slot, error: OffloadError): Promise<void> {
    const at = this.slots.indexOf(slot);
    if (at !== -1) this.slots.splice(at, 1);
    const task = slot.busy;
    this.finish(slot);
    task?.reject(error);
    await slot.worker.terminate();
  }
}
