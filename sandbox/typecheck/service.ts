// Type checks for the server and the CLI: results cached per (program, declaration set,
// mode), so a repeated program is not checked again; checks themselves run in one worker
// thread when the built worker is present (in-process otherwise: tests under tsx).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CompileErrorReport } from '../contract';
import { MAX_SOURCE_BYTES, renderCompileError, tooDeep } from '../compile';
import { Checkers } from './checker';
import { declarationSet } from './declarations';
import type { CheckRequest, CheckResult, SchemaEdit, TypecheckMode } from './types';

/** What a check answers: the source to compile (with derived schema arguments) or the compile error. */
export type TypecheckOutcome = { ok: true; source: string } | { ok: false; error: CompileErrorReport };

export interface TypecheckInput {
  source: string;
  /** SHA-256 of the source when the caller has it already. */
  sourceHash?: string;
  mode: TypecheckMode;
  /** Ambient `declare module` texts in scope (svc: modules, `@mcp/` servers, Packages). */
  modules: readonly string[];
  /** When it aborts (the server is shutting down) the program is no longer waited on: it goes on unchecked. */
  signal?: AbortSignal;
}

const RESULT_CACHE_SIZE = 512;
/** A check that runs longer is abandoned (the worker restarts): a type can be made to take forever. */
const CHECK_LIMIT_MS = 30_000;

type WorkerReply = { id: number } & ({ ok: true; result: CheckResult } | { ok: false; message: string });

function workerFile(): URL | null {
  // dist/server.js and dist/cli.js sit beside the worker; CLI chunks one level down.
  for (const relative of ['./typecheck-worker.js', '../typecheck-worker.js']) {
    const candidate = new URL(relative, import.meta.url);
    if (candidate.protocol === 'file:' && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

export function applyEdits(source: string, edits: readonly SchemaEdit[]): string {
  let out = source;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) out = out.slice(0, edit.offset) + edit.text + out.slice(edit.offset);
  return out;
}

/** The check, or a rejection as soon as the signal aborts (the check itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class Typechecker {
  private readonly results = new Map<string, Promise<CheckResult>>();
  private readonly workerFile: URL | null;
  private worker: Worker | null = null;
  private inProcess: Checkers | null = null;
  private readonly pending = new Map<number, { worker: Worker; resolve: (reply: WorkerReply) => void; timer: NodeJS.Timeout }>();
  private nextId = 1;

  /** `worker: false` checks in-process; `workerFile` names the built worker (benchmarks run from sources). */
  constructor(options: { worker?: boolean; workerFile?: URL } = {}) {
    this.workerFile = options.worker === false ? null : (options.workerFile ?? workerFile());
  }

  async check(input: TypecheckInput): Promise<TypecheckOutcome> {
    if (input.mode === 'off') return { ok: true, source: input.source };
    // A program the compile step refuses for its size or nesting never reaches the checker:
    // its compile error comes next, and the checker's own cost on such input is unbounded
    // (5,000 nested brackets held the one checker thread, and every other check, for 30 s).
    if (Buffer.byteLength(input.source, 'utf8') > MAX_SOURCE_BYTES || tooDeep(input.source) !== null) return { ok: true, source: input.source };
    const set = declarationSet(input.modules);
    const sourceHash = input.sourceHash ?? createHash('sha256').update(input.source, 'utf8').digest('hex');
    const key = `${sourceHash}:${set.hash}:${input.mode}`;
    let result = this.results.get(key);
    if (result) {
      this.results.delete(key);
    } else {
      result = this.run({ source: input.source, mode: input.mode, set });
      // A failed check is not kept: it may have been the worker, not the program.
      void result.catch(() => this.results.delete(key));
    }
    this.results.set(key, result);
    if (this.results.size > RESULT_CACHE_SIZE) this.results.delete(this.results.keys().next().value as string);
    let checked: CheckResult;
    try {
      checked = await (input.signal ? untilAborted(result, input.signal) : result);
    } catch {
      // The checker is a help, not a boundary: when it cannot answer (too slow, crashed) the
      // program runs unchecked, as with `typecheck: off`, rather than not at all.
      return { ok: true, source: input.source };
    }
    if (!checked.ok) return { ok: false, error: { kind: 'compile_error', message: renderCompileError(checked.diagnostics, input.source), diagnostics: checked.diagnostics } };
    return { ok: true, source: checked.edits.length > 0 ? applyEdits(input.source, checked.edits) : input.source };
  }

  /** Loads TypeScript and the library declarations now (server start), not on the first program. */
  warm(): void {
    if (!this.workerFile) return;
    const worker = (this.worker ??= this.startWorker());
    worker.postMessage({ warm: true });
  }

  /** Stops the worker (server shutdown; the worker is unref'd while idle, so this is tidiness). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private async run(request: CheckRequest): Promise<CheckResult> {
    if (!this.workerFile) return (this.inProcess ??= new Checkers()).check(request);
    const reply = await this.ask(request);
    if (!reply.ok) throw new Error(reply.message);
    return reply.result;
  }

  private ask(request: CheckRequest): Promise<WorkerReply> {
    const worker = (this.worker ??= this.startWorker());
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ id, ok: false, message: `it did not finish within ${CHECK_LIMIT_MS / 1000} s` });
        // The worker is stuck on this check: every other waiting check fails with it, and the next starts a new one.
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
      }, CHECK_LIMIT_MS);
      this.pending.set(id, { worker, resolve, timer });
      worker.ref();
      worker.postMessage({ id, ...request });
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(this.workerFile!, { resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    worker.on('message', (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if (![...this.pending.values()].some((p) => p.worker === worker)) worker.unref();
      waiting.resolve(reply);
    });
    const failAll = (message: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, waiting] of this.pending) {
        if (waiting.worker !== worker) continue;
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        waiting.resolve({ id, ok: false, message });
      }
    };
    worker.on('error', (error) => failAll(error.message));
    worker.on('exit', () => failAll('the type checker stopped'));
    worker.unref();
    return worker;
  }
}
