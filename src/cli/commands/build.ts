// `svc build init | new | check | publish-local` (mcp-and-packages B.2, B.5, B.6): Package
// projects on this machine. publish-local installs into $SVC_HOME/packages, which a server
// with the same SVC_HOME reads as its read-only fallback store.
import path from 'node:path';
import type { Command } from 'commander';
import { PackageError } from '../../packages';
import { checkLocal, initProject, newPackage, publishLocal } from '../../packages/local';
import { CliError, UsageError } from '../errors';
import { withExample } from '../help';
import { envValue, say, warn, type CliIo } from '../io';
import type { CliContext } from '../program';

/** $SVC_HOME, else ~/.svc. */
export function svcHome(io: CliIo): string {
  const home = envValue(io, 'SVC_HOME') ?? (envValue(io, 'HOME') ? path.join(envValue(io, 'HOME')!, '.svc') : null);
  if (!home) throw new UsageError('set SVC_HOME (or HOME) so the CLI knows where its package store is');
  return path.resolve(io.cwd, home);
}

/** --deny-warnings, or SVC_DENY_WARNINGS=1; any other non-empty value is a usage error (B.6). */
export function denyWarnings(io: CliIo, flag: boolean | undefined): boolean {
  const raw = io.env.SVC_DENY_WARNINGS;
  if (raw !== undefined && raw !== '' && raw !== '1') throw new UsageError('SVC_DENY_WARNINGS: expected `1` (on) or empty/unset (off)');
  return flag === true || raw === '1';
}

/** A PackageError as the CLI reports it (build diagnostics are in the message). */
export function packageFailure(error: unknown): never {
  if (error instanceof PackageError) throw new CliError(`${error.code}: ${error.message}`);
  throw error;
}

interface BuildOptions {
  package?: string;
  denyWarnings?: boolean;
}

export function registerBuildCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const build = root.command('build').description('write, check and publish Packages (projects with an svc.toml)');
  withExample(build, 'svc build init @acme/billing billing', 'svc build check', 'svc build publish-local');

  withExample(
    build.command('init').description('start a project with one Package').argument('<name>', 'Package name, @scope/name').argument('[path]', 'project directory (default: the current directory)'),
    'svc build init @acme/billing billing',
  ).action((name: string, target: string | undefined) => {
    try {
      const manifest = initProject(name, path.resolve(io.cwd, target ?? '.'));
      say(io, `Created ${manifest} with ${name} (src/lib.ts, docs/readme.md, tests/)`);
    } catch (error) {
      packageFailure(error);
    }
  });

  withExample(
    build.command('new').description('add another Package to the nearest project').argument('<name>', 'Package name, @scope/name').argument('[path]', 'directory inside the project (default: the name after the scope)'),
    'svc build new @acme/invoices invoices',
  ).action((name: string, target: string | undefined) => {
    try {
      const directory = newPackage(name, io.cwd, target);
      say(io, `Added ${name} in ${directory}`);
    } catch (error) {
      packageFailure(error);
    }
  });

  const buildOptions = (command: Command) =>
    command.option('-p, --package <name>', 'only this Package (and the siblings it needs)').option('--deny-warnings', 'treat every warning as an error (also SVC_DENY_WARNINGS=1)');

  withExample(buildOptions(build.command('check').description('compile, derive capabilities.yaml and report diagnostics')), 'svc build check', 'svc build check -p @acme/billing --deny-warnings').action(
    (options: BuildOptions) => {
      try {
        const result = checkLocal({ cwd: io.cwd, home: svcHome(io), package: options.package, denyWarnings: denyWarnings(io, options.denyWarnings), svcVersion: context.version });
        for (const line of result.warnings) warn(io, line);
        for (const { entry } of result.packages) say(io, `checked ${entry.name} ${entry.version}`);
        say(io, `${result.packages.length} package${result.packages.length === 1 ? '' : 's'} checked, ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}`);
      } catch (error) {
        packageFailure(error);
      }
    },
  );

  withExample(
    buildOptions(build.command('publish-local').description('check, then install into $SVC_HOME/packages (read by a server with the same SVC_HOME)')),
    'svc build publish-local',
  ).action((options: BuildOptions) => {
    try {
      const { build: result, installed } = publishLocal({ cwd: io.cwd, home: svcHome(io), package: options.package, denyWarnings: denyWarnings(io, options.denyWarnings), svcVersion: context.version });
      for (const line of result.warnings) warn(io, line);
      for (const p of installed) say(io, `published ${p.name} ${p.version} to ${p.directory}`);
    } catch (error) {
      packageFailure(error);
    }
  });
}
