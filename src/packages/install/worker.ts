// Worker-thread entry: one install, off the server's event loop (TypeScript compiling and
// archive extraction are CPU-bound). Built as dist/packages-worker.js.
import { parentPort, workerData } from 'node:worker_threads';
import { PackageError } from '../errors';
import { PackageStore } from '../store';
import { installFromRepository } from './install';
import type { InstallJob } from './service';

const job = workerData as InstallJob;
installFromRepository(job.request, { ...job.settings, store: new PackageStore(job.settings.owned, job.settings.fallback) }).then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (error: unknown) => {
    const failure = error instanceof PackageError ? { code: error.code, message: error.message, warnings: error.warnings } : { code: 'internal_error', message: (error as Error)?.message ?? String(error), warnings: [] };
    parentPort!.postMessage({ ok: false, error: failure });
  },
);
