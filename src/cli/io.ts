// What a command may touch of its process: environment, working directory, the three
// standard streams. Passed in (never read from `process` inside commands) so the entry
// point is the only place that knows about the real process.
import { UsageError } from './errors';
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadStream | NodeJS.ReadableStream;
}

/** A variable's value, with an empty (or blank) variable counting as unset. */
export function envValue(io: CliIo, name: string): string | undefined {
  const value = io.env[name];
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

/** Prints a line on standard output. */
export function say(io: CliIo, line: string): void {
  io.stdout(`${line}\n`);
}

/** Prints a line on standard error. */
export function warn(io: CliIo, line: string): void {
  io.stderr(`${line}\n`);
}

/** Secret values come from the environment only, so none lands in shell history. */
export function secretsFromEnvironment(names: readonly string[], io: CliIo, flag = '--secret'): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of names) {
    if (name.includes('=')) throw new UsageError(`${flag} takes a name, never a value: export ${name.split('=')[0]} in the environment and pass ${flag} ${name.split('=')[0]}`);
    const value = envValue(io, name);
    if (value === undefined) throw new UsageError(`${flag} ${name}: the environment variable ${name} is not set (or empty)`);
    secrets[name] = value;
  }
  return secrets;
}
