// Loads the TypeScript compiler for the checker. It is 9 MB of JavaScript that V8 compiles
// anew in every process or thread that loads it; with a cache directory, V8's code cache
// for it (made once a check has run, so it holds the functions checking uses, not only the
// top level) is kept there and read back by the next checker thread: about half of the
// compiler's load and of the first check's compile work go (bench/typecheck.ts).
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { loadWithCodeCache, writeCodeCache, type CodeCacheResult, type PendingCache } from '../code-cache';
import { keepFactoriesInterpreted } from './factories';
import type { V8FlagLock } from '../v8-flags';

const require = createRequire(import.meta.url);
const CACHE_PREFIX = 'typescript';

export type { CodeCacheResult };

interface Loaded {
  ts: typeof TypeScript;
  /** Set when a cache should be written after the first check (none was read, or V8 refused it). */
  pending: PendingCache | null;
}

let cacheDirectory: string | null = null;
let loaded: Loaded | null = null;
/** Set in a checker thread: the process's V8 flag lock, under which it keeps the factories interpreted. */
let interpretFactories: V8FlagLock | null = null;

/** A checker thread keeps TypeScript's factories out of V8's optimizing compiler (factories.ts); takes effect on load. */
export function useInterpretedFactories(flags: V8FlagLock): void {
  interpretFactories = flags;
}

/** Where the code cache lives (null: nowhere); takes effect when the compiler is first loaded. */
export function useCodeCacheDirectory(directory: string | null): void {
  cacheDirectory = directory;
}

/** The TypeScript compiler, loaded on first use. */
export function typescript(): typeof TypeScript {
  if (!loaded) {
    loaded = load();
    if (interpretFactories) keepFactoriesInterpreted(loaded.ts, interpretFactories);
  }
  return loaded.ts;
}

/**
 * Writes the code cache if this thread loaded the compiler without a usable one. Called
 * after a check, so the functions the check compiled are in it.
 */
export function saveCodeCache(): CodeCacheResult {
  const pending = loaded?.pending;
  if (!pending) return { ok: true, written: false };
  loaded!.pending = null;
  return writeCodeCache(pending, CACHE_PREFIX);
}

function load(): Loaded {
  const file = require.resolve('typescript');
  if (cacheDirectory === null) return { ts: require(file) as typeof TypeScript, pending: null };
  const { exports, pending } = loadWithCodeCache(file, CACHE_PREFIX, cacheDirectory);
  return { ts: exports as typeof TypeScript, pending };
}
