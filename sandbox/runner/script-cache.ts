// Code caches a runner's isolates share: a program's code, a run's guest-module table or a
// Package is compiled once per runner and deserialised in every further isolate. Compiled
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
 * Scripts compiled once here without a cache (their keys): most new programs run once, so a
 * cache is produced on a script's second compile, not its first (producing one serialises
 * the compiled script and copies it again to read its size). Keys only: 64 bytes or so each.
 */
const SEEN_KEPT = 4096;
const seenOnce = boundedCache<true>({ maxBytes: SEEN_KEPT * 128, maxEntries: SEEN_KEPT, sizeOf: (_, key) => key.length * 2 });

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

/**
 * The cache to compile from, or whether to produce one: not on a script's first compile (see
 * seenOnce). With cachedData, isolated-vm produces a new cache only when V8 rejected the one given.
 */
function cacheOptions(cacheKey: string, cached: ivm.ExternalCopy<ArrayBuffer> | undefined): { cachedData?: ivm.ExternalCopy<ArrayBuffer>; produceCachedData?: true } {
  if (cached) return { cachedData: cached, produceCachedData: true };
  if (seenOnce.delete(cacheKey)) return { produceCachedData: true };
  seenOnce.set(cacheKey, true);
  return {};
}

function kept(cacheKey: string, cached: ivm.ExternalCopy<ArrayBuffer> | undefined, script: ivm.Script): ivm.Script {
  const made = (script as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (made && made !== cached) caches.set(cacheKey, { copy: made, bytes: made.copy().byteLength });
  return script;
}
