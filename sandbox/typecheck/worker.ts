// Worker-thread entry: type checks off the server's event loop. One long-lived worker keeps
// TypeScript, the parsed library files and a warm checker per declaration set between
// checks. Built as dist/typecheck-worker.js. After its first check it writes the
// compiler's code cache if it had none (compiler.ts) and says so if that failed.
import { parentPort, workerData } from 'node:worker_threads';
import { Checkers } from './checker';
import { saveCodeCache, useCodeCacheDirectory } from './compiler';
import type { CheckerThreadData, CheckRequest } from './types';

useCodeCacheDirectory((workerData as CheckerThreadData | undefined)?.codeCacheDirectory ?? null);
const checkers = new Checkers();
let checked = false;

parentPort!.on('message', (job: (CheckRequest & { id: number }) | { warm: true }) => {
  if ('warm' in job) return checkers.warm();
  // The budget runs from here: loading TypeScript and the libraries in a new worker is not the program's.
  checkers.warm();
  parentPort!.postMessage({ started: job.id });
  try {
    parentPort!.postMessage({ id: job.id, ok: true, result: checkers.check(job) });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, ok: false, failure: 'failed', message: (error as Error)?.message ?? String(error) });
  }
  if (checked) return;
  checked = true;
  const cache = saveCodeCache();
  if (!cache.ok) parentPort!.postMessage({ notice: `the type checker's code cache ${cache.file} could not be written (each checker start compiles TypeScript again): ${cache.message}` });
});
