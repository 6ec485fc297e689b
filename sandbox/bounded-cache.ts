// The one policy for caches that grow with what programs send (compiled programs, code
// caches, source maps, check results, digests): the most recently used entries within a
// byte budget and a count, evicted least recently used first. An entry larger than the
// whole budget is not kept.
import { LRUCache } from 'lru-cache';

export interface BoundedCacheOptions<V> {
  /** Total of `sizeOf` over the entries kept. */
  maxBytes: number;
  /** Entries kept at most, whatever their size. */
  maxEntries: number;
  /** An entry's size in bytes (an estimate: UTF-16 strings count two bytes a code unit). */
  sizeOf: (value: V, key: string) => number;
  /** Called when an entry leaves (evicted, replaced or deleted): frees what the garbage collector would free late. */
  onLeave?: (value: V, key: string) => void;
}

export type BoundedCache<V extends {}> = LRUCache<string, V>;

export function boundedCache<V extends {}>({ maxBytes, maxEntries, sizeOf, onLeave }: BoundedCacheOptions<V>): BoundedCache<V> {
  return new LRUCache<string, V>({
    max: maxEntries,
    maxSize: maxBytes,
    // lru-cache refuses a size of 0; an empty entry still costs its key and bookkeeping.
    sizeCalculation: (value, key) => Math.max(1, Math.ceil(sizeOf(value, key))),
    ...(onLeave ? { dispose: (value: V, key: string) => onLeave(value, key) } : {}),
  });
}

/** Bytes a string takes in the estimate above, key included where a caller adds it. */
export function textBytes(text: string): number {
  return text.length * 2;
}
