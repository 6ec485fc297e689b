// Worker-thread entry: compiles programs and Package scripts off the server's event loop
// (esbuild's transform, acorn's parse and the instrumentation are CPU-bound and grow with
// the source). Built as dist/compile-worker.js; ./workers runs it in a piscina pool.
import { threadId } from 'node:worker_threads';
import type { CompileResult } from '../contract';
import { compileHere } from './compile';
import { stopService } from './esbuild';
import { compilePackageHere, type PackageCompileResult } from './package';
import type { ThreadJob } from './workers';
import { collectWhenBloated, reportThreadHeap } from '../thread-heap';

reportThreadHeap('compile');

/** esbuild's service process died (on a program it could not survive): no compile here can succeed. */
function esbuildStopped(result: CompileResult | PackageCompileResult): boolean {
  const message = result.ok ? '' : 'error' in result ? result.error.message : result.message;
  return /service (was stopped|is no longer running)/.test(message);
}

/** The caller holds the program's source (compileProgram puts it back): a copy back through the port would be only cost, up to 2 MiB. */
function withoutSource(result: CompileResult): CompileResult {
  if (result.ok) result.script.sources = {};
  return result;
}

export default async function compile(job: ThreadJob): Promise<CompileResult | PackageCompileResult | number> {
  // The pool is retiring this thread: its esbuild service goes first (workers.ts, endPool).
  if (job.kind === 'retire') {
    await stopService();
    return threadId;
  }
  const result = job.kind === 'program' ? withoutSource(await compileHere(job.input)) : await compilePackageHere(job.input);
  // This worker ends once its answer is out; the pool starts another for the next compile.
  if (esbuildStopped(result)) setImmediate(() => process.exit(1));
  // After the answer is out: the collection holds no caller.
  else setImmediate(collectWhenBloated);
  return result;
}
