// TypeScript's factory functions stay in V8's interpreter in a checker thread. Each check
// calls createProgram and createTypeChecker once; after a few thousand checks V8 takes
// them for hot and compiles them with its optimizing compiler, which for these (29 KB of
// bytecode and thousands of closures in createTypeChecker) took 9-17 s of CPU and about
// 100 MiB of malloc'ed compiler memory per thread, most of it left resident after the
// compile: the checked soak's server growth (bench/soak.ts). The functions they create,
// where checking spends its time, are optimized as before.
import vm from 'node:vm';
import type TypeScript from 'typescript';
import type { V8FlagLock } from '../v8-flags';

export const FACTORIES = ['createTypeChecker', 'createProgram'] as const;

/** `flags` is the process's V8 flag lock: other checker threads turn the same flag at their start. */
export function keepFactoriesInterpreted(ts: typeof TypeScript, flags: V8FlagLock): void {
  // V8 offers this only through its natives syntax, on for the one parse below and off
  // again at once (this thread parses nothing else meanwhile; nothing in the server
  // process parses untrusted JavaScript).
  const neverOptimize = flags.withFlag('allow-natives-syntax', () => vm.runInThisContext('(function (f) { %NeverOptimizeFunction(f); })') as (f: unknown) => void);
  const exported = ts as unknown as Record<string, unknown>;
  for (const name of FACTORIES) if (typeof exported[name] === 'function') neverOptimize(exported[name]);
}
