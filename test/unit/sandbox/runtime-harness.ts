// Shared set-up for the runtime tests: a real RunnerPool with real runner processes,
// programs compiled by the real compile pipeline, and a scriptable host handler.
import assert from 'node:assert/strict';
import { compileProgram, RunnerPool, type HostHandler, type RunLimits, type RunOutcome } from '../../../sandbox';

export const DEFAULT_LIMITS: RunLimits = { memoryMb: 50, timeMs: 20_000, fuel: 1_000_000_000_000, stackKib: 512 };

/** A host with one module, `svc:test`, whose functions tests script per call. */
export const TEST_MODULES = { 'svc:test': ['echo', 'deny', 'fail', 'quota', 'bytes'] };

export const testHost: HostHandler = async (call) => {
  switch (call.op) {
    case 'echo':
      return { ok: true, value: call.args[0], fuel: 16 };
    case 'bytes':
      return { ok: true, value: new Uint8Array([1, 2, 3]), fuel: 16 };
    case 'deny':
      return {
        ok: false,
        fuel: 416,
        error: {
          name: 'PermissionDeniedError',
          message: 'permission denied: caller=main capability=fs.read: policy denied fs.read on /x for main.',
          caller: 'main',
          capability: 'fs.read',
          reason: 'policy denied fs.read on /x for main',
          source: 'policy',
        },
      };
    case 'quota':
      return { ok: false, fuel: 16, error: { name: 'QuotaExceededError', message: 'the file area is full' } };
    default:
      return { ok: false, fuel: 16, error: { name: 'Error', message: 'upstream broke', code: 'E_UPSTREAM' } };
  }
};

export async function startPool(size = 2): Promise<RunnerPool> {
  const pool = new RunnerPool({ size, memoryMb: DEFAULT_LIMITS.memoryMb });
  await pool.start();
  return pool;
}

let counter = 0;

export async function runProgram(pool: RunnerPool, source: string, options: { limits?: Partial<RunLimits>; signal?: AbortSignal; host?: HostHandler } = {}): Promise<RunOutcome> {
  const compiled = await compileProgram({ source, availableModules: Object.keys(TEST_MODULES) });
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.error.message);
  return pool.run(
    {
      executionId: `test-${++counter}`,
      script: compiled.script,
      hostModules: Object.fromEntries(compiled.script.hostModules.map((m) => [m, TEST_MODULES[m as keyof typeof TEST_MODULES]])),
      limits: { ...DEFAULT_LIMITS, ...options.limits },
      signal: options.signal,
    },
    options.host ?? testHost,
  );
}

/** The pool still runs an ordinary program correctly. */
export async function assertHealthy(pool: RunnerPool): Promise<void> {
  const outcome = await runProgram(pool, 'export function main() { return [1, 2, 3].map((x) => x * 2).join(","); }');
  assert.equal(outcome.error, null, outcome.error?.message);
  assert.equal(outcome.result, '2,4,6');
}
