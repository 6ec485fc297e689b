// compileProgram and compilePackage for the server: each compile runs in one of a few
// worker threads (piscina, sized from the cores), so a large or hostile program never holds
// the event loop. Without the built worker (tests under tsx, the CLI's split bundle) the
// compile runs in this thread. A worker that dies (its heap limit, a crash) fails only the
// compiles it held, as compile errors (code large enough to pass the heap limit compiles
// alone on a thread of its own); piscina starts another for the next compile.
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { CompileResult } from '../contract';
import { compileHere, programSources, type CompileInput } from './compile';
import { renderCompileError } from './diagnostics';
import { compilePackageHere, type PackageCompileResult, type PackageSource } from './package';

export type CompileJob = { kind: 'program'; input: CompileInput } | { kind: 'package'; input: PackageSource };
/** What a compile thread is given: a compile, or `retire` (it stops its esbuild service and answers its threadId; see endPool). */
export type ThreadJob = CompileJob | { kind: 'retire' };
type ThreadAnswer = CompileResult | PackageCompileResult | number;
type CompileReply = { ok: true; result: ThreadAnswer } | { ok: false; message: string };

/** Default heap of one compile worker (`compile_thread_memory`): a 2 MiB program's compile needs about 300 MiB. */
export const DEFAULT_COMPILE_THREAD_MB = 512;
let workerHeapMb = DEFAULT_COMPILE_THREAD_MB;
/**
 * Default of `compile_thread_recycle`: compiles after which the compile threads are replaced
 * together (0 = never). Each replacement warms V8's optimizing compiler again: a fresh
 * thread's first 2,000 compiles took about twice the CPU of later ones, while one thread's
 * heap stayed level (~24 MiB) over 60,000 compiles without a replacement (bench/PROFILE.md).
 */
export const DEFAULT_COMPILE_THREAD_RECYCLE = 20_000;
let recycleAfter = DEFAULT_COMPILE_THREAD_RECYCLE;
let onRecycle: () => void = () => {};

/**
 * Sets the compile workers' heap limit (MiB) and after how many compiles their threads are
 * replaced (`onRecycle` is told each time); takes effect for workers started after it (the
 * server calls it before its first compile).
 */
export function configureCompileWorkers(options: { heapMb: number; recycleAfter?: number; onRecycle?: () => void }): void {
  workerHeapMb = options.heapMb;
  recycleAfter = options.recycleAfter ?? DEFAULT_COMPILE_THREAD_RECYCLE;
  onRecycle = options.onRecycle ?? (() => {});
}
/**
 * Young generation of one compile worker. V8's default for a thread (up to 48 MiB) stayed
 * reserved once a burst of compiles had grown it, in every worker: over 4,000 new programs
 * the two compile threads' heaps went 34 -> 96 MiB while they kept 7 MiB alive (issue 39).
 */
const WORKER_YOUNG_MB = 8;
/**
 * Small programs' threads. One per two cores: a small program's compile is mostly waiting on
 * esbuild's service, and each thread (with its own esbuild service) warms V8's optimizing
 * compiler on its own, so compiles spread over more threads ran unoptimized longer between
 * recycles. Large programs compile on a thread of their own (LARGE_COMPILE_CHARS).
 */
const POOL_SIZE = Math.max(1, Math.min(4, Math.floor(os.availableParallelism() / 2)));
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

type CompilePool = Piscina<ThreadJob, ThreadAnswer>;
/** The pools' common face: the small programs' pool recycles, the large programs' does not (see RecyclingPool). */
interface CompileWorkers {
  run(job: ThreadJob): Promise<ThreadAnswer>;
}

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
  // Per compile on the main thread: the worker's file as a path (piscina parses a file URL
  // again for every task) and no timing histograms (nothing reads them).
  return new Piscina({ filename: fileURLToPath(file), minThreads: 0, maxThreads: threads, idleTimeout: Infinity, concurrentTasksPerWorker: perThread, atomics: 'disabled', recordTiming: false, resourceLimits: { maxOldGenerationSizeMb: workerHeapMb, maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
}

/** A program that takes a fresh pool's first worker through its start and esbuild's before it takes real compiles. */
const WARM_UP: CompileJob = { kind: 'program', input: { source: 'export function main() {}\n', availableModules: [], unavailable: {} } };

/** One pool's life: the compiles sent to it and those still unanswered. */
interface Generation {
  pool: CompilePool;
  sent: number;
  unanswered: number;
  retired: boolean;
}

/**
 * The small programs' pool, replaced whole after `recycleAfter` compiles: a thread's exit
 * returns everything it held (its V8 heap at its high-water mark, code space, compiler zones,
 * its share of glibc's arenas), which collections alone did not (issue 39: over 20,000 new
 * programs the compile threads' heaps went 38 -> 53-60 MiB, and the server's other
 * anonymous memory with them). The replacement starts beside the old pool and takes compiles
 * only once its first worker has compiled a warm-up program, so no compile waits for a
 * worker's start; the old pool ends once its last compile has answered (never with one in hand).
 */
class RecyclingPool implements CompileWorkers {
  private current: Generation;
  private replacement: Generation | null = null;

  constructor(private readonly start: () => CompilePool) {
    this.current = this.generation();
  }

  private generation(): Generation {
    return { pool: this.start(), sent: 0, unanswered: 0, retired: false };
  }

  async run(job: ThreadJob): Promise<ThreadAnswer> {
    const generation = this.current;
    generation.sent++;
    generation.unanswered++;
    if (recycleAfter > 0 && generation.sent >= recycleAfter && !this.replacement) this.replace();
    try {
      return await generation.pool.run(job);
    } finally {
      generation.unanswered--;
      this.endIfDone(generation);
    }
  }

  private replace(): void {
    const fresh = this.generation();
    this.replacement = fresh;
    // A warm-up that fails (its worker could not start) hands over all the same: the pool
    // starts another worker for the next compile, as after any worker's death.
    const handOver = () => {
      const old = this.current;
      this.current = fresh;
      this.replacement = null;
      old.retired = true;
      this.endIfDone(old);
      onRecycle();
    };
    fresh.pool.run(WARM_UP).then(handOver, handOver);
  }

  private endIfDone(generation: Generation): void {
    if (generation.retired && generation.unanswered === 0) void endPool(generation.pool);
  }
}

const RETIRE: ThreadJob = { kind: 'retire' };
/** Rounds of retire jobs before a pool's threads are ended all the same (each thread answers one; piscina gives them to its least busy threads). */
const RETIRE_ROUNDS = 3;

/**
 * Ends a retired pool's threads once each has stopped its esbuild service and seen it exit:
 * only the thread that started the service's process waits for it, so a thread ended with
 * its service running left a zombie process behind, one per replacement for the server's life.
 */
async function endPool(pool: CompilePool): Promise<void> {
  const left = new Set(pool.threads.map((thread) => thread.threadId));
  for (let round = 0; left.size > 0 && round < RETIRE_ROUNDS; round++) {
    const answers = await Promise.allSettled([...left].map(() => pool.run(RETIRE)));
    for (const answer of answers) if (answer.status === 'fulfilled') left.delete(answer.value as number);
  }
  await pool.destroy();
}

let pools: { small: CompileWorkers; large: CompileWorkers } | null | undefined;
function compilePool(job: CompileJob): CompileWorkers | null {
  if (pools === undefined) {
    const file = builtWorker();
    pools = file ? { small: new RecyclingPool(() => startPool(file, POOL_SIZE, COMPILES_PER_WORKER)), large: startPool(file, 1, 1) } : null;
  }
  if (!pools) return null;
  const code = job.kind === 'program' ? job.input.source : job.input.code;
  return code.length > LARGE_COMPILE_CHARS ? pools.large : pools.small;
}

/** Never rejects: a worker that cannot start or dies answers as a failed compile. */
async function inWorker(workers: CompileWorkers, job: CompileJob): Promise<CompileReply> {
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
export async function compileProgram(input: CompileInput): Promise<CompileResult> {
  const result = await compiled<CompileResult>({ kind: 'program', input }, () => compileHere(input), (message) => {
    const diagnostics = [{ severity: 'error' as const, line: 1, column: 1, message: `${message}; the program may be too large or too deeply nested to compile` }];
    return { ok: false, error: { kind: 'compile_error', message: renderCompileError(diagnostics, input.source), diagnostics } };
  });
  // A compile thread answers without the source this caller holds (./worker.ts).
  if (result.ok) result.script.sources = programSources(input.source);
  return result;
}

/** Compiles an installed Package's lib.js (see ./package); never throws. */
export function compilePackage(input: PackageSource): Promise<PackageCompileResult> {
  return compiled<PackageCompileResult>({ kind: 'package', input }, () => compilePackageHere(input), (message) => ({ ok: false, message: `package '${input.name}' cannot be prepared: ${message}; reinstall it` }));
}
