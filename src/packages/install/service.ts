// Installs one at a time, each in a worker thread when the built worker is present (the
// bundled server), in process otherwise (tests under tsx, the CLI).
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PackageError, type PackageErrorCode } from '../errors';
import { PackageStore } from '../store';
import { installFromRepository, type InstallRequest, type InstallResult, type RepositoryName } from './install';

export interface InstallerSettings {
  owned: string;
  fallback: string | null;
  apiUrl: string;
  tokenFile: string | null;
  denyWarnings: boolean;
  svcVersion: string;
  officialRepository: RepositoryName | null;
}

export interface InstallJob {
  request: InstallRequest;
  settings: InstallerSettings;
}

type WorkerReply = { ok: true; result: InstallResult } | { ok: false; error: { code: PackageErrorCode; message: string; warnings: string[] } };

export class PackageInstaller {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly workerFile: URL | null;

  constructor(
    private readonly settings: InstallerSettings,
    private readonly afterEach: () => void = () => {},
  ) {
    const candidate = new URL('./packages-worker.js', import.meta.url);
    this.workerFile = candidate.protocol === 'file:' && fs.existsSync(candidate) ? candidate : null;
  }

  /** Queues the install behind any running one; prepared caches are evicted after, success or failure. */
  install(request: InstallRequest): Promise<InstallResult> {
    const run = this.tail.then(() => this.runOne(request)).finally(() => this.afterEach());
    this.tail = run.catch(() => undefined);
    return run;
  }

  private worker: Worker | null = null;
  private nextId = 0;

  private runOne(request: InstallRequest): Promise<InstallResult> {
    if (!this.workerFile) return installFromRepository(request, { ...this.settings, store: new PackageStore(this.settings.owned, this.settings.fallback) });
    const worker = (this.worker ??= this.startWorker());
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const onMessage = (reply: WorkerReply & { id: number }) => {
        if (reply.id !== id) return;
        cleanup();
        if (reply.ok) resolve(reply.result);
        else reject(new PackageError(reply.error.code, reply.error.message, reply.error.warnings));
      };
      const onExit = () => {
        cleanup();
        reject(new PackageError('internal_error', 'the install worker exited without an answer'));
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        worker.unref();
      };
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      // Referenced while a job runs, so a pending install keeps the process alive.
      worker.ref();
      worker.postMessage({ id, ...({ request, settings: this.settings } satisfies InstallJob) });
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(this.workerFile!);
    worker.unref();
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    return worker;
  }
}
