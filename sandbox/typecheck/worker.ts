// Worker-thread entry: type checks off the server's event loop. One long-lived worker keeps
// TypeScript, the parsed library files and a warm checker per declaration set between
// checks. Built as dist/typecheck-worker.js.
import { parentPort } from 'node:worker_threads';
import { Checkers } from './checker';
import type { CheckRequest } from './types';

const checkers = new Checkers();

parentPort!.on('message', (job: (CheckRequest & { id: number }) | { warm: true }) => {
  if ('warm' in job) return checkers.warm();
  try {
    parentPort!.postMessage({ id: job.id, ok: true, result: checkers.check(job) });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, ok: false, message: (error as Error)?.message ?? String(error) });
  }
});
