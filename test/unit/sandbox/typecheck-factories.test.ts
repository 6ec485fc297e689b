// A checker thread keeps TypeScript's factories (createProgram, createTypeChecker: run once
// per check) out of V8's optimizing compiler, whose compile of them cost seconds of CPU and
// about 100 MiB of resident memory per thread (sandbox/typecheck/factories.ts). The built
// worker is started in a Node with V8's optimization trace on, which names every function
// whose optimization is disabled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FACTORIES } from '../../../sandbox/typecheck/factories';
import { repoRoot } from '../../harness';

/** Starts the checker thread, has it load TypeScript (a warm-up) and ends once it reports its heap. */
const driver = (worker: string) => `
const { Worker } = require('node:worker_threads');
const worker = new Worker(new URL(${JSON.stringify(worker)}), { workerData: { codeCacheDirectory: null } });
worker.on('message', (message) => { if ('heap' in message) process.exit(0); });
worker.postMessage({ warm: true, sets: [] });
`;

test('a checker thread never optimizes the factories a check calls once, and only those', () => {
  const worker = pathToFileURL(path.join(repoRoot, 'dist', 'typecheck-worker.js')).href;
  const run = spawnSync(process.execPath, ['--trace-opt', '-e', driver(worker)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, run.stderr);
  const disabled = [...run.stdout.matchAll(/\[disabled optimization for \S+ <SharedFunctionInfo (\w+)>, reason: Optimization is always disabled\]/g)].map((match) => match[1]);
  assert.deepEqual([...new Set(disabled)].sort(), [...FACTORIES].sort());
});
