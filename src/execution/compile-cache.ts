// Compiled programs kept by source hash and the modules in scope: agents often resend the
// same program (retries, loops), and a compile is the costliest step before a run. Every new
// program adds one, so they are bounded by bytes (`compile_cache_size`), not only by count.
import { compileProgram, type CompileResult, type ProgramScript } from '../../sandbox';
import { boundedCache, textBytes } from '../../sandbox/bounded-cache';
import { metrics, timed } from '../metrics';

/**
 * Default of `compile_cache_size`, in megabytes: COMPILE_CACHE_ENTRIES hello-world programs (about
 * 2.2 KB each by the count below), a few thousand of a few KB, enough for an agent's retries and
 * loops.
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

/**
 * A compile result as the cache keeps it. A program's texts (code, source map, sources) are
 * kept as UTF-8 in one byte array of their own, outside V8's heap: held as strings, the
 * cache's churn (one program in, the least recently used out) left the main thread's old space
 * fragmented, its reserved heap rising 70 -> 86 MiB over 20,000 new programs while what it
 * kept alive stayed level (bench/PROFILE.md, round 78). A hit decodes them again (a few
 * microseconds for a few KB).
 */
type KeptCompile =
  | { packed: true; script: Omit<ProgramScript, 'code' | 'sourceMap' | 'sources'>; sourceNames: string[]; texts: Buffer; ends: number[] }
  | { packed: false; result: CompileResult };

/**
 * Whether UTF-8 holds `text` exactly: no UTF-16 surrogate without its pair, which would come
 * back as U+FFFD (`String.prototype.isWellFormed`, native in Node 20; not in TypeScript's ES2022 lib).
 */
const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

function keep(result: CompileResult): KeptCompile {
  if (!result.ok) return { packed: false, result };
  const { code, sourceMap, sources, ...script } = result.script;
  const sourceNames = Object.keys(sources);
  const parts = [code, sourceMap, ...sourceNames.map((name) => sources[name])];
  // A source sent with a lone surrogate (JSON can carry one) is kept as it came, exactly.
  if (!parts.every(wellFormed)) return { packed: false, result };
  // Its own allocation (not a slice of Node's shared pool, which one small entry would keep alive).
  const texts = Buffer.allocUnsafeSlow(parts.reduce((sum, part) => sum + Buffer.byteLength(part, 'utf8'), 0));
  const ends: number[] = [];
  let at = 0;
  for (const part of parts) ends.push((at += texts.write(part, at, 'utf8')));
  return { packed: true, script, sourceNames, texts, ends };
}

function restore(kept: KeptCompile): CompileResult {
  if (!kept.packed) return kept.result;
  const { texts, ends } = kept;
  const text = (i: number) => texts.toString('utf8', i === 0 ? 0 : ends[i - 1], ends[i]);
  const sources: Record<string, string> = {};
  kept.sourceNames.forEach((name, i) => (sources[name] = text(i + 2)));
  return { ok: true, script: { ...kept.script, code: text(0), sourceMap: text(1), sources } };
}

/** What a result held as it came holds in text: code, source map and sources (two bytes a character), or the error report. */
function resultBytes(result: CompileResult): number {
  return result.ok ? textBytes(result.script.code) + textBytes(result.script.sourceMap) + Object.values(result.script.sources).reduce((sum, source) => sum + textBytes(source), 0) : textBytes(JSON.stringify(result.error));
}

/** What an entry costs besides its texts and key: the script's other fields, the offsets, the cache's own node. */
const ENTRY_OVERHEAD_BYTES = 256;

/** What a kept result holds: its texts' UTF-8 bytes and its sources' names (or a result's as it came), its key, and the overhead. */
function keptBytes(kept: KeptCompile, key: string): number {
  const own = kept.packed ? kept.texts.byteLength + kept.sourceNames.reduce((sum, name) => sum + textBytes(name), 0) : resultBytes(kept.result);
  return own + textBytes(key) + ENTRY_OVERHEAD_BYTES;
}

/** Compile results, the least recently used dropped first past the byte budget (failures too: the same program fails the same way). */
export class CompileCache {
  private readonly compiled;

  constructor(maxBytes = COMPILE_CACHE_MEGABYTES * 1024 * 1024) {
    this.compiled = maxBytes > 0 ? boundedCache<KeptCompile>({ maxBytes, maxEntries: COMPILE_CACHE_ENTRIES, sizeOf: keptBytes }) : null;
  }

  async compile({ source, sourceHash, availableModules, unavailable }: CacheableCompile): Promise<CompileResult> {
    const key = `${sourceHash}:${availableModules.join(',')}:${JSON.stringify(unavailable)}`;
    const cached = this.compiled?.get(key);
    if (cached) return restore(cached);
    const result = await timed(metrics.compileDuration, compileProgram({ source, availableModules, unavailable }));
    if (this.compiled) {
      this.compiled.set(key, keep(result));
      metrics.compileCacheBytes.set(this.compiled.calculatedSize);
      metrics.compileCacheEntries.set(this.compiled.size);
    }
    return result;
  }
}
