// Loads the TypeScript compiler for the checker. It is 9 MB of JavaScript that V8 compiles
// anew in every process or thread that loads it; with a cache directory, V8's code cache
// for it (made once a check has run, so it holds the functions checking uses, not only the
// top level) is kept there and read back by the next checker thread: about half of the
// compiler's load and of the first check's compile work go (bench/typecheck.ts).
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { keepFactoriesInterpreted } from './factories';

const require = createRequire(import.meta.url);

/** What happened to the code cache: nothing to do, or why it could not be written. */
export type CodeCacheResult = { ok: true; written: boolean } | { ok: false; file: string; message: string };

interface Loaded {
  ts: typeof TypeScript;
  /** Set when a cache should be written after the first check (none was read, or V8 refused it). */
  pending: { script: vm.Script; file: string } | null;
}

let cacheDirectory: string | null = null;
let loaded: Loaded | null = null;
let interpretFactories = false;

/** A checker thread keeps TypeScript's factories out of V8's optimizing compiler (factories.ts); takes effect on load. */
export function useInterpretedFactories(): void {
  interpretFactories = true;
}

/** Where the code cache lives (null: nowhere); takes effect when the compiler is first loaded. */
export function useCodeCacheDirectory(directory: string | null): void {
  cacheDirectory = directory;
}

/** The TypeScript compiler, loaded on first use. */
export function typescript(): typeof TypeScript {
  if (!loaded) {
    loaded = load();
    if (interpretFactories) keepFactoriesInterpreted(loaded.ts);
  }
  return loaded.ts;
}

/**
 * Writes the code cache if this thread loaded the compiler without a usable one. Called
 * after a check, so the functions the check compiled are in it. Written whole under a
 * temporary name, then renamed: a reader never sees part of a file.
 */
export function saveCodeCache(): CodeCacheResult {
  const pending = loaded?.pending;
  if (!pending) return { ok: true, written: false };
  loaded!.pending = null;
  const temporary = `${pending.file}.${process.pid}-${Date.now()}.tmp`;
  try {
    fs.mkdirSync(path.dirname(pending.file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temporary, pending.script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temporary, pending.file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    return { ok: false, file: pending.file, message: (error as Error).message };
  }
  try {
    removeStale(pending.file);
  } catch {
    // Tidiness only: a stale cache is never read (its name does not match), and the next write tries again.
  }
  return { ok: true, written: true };
}

function load(): Loaded {
  const file = require.resolve('typescript');
  if (cacheDirectory === null) return { ts: require(file) as typeof TypeScript, pending: null };
  const bytes = fs.readFileSync(file);
  const source = bytes.toString('utf8');
  const cacheFile = path.join(cacheDirectory, cacheName(file, bytes));
  const cachedData = readIfPresent(cacheFile);
  // The module wrapper Node itself gives a CommonJS file, so the compiler sees the usual names.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const usable = cachedData !== undefined && !script.cachedDataRejected;
  return { ts: module.exports as typeof TypeScript, pending: usable ? null : { script, file: cacheFile } };
}

/**
 * One name per compiler source and Node build: V8 checks its own version and flags but
 * knows the source only by its length, so the name carries a digest of the source (a
 * changed compiler of the same length never meets an old cache).
 */
function cacheName(file: string, source: Buffer): string {
  const digest = createHash('sha256').update(source).update('\0').update(`${process.version} ${process.arch} ${file}`).digest('hex');
  return `typescript-${digest.slice(0, 32)}.v8cache`;
}

/** The cache, or nothing when there is none yet or it cannot be read (the write after the first check replaces it). */
function readIfPresent(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** A temporary file this old was left by a writer that stopped (a concurrent one would have renamed it long ago). */
const ABANDONED_MS = 10 * 60_000;

/** Caches of other compiler versions or Node builds go when a new one is written, and abandoned temporary files. */
function removeStale(current: string): void {
  const directory = path.dirname(current);
  for (const name of fs.readdirSync(directory)) {
    const file = path.join(directory, name);
    if (/^typescript-[0-9a-f]{32}\.v8cache$/.test(name) && file !== current) fs.rmSync(file, { force: true });
    else if (/^typescript-[0-9a-f]{32}\.v8cache\.[0-9-]+\.tmp$/.test(name) && Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > ABANDONED_MS) fs.rmSync(file, { force: true });
  }
}
