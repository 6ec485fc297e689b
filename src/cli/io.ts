// What a command may touch of its process: environment, working directory, the three
// standard streams. Passed in (never read from `process` inside commands) so the entry
// point is the only place that knows about the real process.
import path from 'node:path';
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

/** $SVC_HOME, else ~/.svc: where this machine's Package store and OAuth providers live. */
export function svcHome(io: CliIo): string {
  const home = envValue(io, 'SVC_HOME') ?? (envValue(io, 'HOME') ? path.join(envValue(io, 'HOME')!, '.svc') : null);
  if (!home) throw new UsageError('set SVC_HOME (or HOME) so the CLI knows where its package store is');
  return path.resolve(io.cwd, home);
}

/** --deny-warnings, or SVC_DENY_WARNINGS=1; any other non-empty value is a usage error. */
export function denyWarnings(io: CliIo, flag: boolean | undefined): boolean {
  const raw = io.env.SVC_DENY_WARNINGS;
  if (raw !== undefined && raw !== '' && raw !== '1') throw new UsageError('SVC_DENY_WARNINGS: expected `1` (on) or empty/unset (off)');
  return flag === true || raw === '1';
}
