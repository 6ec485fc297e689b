// What every command group is handed: the terminal, the version, and the exit-status setter.
// Its own file so the command modules and the program that assembles them import it from
// one place and no arrow runs back from a command to the program.
import type { CliIo } from './io';

export interface CliContext {
  io: CliIo;
  version: string;
  /** Sets the exit status for a command that reports its own failures (e.g. `apply` of several files). */
  setExitCode(code: number): void;
}
