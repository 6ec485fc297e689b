// Worker-thread entry: installs off the server's event loop (TypeScript compiling and
// archive extraction are CPU-bound). One long-lived worker keeps TypeScript and its parsed
// library files warm between installs. Built as dist/packages-worker.js.
import { parentPort } from 'node:worker_threads';
import { PackageError } from '../errors';
import { PackageStore } from '../store';
import { installFromRepository } from './install';
import type { InstallJob } from './service';
import { collectWhenBloated, reportThreadHeap } from '../../../sandbox/thread-heap';

reportThreadHeap('packages');

parentPort!.on('message', (job: InstallJob & { id: number }) => {
  installFromRepository(job.request, { ...job.settings, store: new PackageStore(job.settings.owned, job.settings.fallback) }).then(
    (result) => parentPort!.postMessage({ id: job.id, ok: true, result }),
    (error: unknown) => {
      const failure = error instanceof PackageError ? { code: error.code, message: error.message, warnings: error.warnings } : { code: 'internal_error', message: (error as Error)?.message ?? String(error), warnings: [] };
      parentPort!.postMessage({ id: job.id, ok: false, error: failure });
    },
  ).finally(() => setImmediate(collectWhenBloated));
});
