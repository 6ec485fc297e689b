// Worker-thread entry: compiles programs and Package scripts off the server's event loop
// (esbuild's transform, acorn's parse and the instrumentation are CPU-bound and grow with
// the source). Built as dist/compile-worker.js; ./workers is the pool that feeds it.
import { parentPort } from 'node:worker_threads';
import { compileHere } from './compile';
import { compilePackageHere } from './package';
import type { CompileJob, CompileReply } from './workers';

parentPort!.on('message', (job: CompileJob) => {
  const work = job.kind === 'program' ? compileHere(job.input) : compilePackageHere(job.input);
  work.then(
    (result) => parentPort!.postMessage({ id: job.id, ok: true, result } satisfies CompileReply),
    (error: unknown) => parentPort!.postMessage({ id: job.id, ok: false, message: (error as Error)?.message ?? String(error) } satisfies CompileReply),
  );
});
