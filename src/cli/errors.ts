// Typed failures of the svc CLI. Each carries the exit status it ends the process with:
// 1 refused/unreachable/server error, 2 usage error, and for
// `svc run` 3 when the run could not be attempted.
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOT_ATTEMPTED = 3;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
    /** Extra lines printed after `error: <message>` (what to do next, a diagnostic path). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A malformed command line or invocation setting (bad URL, empty token file, …). */
export class UsageError extends CliError {
  constructor(message: string, details: readonly string[] = []) {
    super(message, EXIT_USAGE, details);
    this.name = 'UsageError';
  }
}
