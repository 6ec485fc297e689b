// TypeScript's factory functions stay in V8's interpreter in a checker thread. Each check
// calls createProgram and createTypeChecker once; after a few thousand checks V8 takes
// them for hot and compiles them with its optimizing compiler, which for these (29 KB of
// bytecode and thousands of closures in createTypeChecker) took 9-17 s of CPU and about
// 100 MiB of malloc'ed compiler memory per thread, most of it left resident after the
// compile: the checked soak's server growth (bench/soak.ts). The functions they create,
// where checking spends its time, are optimized as before.
import v8 from 'node:v8';
import vm from 'node:vm';
import type TypeScript from 'typescript';

export const FACTORIES = ['createTypeChecker', 'createProgram'] as const;

export function keepFactoriesInterpreted(ts: typeof TypeScript): void {
  // V8 offers this only through its natives syntax, on for the one parse below and off
  // again at once (this thread parses nothing else meanwhile; nothing in the server
  // process parses untrusted JavaScript).
  v8.setFlagsFromString('--allow-natives-syntax');
  let neverOptimize: (f: unknown) => void;
  try {
    neverOptimize = vm.runInThisContext('(function (f) { %NeverOptimizeFunction(f); })') as (f: unknown) => void;
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
  const exported = ts as unknown as Record<string, unknown>;
  for (const name of FACTORIES) if (typeof exported[name] === 'function') neverOptimize(exported[name]);
}
