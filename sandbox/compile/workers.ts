// compileProgram and compilePackage for the server: each compile runs in one of a few
// worker threads (piscina, sized from the cores), so a large or hostile program never holds
// the event loop. Without the built worker (tests under tsx, the CLI's split bundle) the
// compile runs in this thread. A worker that dies (its heap limit, a crash) fails only the
// compiles it held, as compile errors (code large enough to pass the heap limit compiles
// alone on a thread of its own); piscina starts another for the next compile.
import fs from 'node:fs';
import os from 'node:os';
import { Piscina } from 'piscina';
import type { CompileResult } from '../contract';
import { compileHere, type CompileInput } from './compile';
import { renderCompileError } from './diagnostics';
import { compilePackageHere, type PackageCompileResult, type PackageSource } from './package';

export type CompileJob = { kind: 'program'; input: CompileInput } | { kind: 'package'; input: PackageSource };
type CompileReply = { ok: true; result: CompileResult | PackageCompileResult } | { ok: false; message: string };

/** Default heap of one compile worker (`compile_thread_memory`): a 2 MiB program's compile needs about 300 MiB. */
export const DEFAULT_COMPILE_THREAD_MB = 512;
let workerHeapMb = DEFAULT_COMPILE_THREAD_MB;

/** Sets the compile workers' heap limit (MiB); takes effect for workers started after it (the server calls it before its first compile). */
export function configureCompileWorkers(options: { heapMb: number }): void {
  workerHeapMb = options.heapMb;
}
/**
 * Young generation of one compile worker. V8's default for a thread (up to 48 MiB) stayed
 * reserved once a burst of compiles had grown it, in every worker: over 4,000 new programs
 * the two compile threads' heaps went 34 -> 96 MiB while they kept 7 MiB alive (issue 39).
 */
const WORKER_YOUNG_MB = 8;
/** At least two, so one large program never holds back a small one behind it. */
const POOL_SIZE = Math.max(2, Math.min(4, os.availableParallelism()));
/** Compiles one worker takes at once: most of a compile waits on esbuild's service process. */
const COMPILES_PER_WORKER = 4;

function builtWorker(): URL | null {
  // The server bundle sits beside it; the CLI's chunks one folder down.
  for (const relative of ['./compile-worker.js', '../compile-worker.js']) {
    const candidate = new URL(relative, import.meta.url);
    if (candidate.protocol === 'file:' && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

type CompilePool = Piscina<CompileJob, CompileResult | PackageCompileResult>;

/**
 * Code over this many characters compiles on a thread of its own, one compile at a time: a
 * compile needs about 150 times its source in heap (a 2 MiB program about 300 MiB), so only
 * such code can pass `compile_thread_memory` (64 MB at least), and the thread it ends then
 * held no other program's compile.
 */
const LARGE_COMPILE_CHARS = 64 * 1024;

function startPool(file: URL, threads: number, perThread: number): CompilePool {
  // Workers start on the first compile and stay (idle ones do not keep the process alive);
  // `atomics: 'disabled'`: a compile awaits esbuild, so a worker's event loop must keep turning.
  return new Piscina({ filename: file.href, minThreads: 0, maxThreads: threads, idleTimeout: Infinity, concurrentTasksPerWorker: perThread, atomics: 'disabled', resourceLimits: { maxOldGenerationSizeMb: workerHeapMb, maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
}

let pools: { small: CompilePool; large: CompilePool } | null | undefined;
function compilePool(job: CompileJob): CompilePool | null {
  if (pools === undefined) {
    const file = builtWorker();
    pools = file ? { small: startPool(file, POOL_SIZE, COMPILES_PER_WORKER), large: startPool(file, 1, 1) } : null;
  }
  if (!pools) return null;
  const code = job.kind === 'program' ? job.input.source : job.input.code;
  return code.length > LARGE_COMPILE_CHARS ? pools.large : pools.small;
}

/** Never rejects: a worker that cannot start or dies answers as a failed compile. */
async function inWorker(workers: CompilePool, job: CompileJob): Promise<CompileReply> {
  try {
    return { ok: true, result: await workers.run(job) };
  } catch (error) {
    // A compile past the heap limit ends its worker; piscina starts another for the next compile.
    if ((error as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') return { ok: false, message: `compiling it needed more than the compile thread's ${workerHeapMb} MiB heap (compile_thread_memory)` };
    return { ok: false, message: `the compiler failed: ${(error as Error)?.message ?? String(error)}` };
  }
}

/**
 * Runs `job` on its compile pool, or here when no pool can be had (tsx, the CLI); a worker
 * that failed (out of heap, died) answers through `failed` with what went wrong.
 */
async function compiled<T>(job: CompileJob, here: () => T | Promise<T>, failed: (message: string) => T): Promise<T> {
  const workers = compilePool(job);
  if (!workers) return here();
  const reply = await inWorker(workers, job);
  return reply.ok ? (reply.result as T) : failed(reply.message);
}

/** Compiles a submitted program into the isolate script (see ./compile); never throws. */
export function compileProgram(input: CompileInput): Promise<CompileResult> {
  return compiled<CompileResult>({ kind: 'program', input }, () => compileHere(input), (message) => {
    const diagnostics = [{ severity: 'error' as const, line: 1, column: 1, message: `${message}; the program may be too large or too deeply nested to compile` }];
    return { ok: false, error: { kind: 'compile_error', message: renderCompileError(diagnostics, input.source), diagnostics } };
  });
}

/** Compiles an installed Package's lib.js (see ./package); never throws. */
export function compilePackage(input: PackageSource): Promise<PackageCompileResult> {
  return compiled<PackageCompileResult>({ kind: 'package', input }, () => compilePackageHere(input), (message) => ({ ok: false, message: `package '${input.name}' cannot be prepared: ${message}; reinstall it` }));
}
