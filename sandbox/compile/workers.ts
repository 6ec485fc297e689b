// compileProgram and compilePackage for the server: each compile runs in one of a few
// worker threads (sized from the cores), so a large or hostile program never holds the
// event loop. Without the built worker (tests under tsx, the CLI's split bundle) the
// compile runs in this thread. A worker that dies (its heap limit, a crash) fails only
// the compiles it held, as compile errors, and is replaced on the next compile.
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CompileResult } from '../contract';
import { compileHere, type CompileInput } from './compile';
import { renderCompileError } from './diagnostics';
import { compilePackageHere, type PackageCompileResult, type PackageSource } from './package';

export type CompileJob = { id: number } & ({ kind: 'program'; input: CompileInput } | { kind: 'package'; input: PackageSource });
export type CompileReply = { id: number } & ({ ok: true; result: CompileResult | PackageCompileResult } | { ok: false; message: string });

/** Heap of one compile worker: a 2 MiB program's syntax tree fits many times over. */
const WORKER_HEAP_MB = 512;
/** At least two, so one large program never holds back a small one behind it. */
const POOL_SIZE = Math.max(2, Math.min(4, os.availableParallelism()));

function builtWorker(): URL | null {
  // The server bundle sits beside it; the CLI's chunks one folder down.
  for (const relative of ['./compile-worker.js', '../compile-worker.js']) {
    const candidate = new URL(relative, import.meta.url);
    if (candidate.protocol === 'file:' && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

interface Slot {
  worker: Worker;
  pending: Map<number, (reply: CompileReply) => void>;
}

class CompilePool {
  private readonly slots: Array<Slot | null> = Array.from({ length: POOL_SIZE }, () => null);
  private nextId = 0;

  constructor(private readonly file: URL) {}

  /** Never rejects: a worker that cannot start or dies answers as a failed compile. */
  run(job: Omit<CompileJob, 'id'>): Promise<CompileReply> {
    let slot: Slot;
    try {
      slot = this.leastBusy();
    } catch (error) {
      return Promise.resolve({ id: -1, ok: false, message: `the compiler could not start: ${(error as Error)?.message ?? String(error)}` });
    }
    const id = ++this.nextId;
    return new Promise((resolve) => {
      slot.pending.set(id, resolve);
      // Referenced while a compile runs, so a pending compile keeps the process alive.
      slot.worker.ref();
      slot.worker.postMessage({ ...job, id } as CompileJob);
    });
  }

  private leastBusy(): Slot {
    let best = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (slot === null) {
        best = i;
        break;
      }
      if (best === -1 || slot.pending.size < this.slots[best]!.pending.size) best = i;
    }
    return (this.slots[best] ??= this.start(best));
  }

  private start(index: number): Slot {
    const worker = new Worker(this.file, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const slot: Slot = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (reply: CompileReply) => {
      const resolve = slot.pending.get(reply.id);
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      resolve?.(reply);
    });
    const fail = (why: string) => {
      if (this.slots[index] === slot) this.slots[index] = null;
      for (const resolve of slot.pending.values()) resolve({ id: -1, ok: false, message: why });
      slot.pending.clear();
    };
    worker.on('error', (error) => fail(`the compiler failed: ${error.message}`));
    worker.on('exit', (code) => fail(`the compiler stopped (exit code ${code})`));
    return slot;
  }
}

let pool: CompilePool | null | undefined;
function compilePool(): CompilePool | null {
  if (pool === undefined) {
    const file = builtWorker();
    pool = file ? new CompilePool(file) : null;
  }
  return pool;
}

/** Compiles a submitted program into the isolate script (see ./compile); never throws. */
export async function compileProgram(input: CompileInput): Promise<CompileResult> {
  const workers = compilePool();
  if (!workers) return compileHere(input);
  const reply = await workers.run({ kind: 'program', input });
  if (reply.ok) return reply.result as CompileResult;
  const diagnostics = [{ severity: 'error' as const, line: 1, column: 1, message: `${reply.message}; the program may be too large or too deeply nested to compile` }];
  return { ok: false, error: { kind: 'compile_error', message: renderCompileError(diagnostics, input.source), diagnostics } };
}

/** Compiles an installed Package's lib.js (see ./package); never throws. */
export async function compilePackage(input: PackageSource): Promise<PackageCompileResult> {
  const workers = compilePool();
  if (!workers) return compilePackageHere(input);
  const reply = await workers.run({ kind: 'package', input });
  if (reply.ok) return reply.result as PackageCompileResult;
  return { ok: false, message: `package '${input.name}' cannot be prepared: ${reply.message}; reinstall it` };
}
