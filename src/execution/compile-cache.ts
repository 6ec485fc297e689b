// Compiled programs kept by source hash and the modules in scope: agents often resend the
// same program (retries, loops), and a compile is the costliest step before a run.
import { compileProgram, type CompileResult } from '../../sandbox';
import { metrics, timed } from '../metrics';

const COMPILE_CACHE_SIZE = 256;

export interface CacheableCompile {
  source: string;
  /** sha256 of `source`. */
  sourceHash: string;
  /** Modules and Packages the program may import in this run. */
  availableModules: string[];
  /** Modules declared but unavailable in this run, with the reason. */
  unavailable: Readonly<Record<string, string>>;
}

/** A small LRU of compile results (failures too: the same program fails the same way). */
export class CompileCache {
  private readonly compiled = new Map<string, CompileResult>();

  constructor(private readonly size = COMPILE_CACHE_SIZE) {}

  async compile({ source, sourceHash, availableModules, unavailable }: CacheableCompile): Promise<CompileResult> {
    const key = `${sourceHash}:${availableModules.join(',')}:${JSON.stringify(unavailable)}`;
    const cached = this.compiled.get(key);
    if (cached) {
      this.compiled.delete(key);
      this.compiled.set(key, cached);
      return cached;
    }
    const result = await timed(metrics.compileDuration, compileProgram({ source, availableModules, unavailable }));
    this.compiled.set(key, result);
    if (this.compiled.size > this.size) this.compiled.delete(this.compiled.keys().next().value as string);
    return result;
  }
}
