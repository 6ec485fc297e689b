// Code caches a runner's isolates share: a program's code, a run's guest-module table or a
// Package compiled a second time in a runner makes a cache deserialised in every further
// isolate (the first compile makes none: compiledOnce). Compiled
// again in each isolate's first run, these were a fifth of a runner's main thread in a
// first burst of 64 runs (each burst run lands on an isolate of its own).
import { createHash } from 'node:crypto';
import type ivm from 'isolated-vm';
import { boundedCache } from '../bounded-cache';

/** Scripts whose caches a runner keeps, most recent last, within a count and a byte budget. */
const SCRIPTS_KEPT = 64;
const CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Code caches with their size, read once when made (ExternalCopy tells its size only through
 * a copy). One that leaves is released at once: its bytes live outside the runner's heap, so
 * the tiny handle left to the garbage collector kept them for a long time (the runners grew
 * by about 16 KB per new program, without bound).
 */
const caches = boundedCache<{ copy: ivm.ExternalCopy<ArrayBuffer>; bytes: number }>({
  maxBytes: CACHE_BYTES,
  maxEntries: SCRIPTS_KEPT,
  sizeOf: (entry, key) => entry.bytes + key.length * 2,
  // A compile still reading it holds its own reference (isolated-vm counts them).
  onLeave: (entry) => entry.copy.release(),
});

/**
 * Scripts compiled once without a cache being made. isolated-vm (5.0.4) copies each code cache
 * V8 makes into an ExternalCopy and never frees V8's own buffer (CodeCompilerHolder::
 * SaveCachedData marks it not owned, then deletes its holder): about 5 KB of native memory
 * per cache made, for the runner's life (heaptrack, bench/PROFILE.md round 20). A
 * cache is therefore made only for code compiled a second time: a program run once (most
 * of what agents send) leaves nothing, one run again compiles twice before it has a cache.
 */
const compiledOnce = boundedCache<true>({ maxBytes: 1024 * 1024, maxEntries: 8192, sizeOf: (_, key) => key.length * 2 });

/** The compile options for `cacheKey`: its cache when there is one; a cache made only for code compiled before (compiledOnce). */
function cacheOptions(cacheKey: string, cached: ivm.ExternalCopy<ArrayBuffer> | undefined): { produceCachedData?: boolean; cachedData?: ivm.ExternalCopy<ArrayBuffer> } {
  // With cachedData, isolated-vm makes a new cache only when V8 rejected the one given.
  if (cached) return { produceCachedData: true, cachedData: cached };
  if (compiledOnce.get(cacheKey) === undefined) {
    compiledOnce.set(cacheKey, true);
    return {};
  }
  compiledOnce.delete(cacheKey);
  return { produceCachedData: true };
}

/** A content key for code that has none yet (a program and a Package arrive with theirs). */
export function contentKey(code: string): string {
  return createHash('sha256').update(code).digest('base64');
}

/**
 * `code` compiled in `isolate`, from this runner's code cache for it when there is one.
 * `key` must be a hash of the content (the compile's `programKey`, a Package's `key`, or
 * contentKey): V8 checks a cache against the source's length and the flags only, so a
 * cache must never meet another source of the same length.
 */
export function compileShared(isolate: ivm.Isolate, code: string, filename: string, key: string): ivm.Script {
  const cacheKey = `${filename}\0${key}`;
  const cached = caches.get(cacheKey)?.copy;
  return kept(cacheKey, cached, isolate.compileScriptSync(code, { filename, ...cacheOptions(cacheKey, cached) }));
}

/**
 * The same, compiled on isolated-vm's thread: a program or a Package is guest-sized (up to
 * 2 MiB of source), and the runner's main thread serves every other run meanwhile.
 */
export async function compileSharedAsync(isolate: ivm.Isolate, code: string, filename: string, key: string): Promise<ivm.Script> {
  const cacheKey = `${filename}\0${key}`;
  const cached = caches.get(cacheKey)?.copy;
  return kept(cacheKey, cached, await isolate.compileScript(code, { filename, ...cacheOptions(cacheKey, cached) }));
}

function kept(cacheKey: string, cached: ivm.ExternalCopy<ArrayBuffer> | undefined, script: ivm.Script): ivm.Script {
  const made = (script as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (made && made !== cached) caches.set(cacheKey, { copy: made, bytes: made.copy().byteLength });
  return script;
}

/** What the caches hold now (the memory soak's per-part report, sandbox/runner/memory-report.ts). */
export function scriptCacheHolds(): { entries: number; bytes: number; compiledOnce: number } {
  return { entries: caches.size, bytes: caches.calculatedSize, compiledOnce: compiledOnce.size };
}
