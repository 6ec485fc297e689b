// The one door to esbuild's transform service. The service is a Go process that inherits
// this environment: on a small machine one OS thread and a lazier collector halve its CPU
// per transform (measured on 2 cores: 0.9 → 0.45 ms for a hello-world program) without
// slowing it down. An operator's own GOMAXPROCS/GOGC win.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type * as esbuild from 'esbuild';

process.env.GOMAXPROCS ??= '1';
process.env.GOGC ??= '400';

export type { Message } from 'esbuild';
// Required, not imported: an ES module importing it makes Node scan its CommonJS source for
// export names first (cjs-module-lexer), about 10 CPU-ms of every compile thread's start.
const require = createRequire(import.meta.url);
const api = require('esbuild') as typeof esbuild;
const childProcess = require('node:child_process') as typeof import('node:child_process');

/**
 * The service's process, as this thread started it. Only the thread that started a process
 * waits for its exit (libuv reaps the children of its own loop): a compile thread that ended
 * with its service still running left that process a zombie of the server's, one per
 * compile-thread replacement (stopService).
 */
let service: ChildProcess | null = null;

/** Starts the service now (esbuild starts it at the first transform otherwise), keeping its process. */
function startService(): void {
  if (service !== null && service.exitCode === null && service.signalCode === null) return;
  // esbuild spawns its service synchronously inside initialize(), and says nothing of the
  // process: spawn is wrapped for exactly that call to keep it.
  const spawn = childProcess.spawn;
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    const child = spawn(...args);
    service = child;
    return child;
  }) as typeof spawn;
  try {
    void api.initialize({}).catch(() => {});
  } catch {
    // initialize ran before and that service has since died (esbuild allows another only after
    // stop()): the transform then reports the dead service and the thread ends (./worker.ts).
  } finally {
    childProcess.spawn = spawn;
  }
}

export function transform(input: string, options: esbuild.TransformOptions): Promise<esbuild.TransformResult> {
  startService();
  return api.transform(input, options);
}

/** How long a stopped service may take to exit before it is killed outright. */
const SERVICE_EXIT_MS = 2000;

/** Stops this thread's service and waits until its process has exited (and been reaped). */
export async function stopService(): Promise<void> {
  const child = service;
  service = null;
  if (child === null || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  await api.stop();
  const killer = setTimeout(() => child.kill('SIGKILL'), SERVICE_EXIT_MS);
  try {
    await exited;
  } finally {
    clearTimeout(killer);
  }
}
