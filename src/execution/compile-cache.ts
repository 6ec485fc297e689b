// Compiled programs kept by source hash and the modules in scope: agents often resend the
// same program (retries, loops), and a compile is the costliest step before a run. Every new
// program adds one, so they are bounded by bytes (`compile_cache_size`), not only by count.
import { compileProgram, type CompileResult } from '../../sandbox';
import { boundedCache, textBytes } from '../../sandbox/bounded-cache';
import { metrics, timed } from '../metrics';

/** Default of `compile_cache_size`, in megabytes. */
export const COMPILE_CACHE_MEGABYTES = 64;
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
