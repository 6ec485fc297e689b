// Loads a large CommonJS file through V8's code cache: Node 20 compiles every file anew in
// each process or thread (it has no module.enableCompileCache), and a few MB of JavaScript
// cost a noticeable part of a start. The cache is made after the code has run (so it holds
// the functions that ran, not only the top level) and read back by the next load. Used for
// the TypeScript compiler in checker threads and for the server bundle itself.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

/** A compiled script whose cache is still to be written (none was read, or V8 refused it). */
export interface PendingCache {
  script: vm.Script;
  file: string;
}

export interface CachedLoad {
  exports: unknown;
  pending: PendingCache | null;
}

/** What happened to a cache write: nothing to do, or why it could not be written. */
export type CodeCacheResult = { ok: true; written: boolean } | { ok: false; file: string; message: string };

/**
 * One name per source, Node build and set of Node flags: V8 knows the source only by its
 * length, so the name carries a digest of the source (a changed file of the same length
 * never meets an old cache); it refuses a cache made under other flags, so processes started
 * with other flags (a benchmark's hooks) keep a cache of their own rather than replacing
 * each other's at every exit.
 */
export function cacheName(prefix: string, file: string, source: Buffer): string {
  const digest = createHash('sha256').update(source).update('\0').update(`${process.version} ${process.arch} ${file}\0${process.execArgv.join(' ')}`).digest('hex');
  return `${prefix}-${digest.slice(0, 32)}.v8cache`;
}

/**
 * Runs `file` as Node runs a CommonJS module (the same wrapper and names), compiled with the
 * cache in `directory` when there is a usable one. `directory` null: no cache at all.
 */
export function loadWithCodeCache(file: string, prefix: string, directory: string | null): CachedLoad {
  const bytes = fs.readFileSync(file);
  const cacheFile = directory === null ? null : path.join(directory, cacheName(prefix, file, bytes));
  const cachedData = cacheFile === null ? undefined : readIfPresent(cacheFile);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${bytes.toString('utf8')}\n})`, {
    filename: file,
    // A dynamic import() in the file resolves as it would in a module Node loaded itself.
    ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const usable = cachedData !== undefined && !script.cachedDataRejected;
  return { exports: module.exports, pending: cacheFile === null || usable ? null : { script, file: cacheFile } };
}

/**
 * Writes a pending cache whole under a temporary name, then renames it: a reader never sees
 * part of a file. Caches of other sources, Node builds or flags with the same prefix go then,
 * all but the newest few (see KEPT_CACHES).
 */
export function writeCodeCache(pending: PendingCache, prefix: string): CodeCacheResult {
  // Random, not pid and time: runners in their own PID namespaces share pids and start together.
  const temporary = `${pending.file}.${randomBytes(8).toString('hex')}.tmp`;
  try {
    makeDirectory(path.dirname(pending.file));
    fs.writeFileSync(temporary, pending.script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temporary, pending.file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    return { ok: false, file: pending.file, message: (error as Error).message };
  }
  try {
    removeStale(prefix, pending.file);
  } catch {
    // Tidiness only: a stale cache is never read (its name does not match), and the next write tries again.
  }
  return { ok: true, written: true };
}

/**
 * Creates `directory` and its missing parents, one level at a time. Not mkdirSync's
 * `recursive`: where mkdir answers ENOENT though the parent exists (beneath /proc, say),
 * Node 20's recursive mkdir retries for ever, and this runs in an exit handler.
 */
function makeDirectory(directory: string): void {
  const missing: string[] = [];
  for (let current = directory; !fs.existsSync(current); current = path.dirname(current)) {
    if (path.dirname(current) === current) break;
    missing.unshift(current);
  }
  for (const level of missing) {
    try {
      fs.mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      // Another process (a test server, a checker thread) made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The cache, or nothing when there is none yet or it cannot be read (the next write replaces it). */
function readIfPresent(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** A temporary file this old was left by a writer that stopped (a concurrent one would have renamed it long ago). */
const ABANDONED_MS = 10 * 60_000;

/**
 * Caches of one prefix kept, the one just written included: processes with other flags share
 * a directory (the test suite's servers without V8's optimising compiler, a test or a bench
 * with it), and keeping only the newest made each switch cost the next start a compile of
 * the whole source and a write at its exit (about 0.15-0.2 CPU-s for the server bundle;
 * bench/PROFILE.md, round 36). A few MB each; older ones go.
 */
const KEPT_CACHES = 3;

function removeStale(prefix: string, current: string): void {
  const directory = path.dirname(current);
  const cache = new RegExp(`^${prefix}-[0-9a-f]{32}\\.v8cache$`);
  const temporary = new RegExp(`^${prefix}-[0-9a-f]{32}\\.v8cache\\.[0-9a-f-]+\\.tmp$`);
  const others: Array<{ file: string; written: number }> = [];
  for (const name of fs.readdirSync(directory)) {
    const file = path.join(directory, name);
    const written = () => fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    if (cache.test(name) && file !== current) others.push({ file, written: written() });
    else if (temporary.test(name) && Date.now() - written() > ABANDONED_MS) fs.rmSync(file, { force: true });
  }
  others.sort((a, b) => b.written - a.written);
  for (const { file } of others.slice(KEPT_CACHES - 1)) fs.rmSync(file, { force: true });
}
