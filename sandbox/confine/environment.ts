// The environment a runner starts with: built from an allow-list, never the server's own,
// so neither the secret store's key, the admin token nor any credential an operator
// exported reaches a process that hosts guest code. It reads the server's environment
// because filtering that environment is its whole job.

/** Variables a runner may inherit: time zone and locale (what guest dates and strings observe). */
const INHERITED = ['TZ', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE', 'LC_TIME', 'LC_NUMERIC', 'LC_MONETARY', 'LC_MESSAGES'] as const;

/**
 * Set only by the test harness: the runner then runs its confinement self-test at start
 * (sandbox/runner/self-test.ts). The server adds its own pid, the one target a test cannot
 * know before the server starts.
 */
export const SELF_TEST_VARIABLE = 'SVC_TEST_RUNNER_SELF_TEST';
export const SELF_TEST_SERVER_PID_VARIABLE = 'SVC_TEST_RUNNER_SERVER_PID';
/**
 * Set only by the test harness: a run whose source holds this variable's value breaks its
 * runner as a fatal out-of-memory would (sandbox/runner/break-hook.ts).
 */
export const BREAK_HOOK_VARIABLE = 'SVC_TEST_RUNNER_BREAK_MARK';
/**
 * Set only by the memory soak (bench/soak.ts): the runner then writes what its memory holds,
 * part by part, to its stderr every few seconds (sandbox/runner/memory-report.ts).
 */
export const MEMORY_REPORT_VARIABLE = 'SVC_BENCH_RUNNER_MEMORY';

/**
 * isolated-vm runs isolates on a pool of threads, and glibc gives each thread a malloc arena of
 * its own (up to eight per core): memory freed on one was kept resident in pieces across all,
 * and a runner grew by about 40 MiB over 16,000 new programs with every cache bounded. With two
 * arenas it stays within a band (soak of 20,000 new programs, typecheck off, first quarter to
 * end: +40/+44 -> -35/+13 MiB; runs/s 61 -> 65, within noise).
 */
const ARENAS = { MALLOC_ARENA_MAX: '2' } as const;
/**
 * glibc raises its mmap threshold (up to 32 MiB) each time a block mapped on its own is
 * freed, and from then on serves blocks of that size from the main arena, where what is freed
 * between live blocks stays resident and the top is trimmed only past a threshold raised with
 * it. Both fixed at glibc's starting 128 KiB (setting them turns the raising off): over 20,000
 * new programs (typecheck off) each runner's main arena stayed level (band growth +0 MiB,
 * against +3/+5 without; +13/+16 with 200 runs per isolate; bench/PROFILE.md, round 32).
 * glibc's older variable names: its tunables variable is rewritten in place at start.
 */
const THRESHOLDS = { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' } as const;
/**
 * glibc's allocator settings (read from the environment only): an operator's own, set in the
 * server's environment, reach the runners and win over svc's. An operator who sets any of the
 * thresholds (or GLIBC_TUNABLES, which may hold them) gets none of svc's: glibc's order
 * between the two spellings is the environment's.
 */
const ALLOCATOR_SETTINGS = ['MALLOC_ARENA_MAX', 'GLIBC_TUNABLES', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TOP_PAD_'] as const;
const OWN_THRESHOLDS = ['GLIBC_TUNABLES', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_MMAP_THRESHOLD_'] as const;

export function runnerEnvironment(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = { ...ARENAS, ...(OWN_THRESHOLDS.some((name) => from[name] !== undefined) ? {} : THRESHOLDS) };
  for (const name of [...INHERITED, ...ALLOCATOR_SETTINGS]) {
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  const selfTest = from[SELF_TEST_VARIABLE];
  if (selfTest !== undefined) {
    env[SELF_TEST_VARIABLE] = selfTest;
    env[SELF_TEST_SERVER_PID_VARIABLE] = String(process.pid);
  }
  const breakMark = from[BREAK_HOOK_VARIABLE];
  if (breakMark !== undefined) env[BREAK_HOOK_VARIABLE] = breakMark;
  if (from[MEMORY_REPORT_VARIABLE] === '1') env[MEMORY_REPORT_VARIABLE] = '1';
  return env;
}
