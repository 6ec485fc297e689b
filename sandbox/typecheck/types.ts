// The shapes of a type check: what is checked against what, and what comes back.
import type { Diagnostic } from '../contract';

/** `off` skips the check; `on` blocks only on errors against svc's declarations (the rest are warnings); `strict` blocks on every type error, with null checks and implicit any. */
export type TypecheckMode = 'off' | 'on' | 'strict';

/** The ambient declarations a Blueprint puts in scope (besides the globals), and their hash. */
export interface DeclarationSet {
  hash: string;
  /** `declare module "…" { … }` texts: svc: modules, `@mcp/` servers, Packages. */
  modules: readonly string[];
}

export interface CheckRequest {
  source: string;
  mode: Exclude<TypecheckMode, 'off'>;
  set: DeclarationSet;
}

/** Programs checked one after another in one message: same declaration set and mode. */
export interface CheckBatch {
  sources: readonly string[];
  mode: CheckRequest['mode'];
  set: DeclarationSet;
}

/** A declaration set and mode whose warm checker a thread makes ahead of its first program. */
export type SetToWarm = Pick<CheckRequest, 'set' | 'mode'>;

/** A declaration set in a message to a checker thread: by its hash alone when the thread holds it already (set-memory.ts). */
export type SetReference = DeclarationSet | { hash: string };

/** Asks a checker thread to load TypeScript and make the warm checkers of these sets (no answer). */
export interface WarmMessage {
  warm: true;
  sets: ReadonlyArray<{ set: SetReference; mode: SetToWarm['mode'] }>;
}

/** What the pool posts to a checker thread: a batch, with the id of each program's check. */
export interface CheckBatchMessage extends Omit<CheckBatch, 'set'> {
  set: SetReference;
  ids: readonly number[];
  /** The thread says when it begins (`started`): it may not at once (TypeScript not loaded yet, a warm-up ahead). */
  announce: boolean;
}

/** Text inserted into the source before it is compiled: a derived schema argument. */
export interface SchemaEdit {
  /** 0-based UTF-16 offset in the submitted source. */
  offset: number;
  text: string;
}

/** A passing check carries the type errors that do not block (severity `warning`, at most 20). */
export type CheckResult = { ok: true; edits: SchemaEdit[]; warnings: Diagnostic[] } | { ok: false; diagnostics: Diagnostic[] };

/** What a checker thread is started with. */
export interface CheckerThreadData {
  /** Where the compiler's code cache is kept; null: it is not. */
  codeCacheDirectory: string | null;
  /** The process's V8 flag lock (v8-flags.ts); absent (a thread started by hand): one of its own. */
  flagLock?: SharedArrayBuffer;
}

/** A checker thread's V8 heap, in bytes: in use after its last full collection (0 before one), in use now (live and not yet collected), reserved, and malloc'ed by V8 itself. */
export interface HeapReport {
  live: number;
  used: number;
  total: number;
  malloced: number;
}
