// The shapes of a type check: what is checked against what, and what comes back.
import type { Diagnostic } from '../contract';

/** `off` skips the check (today's behaviour); `on` is agent-friendly; `strict` adds null checks and implicit any. */
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

/** Text inserted into the source before it is compiled: a derived schema argument. */
export interface SchemaEdit {
  /** 0-based UTF-16 offset in the submitted source. */
  offset: number;
  text: string;
}

export type CheckResult = { ok: true; edits: SchemaEdit[] } | { ok: false; diagnostics: Diagnostic[] };

/** What a checker thread is started with. */
export interface CheckerThreadData {
  /** Where the compiler's code cache is kept; null: it is not. */
  codeCacheDirectory: string | null;
}
