// The one door to esbuild's transform service. The service is a Go process that inherits
// this environment: on a small machine one OS thread and a lazier collector halve its CPU
// per transform (measured on 2 cores: 0.9 → 0.45 ms for a hello-world program) without
// slowing it down. An operator's own GOMAXPROCS/GOGC win.
import { createRequire } from 'node:module';
import type * as esbuild from 'esbuild';

process.env.GOMAXPROCS ??= '1';
process.env.GOGC ??= '400';

export type { Message } from 'esbuild';
// Required, not imported: an ES module importing it makes Node scan its CommonJS source for
// export names first (cjs-module-lexer), about 10 CPU-ms of every compile thread's start.
export const { transform } = createRequire(import.meta.url)('esbuild') as typeof esbuild;
