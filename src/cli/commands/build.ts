// `svc build init | new | check | test | publish-local`: Package
// projects on this machine. publish-local (or `test --publish-local`, after the tests pass)
// installs into $SVC_HOME/packages, which a server with the same SVC_HOME reads as its
// read-only fallback store.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors';
import { subcommand, withExample } from '../help';
import { denyWarnings, say, secretsFromEnvironment, svcHome, warn, type CliIo } from '../io';
import type { CliContext } from '../context';

/** The Package builder and store load when a verb runs, not to print help. */
const packageTools = () => import('../package-tools');

/** Runs `work` with the Package tools loaded; a PackageError it throws becomes the CLI's error (packageFailure). */
async function withPackageTools(work: (tools: Awaited<ReturnType<typeof packageTools>>) => void): Promise<void> {
  const tools = await packageTools();
  try {
    work(tools);
  } catch (error) {
    tools.packageFailure(error);
  }
}

interface BuildOptions {
  package?: string;
  denyWarnings?: boolean;
}

interface TestOptions extends BuildOptions {
  skipNetwork?: boolean;
  allowLocalhost?: boolean;
  allowInsecureHttp?: boolean;
  addHost: string[];
  envVar: string[];
  envFile?: string;
  allEnv?: boolean;
  typecheck: string;
  publishLocal?: boolean;
}

/** `NAME=VALUE` lines (blank lines and `#` comments skipped; optional quotes removed). */
function readEnvFile(file: string, io: CliIo): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`--env-file ${file}: ${(error as Error).message}`);
  }
  const out: Record<string, string> = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new UsageError(`--env-file ${file}:${index + 1}: expected NAME=VALUE`);
    const value = line.slice(at + 1).trim();
    out[line.slice(0, at).trim()] = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  }
  return out;
}

/** Secret values a test run may read: the whole environment, the env file, then named variables. */
function testSecrets(io: CliIo, options: TestOptions): Record<string, string> {
  const secrets: Record<string, string> = {};
  if (options.allEnv) for (const [name, value] of Object.entries(io.env)) if (value !== undefined) secrets[name] = value;
  if (options.envFile) Object.assign(secrets, readEnvFile(options.envFile, io));
  Object.assign(secrets, secretsFromEnvironment(options.envVar, io, '--env-var'));
  return secrets;
}

export function registerBuildCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const build = subcommand(root, 'build', 'write, check and publish Packages (projects with an svc.toml)', ['svc build init @acme/billing billing', 'svc build check', 'svc build publish-local']);

  subcommand(build, 'init', 'start a project with one Package', ['svc build init @acme/billing billing'])
    .argument('<name>', 'Package name, @scope/name')
    .argument('[path]', 'project directory (default: the current directory)')
    .action((name: string, target: string | undefined) =>
      withPackageTools(({ initProject }) => {
        const manifest = initProject(name, path.resolve(io.cwd, target ?? '.'));
        say(io, `Created ${manifest} with ${name} (src/lib.ts, docs/readme.md, tests/)`);
      }),
    );

  subcommand(build, 'new', 'add another Package to the nearest project', ['svc build new @acme/invoices invoices'])
    .argument('<name>', 'Package name, @scope/name')
    .argument('[path]', 'directory inside the project (default: the name after the scope)')
    .action((name: string, target: string | undefined) =>
      withPackageTools(({ newPackage }) => {
        const directory = newPackage(name, io.cwd, target);
        say(io, `Added ${name} in ${directory}`);
      }),
    );

  const buildOptions = (command: Command) =>
    command.option('-p, --package <name>', 'only this Package (and the siblings it needs)').option('--deny-warnings', 'treat every warning as an error (also SVC_DENY_WARNINGS=1)');

  withExample(buildOptions(build.command('check').description('compile, derive capabilities.yaml and report diagnostics')), 'svc build check', 'svc build check -p @acme/billing --deny-warnings').action(
    (options: BuildOptions) =>
      withPackageTools(({ checkLocal }) => {
        const result = checkLocal({ cwd: io.cwd, home: svcHome(io), package: options.package, denyWarnings: denyWarnings(io, options.denyWarnings), svcVersion: context.version });
        for (const line of result.warnings) warn(io, line);
        for (const { entry } of result.packages) say(io, `checked ${entry.name} ${entry.version}`);
        say(io, `${result.packages.length} package${result.packages.length === 1 ? '' : 's'} checked, ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}`);
      }),
  );

  withExample(
    buildOptions(build.command('test').description('check, then run each Package\'s tests/**/*.test.ts (every call and check allowed; checks printed)'))
      .option('--skip-network', 'skip tests/network*.test.ts')
      .option('--env-var <name>', 'a secret the tests may read, from the environment (repeatable)', (value: string, list: string[]) => [...list, value], [])
      .option('--env-file <file>', 'secrets the tests may read, as NAME=VALUE lines')
      .option('--all-env', 'the tests may read the whole environment as secrets')
      .option('--allow-localhost', 'let the tests reach services on loopback (a local stand-in of the real API)')
      .option('--add-host <name=ip>', "resolve this host name to this address, like /etc/hosts (repeatable), e.g. the API's name to 127.0.0.1", (value: string, list: string[]) => [...list, value], [])
      .option('--allow-insecure-http', 'let the tests use plain http:// URLs')
      .option('--typecheck <mode>', 'type-check the test programs and readme examples: strict, on or off (as a Blueprint\'s `typecheck`)', 'on')
      // The tested build itself is installed: no second build of every Package, as a publish-local after the tests would make.
      .option('--publish-local', 'when every test passes, install the tested Packages into $SVC_HOME/packages (as publish-local)'),
    'svc build test',
    'svc build test --allow-localhost --allow-insecure-http --add-host api.acme.com=127.0.0.1',
    'svc build test -p @acme/billing --skip-network',
    'svc build test --publish-local',
    'BILLING_API_KEY=... svc build test --env-var BILLING_API_KEY',
  ).action(async (options: TestOptions) => {
    const { ConfigError, installBuilt, packageFailure, parseRunSettings, TYPECHECK_MODES } = await packageTools();
    const typecheck = TYPECHECK_MODES.find((mode) => mode === options.typecheck);
    if (!typecheck) throw new UsageError(`--typecheck: unknown mode '${options.typecheck}'; expected strict, on or off`);
    let settings;
    try {
      const grants = [...(options.allowLocalhost ? ['--allow-localhost'] : []), ...options.addHost.flatMap((entry) => ['--add-host', entry])];
      settings = parseRunSettings({ argv: grants, env: io.env, cwd: io.cwd });
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    try {
      // Loaded on demand: only this command (and svc run) needs the sandbox.
      const { runPackageTests } = await import('../package-tests');
      const report = await runPackageTests(io, {
        cwd: io.cwd,
        home: svcHome(io),
        package: options.package,
        denyWarnings: denyWarnings(io, options.denyWarnings),
        skipNetwork: options.skipNetwork === true,
        secrets: testSecrets(io, options),
        settings,
        svcVersion: context.version,
        allowInsecureHttp: options.allowInsecureHttp === true,
        typecheck,
      });
      if (report.failed > 0) context.setExitCode(1);
      else if (options.publishLocal) for (const p of installBuilt(report.build, svcHome(io))) say(io, `published ${p.name} ${p.version} to ${p.directory}`);
    } catch (error) {
      packageFailure(error);
    }
  });

  withExample(
    buildOptions(build.command('publish-local').description('check, then install into $SVC_HOME/packages (read by a server with the same SVC_HOME)')),
    'svc build publish-local',
  ).action((options: BuildOptions) =>
    withPackageTools(({ publishLocal }) => {
      const { build: result, installed } = publishLocal({ cwd: io.cwd, home: svcHome(io), package: options.package, denyWarnings: denyWarnings(io, options.denyWarnings), svcVersion: context.version });
      for (const line of result.warnings) warn(io, line);
      for (const p of installed) say(io, `published ${p.name} ${p.version} to ${p.directory}`);
    }),
  );
}
