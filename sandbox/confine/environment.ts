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

export function runnerEnvironment(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
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
  return env;
}
