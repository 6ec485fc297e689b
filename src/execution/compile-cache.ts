// Compiled programs kept by source hash and the modules in scope: agents often resend the
// same program (retries, loops), and a compile is the costliest step before a run. Every new
// program adds one, so they are bounded by bytes (`compile_cache_size`), not only by count.
import { compileProgram, type CompileResult } from '../../sandbox';
import { boundedCache, textBytes } from '../../sandbox/bounded-cache';
import { metrics, timed } from '../metrics';

/**
 * Default of `compile_cache_size`, in megabytes: about 2,400 hello-world programs (6.6 KB each
 * by the estimate below), a few hundred of a few KB, enough for an agent's retries and loops.
 * It was 64, which the entry bound reached first (27 MiB at 4,096 programs): the cache's churn
 * was most of the server main thread's live heap (52-57 MiB; with 8, 40-43) over 20,000 new
 * programs (issue 39, bench/PROFILE.md "mem39d").
 */
export const COMPILE_CACHE_MEGABYTES = 16;
/** Entries at most, whatever their size (each costs its key and bookkeeping besides its text). */
const COMPILE_CACHE_ENTRIES = 4096;

export interface CacheableCompile {
  source: string;
  /** sha256 of `source`. */
  sourceHash: string;
  /** Modules and Packages the program may import in this run. */
  availableModules: string[];
  /** Modules declared but unavailable in this run, with the reason. */
  unavailable: Readonly<Record<string, string>>;
}

/** What a compile result holds in text: code, source map and sources, or the error report. */
function resultBytes(result: CompileResult, key: string): number {
  const text = result.ok ? textBytes(result.script.code) + textBytes(result.script.sourceMap) + Object.values(result.script.sources).reduce((sum, source) => sum + textBytes(source), 0) : textBytes(JSON.stringify(result.error));
  return text + textBytes(key);
}

/** Compile results, the least recently used dropped first past the byte budget (failures too: the same program fails the same way). */
export class CompileCache {
  private readonly compiled;

  constructor(maxBytes = COMPILE_CACHE_MEGABYTES * 1024 * 1024) {
    this.compiled = maxBytes > 0 ? boundedCache<CompileResult>({ maxBytes, maxEntries: COMPILE_CACHE_ENTRIES, sizeOf: resultBytes }) : null;
  }

  async compile({ source, sourceHash, availableModules, unavailable }: CacheableCompile): Promise<CompileResult> {
    const key = `${sourceHash}:${availableModules.join(',')}:${JSON.stringify(unavailable)}`;
    const cached = this.compiled?.get(key);
    if (cached) return cached;
    const result = await timed(metrics.compileDuration, compileProgram({ source, availableModules, unavailable }));
    if (this.compiled) {
      this.compiled.set(key, result);
      metrics.compileCacheBytes.set(this.compiled.calculatedSize);
      metrics.compileCacheEntries.set(this.compiled.size);
    }
    return result;
  }
}
