// Worker-thread entry: compiles programs and Package scripts off the server's event loop
// (esbuild's transform, acorn's parse and the instrumentation are CPU-bound and grow with
// the source). Built as dist/compile-worker.js; ./workers is the pool that feeds it.
import { parentPort } from 'node:worker_threads';
import type { CompileResult } from '../contract';
import { compileHere } from './compile';
import { compilePackageHere, type PackageCompileResult } from './package';
import type { CompileJob, CompileReply } from './workers';

/** esbuild's service process died (on a program it could not survive): no compile here can succeed. */
function esbuildStopped(result: CompileResult | PackageCompileResult): boolean {
  const message = result.ok ? '' : 'error' in result ? result.error.message : result.message;
  return /service (was stopped|is no longer running)/.test(message);
}

parentPort!.on('message', (job: CompileJob) => {
  const work = job.kind === 'program' ? compileHere(job.input) : compilePackageHere(job.input);
  work.then(
    (result) => {
      parentPort!.postMessage({ id: job.id, ok: true, result } satisfies CompileReply);
      // This worker ends once its answer is out; the pool starts another on the next compile.
      if (esbuildStopped(result)) setImmediate(() => process.exit(1));
    },
    (error: unknown) => parentPort!.postMessage({ id: job.id, ok: false, message: (error as Error)?.message ?? String(error) } satisfies CompileReply),
  );
});
