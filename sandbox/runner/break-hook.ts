// Test-only: a program that breaks its runner on purpose, the way an allocation V8 cannot
// survive does (isolated-vm's catastrophic error naming that run, then the process ends).
// The watchdog tests need a break that happens every time: whether a real allocation attack
// ends in V8's fatal out-of-memory (the runner dies) or in isolated-vm's own memory limit (the
// isolate is disposed, the runner retires and its other runs finish) depends on how much heap
// the prelude leaves below the limit, which changes whenever the prelude grows. Active only
// when the server was started with the test variable (sandbox/confine/environment.ts passes
// it through); nothing here runs in a server started without it.
import { BREAK_HOOK_VARIABLE } from '../confine/environment';
import type { FromRunner } from './protocol';

/** The message isolated-vm gives for the break this stands in for. */
export const BREAK_HOOK_MESSAGE = 'Catastrophic out-of-memory error (the runner test hook)';

/** The mark a program's source must hold to break its runner, or null when the hook is off. */
function breakMark(env: NodeJS.ProcessEnv): string | null {
  const mark = env[BREAK_HOOK_VARIABLE];
  // A short mark would match ordinary programs by accident.
  return mark !== undefined && mark.length >= 16 ? mark : null;
}

const mark = breakMark(process.env);

/** Breaks this runner when the run's source holds the test mark: reports the run as the cause, then exits. */
export function breakRunnerIfAsked(runId: number, code: string, send: (message: FromRunner, sent: () => void) => void): boolean {
  if (mark === null || !code.includes(mark)) return false;
  send({ type: 'catastrophic', message: BREAK_HOOK_MESSAGE, runId }, () => process.exit(70));
  return true;
}
