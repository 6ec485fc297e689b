// Bytes in use under a directory, measured off the event loop and remembered: a size-limit
// check before each write must not walk a tree of 300,000 files on the server's thread.
// A measurement is an asynchronous walk (one system call per step, lstat in batches); a
// directory's figure is kept for a few seconds and moved by the writes svc makes itself,
// then measured again (so what git, copies or other runs wrote is counted soon after).
import fs from 'node:fs/promises';
import path from 'node:path';
import { boundedCache, textBytes } from '../../sandbox/bounded-cache';

/** Milliseconds a measurement stands before the next check measures again. */
const FRESH_MS = 5_000;
/** Entries looked at with lstat at once. */
const BATCH = 64;
/** Directories remembered at most; the oldest figure goes first (it is measured again when needed). */
const MAX_KNOWN = 10_000;

/** Bytes of the plain files under `dir` (links not followed, missing directory: 0). */
export async function measureTree(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    // Read BATCH entries at a time (not the whole listing in one turn: a directory may hold 300,000).
    let files: string[] = [];
    const sizeBatch = async () => {
      const sizes = await Promise.all(files.map((file) => fs.lstat(file).then((s) => s.size, () => 0)));
      for (const size of sizes) total += size;
      files = [];
    };
    try {
      for await (const entry of await fs.opendir(current, { bufferSize: BATCH })) {
        const at = path.join(current, entry.name);
        if (entry.isDirectory()) pending.push(at);
        else if (entry.isFile()) files.push(at);
        if (files.length >= BATCH) await sizeBatch();
      }
    } catch {
      // removed meanwhile, or not a directory: what was listed counts
    }
    await sizeBatch();
  }
  return total;
}

interface Known {
  bytes: number;
  measuredAt: number;
  /** A measurement under way: callers share it. */
  measuring: Promise<number> | null;
}

/** The server's figures of bytes in use per directory (a file area's place roots). */
export class DiskUsage {
  /** By directory; a figure is a few numbers, its key a path. */
  private readonly known = boundedCache<Known>({ maxEntries: MAX_KNOWN, maxBytes: MAX_KNOWN * 1024, sizeOf: (_, dir) => 64 + textBytes(dir) });

  constructor(private readonly now: () => number = Date.now) {}

  /** Bytes in use under `dir`: the remembered figure while fresh, else a new measurement. */
  async of(dir: string): Promise<number> {
    let entry = this.known.get(dir);
    if (entry && entry.measuring === null && this.now() - entry.measuredAt < FRESH_MS) return entry.bytes;
    if (!entry) {
      entry = { bytes: 0, measuredAt: 0, measuring: null };
      this.known.set(dir, entry);
    }
    if (entry.measuring === null) {
      const measured = entry;
      measured.measuring = measureTree(dir).then(
        (bytes) => {
          Object.assign(measured, { bytes, measuredAt: this.now(), measuring: null });
          return bytes;
        },
        (error: unknown) => {
          measured.measuring = null;
          throw error;
        },
      );
    }
    return entry.measuring!;
  }

  /** The last figure without measuring (0 when never measured). */
  lastKnown(dir: string): number {
    return this.known.get(dir)?.bytes ?? 0;
  }

  /** svc itself changed the bytes under `dir` (a write it just made). */
  add(dir: string, delta: number): void {
    const entry = this.known.get(dir);
    if (entry) entry.bytes = Math.max(0, entry.bytes + delta);
  }

  /** The directory went, or something other than svc's own writes changed it: measure again next time. */
  forget(dir: string): void {
    this.known.delete(dir);
  }
}
