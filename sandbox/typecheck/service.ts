// Type checks for the server and the CLI: results cached per (program, declaration set,
// mode), so a repeated program is not checked again; checks themselves run in worker
// threads when the built worker is present (in-process otherwise: tests under tsx): a pool
// for ordinary programs (ORDINARY_CHECKERS) and one of their own for large ones, which take
// seconds to check and would otherwise hold smaller programs behind them. Tenants take
// turns, each with at most all the ordinary threads but one running, so one token never
// holds every worker (thread.ts). A program past MAX_CHECKED_BYTES, or whose check passes
// its budget or loses its worker, runs unchecked with a warning saying so: never a refusal.
import { createHash } from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs';
import type { CompileErrorReport, Diagnostic } from '../contract';
import { MAX_SOURCE_BYTES, renderCompileError, tooDeep } from '../compile';
import { boundedCache, textBytes } from '../bounded-cache';
import { untilAborted } from '../until-aborted';
import { Checkers, WARM_CHECKERS } from './checker';
import { saveCodeCache, useCodeCacheDirectory } from './compiler';
import { declarationSet } from './declarations';
import { CheckerThread, DEFAULT_THREAD_HEAP_MB, type CheckFailure } from './thread';
import type { CheckRequest, CheckResult, DeclarationSet, HeapReport, SchemaEdit, TypecheckMode } from './types';

/** What a check answers: the source to compile (with derived schema arguments) or the compile error. */
export type TypecheckOutcome = { ok: true; source: string; warnings: Diagnostic[] } | { ok: false; error: CompileErrorReport };

export interface TypecheckInput {
  source: string;
  /** SHA-256 of the source when the caller has it already. */
  sourceHash?: string;
  mode: TypecheckMode;
  /** Ambient `declare module` texts in scope (svc: modules, `@mcp/` servers, Packages). */
  modules: readonly string[];
  /** When it aborts (the server is shutting down) the program is no longer waited on: it goes on unchecked. */
  signal?: AbortSignal;
  /** Who sent the program (a token's name): waiting checks are taken one tenant at a time. */
  tenant?: string;
}

const RESULT_CACHE_SIZE = 512;
/** Bytes of check results kept: a result is its diagnostics' text, measured once the check answers. */
const RESULT_CACHE_BYTES = 16 * 1024 * 1024;
/** A check's estimated size until it answers. */
const PENDING_RESULT_BYTES = 1024;

/** Past this many bytes (UTF-8) a program runs unchecked, with a warning: a check of it would take many seconds. */
export const MAX_CHECKED_BYTES = 512 * 1024;
/**
 * Ordinary programs are checked on up to this many threads (large ones on one of their
 * own), a token on all but one: one per two cores, plus one, at least two and at most four
 * (two cores: one a token, three on four). Each thread loads TypeScript itself (about 60
 * MiB) and warms V8's optimizing compiler on it apart, for thousands of checks: on two cores
 * one token's 16 clients on two threads cost twice the CPU per check of one (bench/PROFILE.md).
 */
export const ORDINARY_CHECKERS = Math.min(4, Math.max(2, Math.floor(os.availableParallelism() / 2) + 1));

/** The warning a program that runs unchecked gets, at its first line. */
function unchecked(reason: string): Diagnostic {
  return { severity: 'warning', line: 1, column: 1, message: `not type-checked: ${reason}; the program runs unchecked` };
}

class CheckUnavailable extends Error {
  constructor(
    message: string,
    readonly failure: CheckFailure,
  ) {
    super(message);
  }
}

/** Default of `typecheck_large_program`, in KiB: larger programs are checked on the second thread. */
export const DEFAULT_LARGE_PROGRAM_KIB = 64;

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

export class Typechecker {
  private readonly results = boundedCache<Promise<CheckResult>>({ maxEntries: RESULT_CACHE_SIZE, maxBytes: RESULT_CACHE_BYTES, sizeOf: (_, key) => PENDING_RESULT_BYTES + textBytes(key) });
  /** Ordinary programs. */
  private readonly thread: CheckerThread | null;
  /** Programs over `largeProgramBytes`: started on the first such program. */
  private readonly largeThread: CheckerThread | null;
  private readonly largeProgramBytes: number;
  private readonly maxCheckedBytes: number;
  private inProcess: Checkers | null = null;
  private readonly onNotice: ((message: string) => void) | undefined;
  private warmTimer: NodeJS.Timeout | null = null;
  /** Declaration sets and modes warmed already (hash:mode), at most WARM_CHECKERS. */
  private readonly warmed = new Set<string>();
  private closed = false;
  private warmCheckers = 0;
  private coldChecks = 0;

  /**
   * `worker: false` checks in-process; `workerFile` names the built worker (benchmarks run
   * from sources); `largeProgramBytes` (UTF-8) is where a program goes to the large-program thread;
   * `maxCheckedBytes` is where it is not checked at all; `budgetMs` is a check's time budget and
   * `workers` the number of ordinary checker threads;
   * `codeCacheDirectory` keeps the compiler's code cache for the next checker thread
   * (compiler.ts), `onNotice` hears when it could not be written; `heapMb` is each checker
   * thread's heap limit (thread.ts replaces a thread near it). In-process, checks share this
   * thread's compiler (a short-lived CLI command then loads TypeScript once, for its build
   * and its checks alike), so `codeCacheDirectory` becomes this thread's, and no budget applies.
   */
  constructor(options: { worker?: boolean; workerFile?: URL; largeProgramBytes?: number; maxCheckedBytes?: number; budgetMs?: number; workers?: number; heapMb?: number; codeCacheDirectory?: string; onNotice?: (message: string) => void } = {}) {
    const file = options.worker === false ? null : (options.workerFile ?? workerFile());
    const threadOptions = {
      codeCacheDirectory: options.codeCacheDirectory ?? null,
      onCold: () => this.coldChecks++,
      ...(options.heapMb ? { heapMb: options.heapMb } : {}),
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    };
    this.onNotice = options.onNotice;
    if (!file && options.codeCacheDirectory) useCodeCacheDirectory(options.codeCacheDirectory);
    this.thread = file ? new CheckerThread(file, { ...threadOptions, onWarmed: (count) => (this.warmCheckers += count), workers: options.workers ?? ORDINARY_CHECKERS, ...(options.budgetMs ? { budgetMs: options.budgetMs } : {}) }) : null;
    // A large program's check holds far more than a small one's: its thread gets twice the heap (1 GiB by default, as before the setting).
    const largeHeapMb = 2 * (options.heapMb ?? DEFAULT_THREAD_HEAP_MB);
    this.largeThread = file ? new CheckerThread(file, { ...threadOptions, heapMb: largeHeapMb, ...(options.budgetMs ? { budgetMs: options.budgetMs } : {}) }) : null;
    this.largeProgramBytes = options.largeProgramBytes ?? DEFAULT_LARGE_PROGRAM_KIB * 1024;
    this.maxCheckedBytes = options.maxCheckedBytes ?? MAX_CHECKED_BYTES;
  }

  async check(input: TypecheckInput): Promise<TypecheckOutcome> {
    if (input.mode === 'off') return { ok: true, source: input.source, warnings: [] };
    // A program the compile step refuses for its size or nesting never reaches the checker:
    // its compile error comes next, and the checker's own cost on such input is unbounded
    // (5,000 nested brackets held the one checker thread, and every other check, for 30 s).
    const bytes = Buffer.byteLength(input.source, 'utf8');
    if (bytes > MAX_SOURCE_BYTES || tooDeep(input.source) !== null) return { ok: true, source: input.source, warnings: [] };
    if (bytes > this.maxCheckedBytes) return { ok: true, source: input.source, warnings: [unchecked(`the program is ${bytes} bytes, past the ${Math.floor(this.maxCheckedBytes / 1024)} KiB the checker takes`)] };
    const set = declarationSet(input.modules);
    const sourceHash = input.sourceHash ?? createHash('sha256').update(input.source, 'utf8').digest('hex');
    const key = `${sourceHash}:${set.hash}:${input.mode}`;
    let result = this.results.get(key);
    if (!result) {
      result = this.run({ source: input.source, mode: input.mode, set }, bytes > this.largeProgramBytes, input.tenant ?? '').catch((error: unknown) => {
        // A check past its budget is kept as such (the same program would take as long again);
        // a failed worker is not: the next run of the program is checked again.
        if (!(error instanceof CheckUnavailable && error.failure === 'budget')) this.results.delete(key);
        throw error;
      });
      this.results.set(key, result);
      const pending = result;
      // Measured once it answers (if it is still the one kept): a failing program's diagnostics can be long.
      pending.then((checked) => {
        if (this.results.peek(key) === pending) this.results.set(key, pending, { size: textBytes(JSON.stringify(checked)) + textBytes(key) });
      }, () => {});
    }
    let checked: CheckResult;
    try {
      checked = await (input.signal ? untilAborted(result, input.signal, () => new Error('aborted')) : result);
    } catch (error) {
      // The checker is a help, not a boundary: when it cannot answer (too slow, crashed, the
      // server shutting down) the program runs unchecked, as with `typecheck: off`, and says so.
      return { ok: true, source: input.source, warnings: [unchecked(error instanceof CheckUnavailable ? error.message : 'the server is shutting down')] };
    }
    if (!checked.ok) return { ok: false, error: { kind: 'compile_error', message: renderCompileError(checked.diagnostics, input.source), diagnostics: checked.diagnostics } };
    return { ok: true, source: checked.edits.length > 0 ? applyEdits(input.source, checked.edits) : input.source, warnings: checked.warnings };
  }

  /**
   * Loads TypeScript and the library files in `delayMs` unless a check has started the
   * checker by then: a server that has been up that long is likely a lasting one, whose
   * first typed run then finds the checker warm; a short-lived one (a test, a probe) never
   * pays for it.
   */
  warmAfter(delayMs: number): void {
    if (this.warmTimer) clearTimeout(this.warmTimer);
    this.warmTimer = setTimeout(() => this.thread?.warm(), delayMs);
    this.warmTimer.unref();
  }

  /**
   * Makes the warm checkers of these declaration sets on an idle checker thread (loading
   * TypeScript first if no check has), so the first program checked against one finds it
   * ready: warming at start and when a Blueprint is applied. A set warmed already, or
   * beyond the warm checkers a thread keeps, is skipped.
   */
  warm(requests: ReadonlyArray<{ modules: readonly string[]; mode: TypecheckMode }>): void {
    if (this.closed || !this.thread) return;
    const sets: Array<{ set: DeclarationSet; mode: Exclude<TypecheckMode, 'off'> }> = [];
    for (const { modules, mode } of requests) {
      if (mode === 'off' || this.warmed.size >= WARM_CHECKERS) continue;
      const set = declarationSet(modules);
      const key = `${set.hash}:${mode}`;
      if (this.warmed.has(key)) continue;
      this.warmed.add(key);
      sets.push({ set, mode });
    }
    if (sets.length > 0) this.thread.warm(sets);
  }

  /** Warm checkers made ahead of any program (at start, when a Blueprint was applied). */
  get warmedAhead(): number {
    return this.warmCheckers;
  }

  /**
   * Checks that waited for a cold checker: a checker thread started for them (TypeScript
   * loaded first), or their declaration set's checker made by them. Warming (at start, when
   * a Blueprint is applied, when a thread is replaced) makes both ahead.
   */
  get cold(): number {
    return this.coldChecks;
  }

  /** Checker threads replaced because their heap neared typecheck_thread_memory. */
  get replacedThreads(): number {
    return (this.thread?.replaced ?? 0) + (this.largeThread?.replaced ?? 0);
  }

  /** The checker threads' V8 heaps as last reported (ordinary threads, then the large-program thread). */
  get heaps(): HeapReport[] {
    return [...(this.thread?.heaps ?? []), ...(this.largeThread?.heaps ?? [])];
  }

  /** Checks running now on the checker threads (a status for tests). */
  get running(): number {
    return (this.thread?.running ?? 0) + (this.largeThread?.running ?? 0);
  }

  /** Stops the workers, if they started (server shutdown; they are unref'd while idle, so this is tidiness). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.warmTimer) clearTimeout(this.warmTimer);
    await Promise.all([this.thread?.close(), this.largeThread?.close()]);
  }

  private async run(request: CheckRequest, large: boolean, tenant: string): Promise<CheckResult> {
    const thread = large ? this.largeThread : this.thread;
    if (!thread) return this.checkInProcess(request);
    const reply = await thread.ask(request, tenant);
    if (!reply.ok) throw new CheckUnavailable(reply.message, reply.failure);
    return reply.result;
  }

  private checkInProcess(request: CheckRequest): CheckResult {
    const result = (this.inProcess ??= new Checkers()).check(request);
    // After a check, as a checker thread does: the cache then holds the functions checking ran.
    const cache = saveCodeCache();
    if (!cache.ok) this.onNotice?.(`the type checker's code cache ${cache.file} could not be written (the next command compiles TypeScript again): ${cache.message}`);
    return result;
  }
}
