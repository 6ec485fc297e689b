// Assembles the `svc` command from one module per command group. A group registers its
// verbs on the root command; later groups (build, install, packages, docs, mcp) plug in
// the same way by adding a line to COMMAND_GROUPS.
import { Command, CommanderError } from 'commander';
import { registerBlueprintCommands } from './commands/blueprint';
import { registerMcpCommands } from './commands/mcp';
import { registerRunCommand } from './commands/run';
import { registerReplayCommand } from './commands/replay';
import { registerSecretCommands } from './commands/secret';
import { registerApprovalCommands } from './commands/approvals';
import { registerServerCommands } from './commands/server';
import { registerBuildCommands } from './commands/build';
import { registerDocsCommand } from './commands/docs';
import { registerCapabilitiesCommand } from './commands/capabilities';
import { registerSessionCommands } from './commands/session';
import { registerRunsCommands } from './commands/runs';
import { registerInstallCommand } from './commands/install';
import { registerPackagesCommands } from './commands/packages';
import { CliError, EXIT_OK, EXIT_USAGE } from './errors';
import { withExample } from './help';
import type { CliContext } from './context';
import type { CliIo } from './io';

/** What the entry point supplies; runCli adds the exit-status holder. */
export type CliEnvironment = Omit<CliContext, 'setExitCode'>;

export type CommandGroup = (root: Command, context: CliContext) => void;

const COMMAND_GROUPS: readonly CommandGroup[] = [
  registerBlueprintCommands,
  registerSecretCommands,
  registerServerCommands,
  registerRunCommand,
  registerReplayCommand,
  registerSessionCommands,
  registerRunsCommands,
  registerBuildCommands,
  registerInstallCommand,
  registerPackagesCommands,
  registerDocsCommand,
  registerCapabilitiesCommand,
  registerMcpCommands,
  registerApprovalCommands,
];

/** Applies the root's output, error and exit handling to a command and its children. */
function configure(command: Command, io: CliIo): void {
  command
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (text, write) => write(text) })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  for (const child of command.commands) configure(child, io);
}

export function buildProgram(context: CliContext): Command {
  const root = new Command('svc')
    .description('Operator CLI for svc-server: Blueprints, secrets, server control and local program runs.')
    .version(`svc ${context.version}`, '-V, --version', 'print the version')
    .helpCommand(true);
  withExample(root, 'svc blueprint apply support.yaml', 'svc server status', 'svc run hello.ts');
  root.addHelpText(
    'after',
    '\nCommands that talk to a server take --server <url> (SVC_SERVER_URL) and --token-file <path>\n(SVC_SERVER_TOKEN_FILE); otherwise the token comes from SVC_SERVER_TOKEN.\nExit status: 0 success, 1 failure, 2 usage error (svc run: 3 when the run could not be attempted).\n',
  );
  for (const register of COMMAND_GROUPS) register(root, context);
  configure(root, context.io);
  return root;
}

/** Runs the CLI and returns the exit status; nothing here calls process.exit. */
export async function runCli(argv: readonly string[], environment: CliEnvironment): Promise<number> {
  let exitCode = EXIT_OK;
  const context: CliContext = { ...environment, setExitCode: (code) => (exitCode = code) };
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; every other parser complaint is a usage error.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof CliError) {
      context.io.stderr(`error: ${error.message}\n`);
      for (const line of error.details) context.io.stderr(`  ${line}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
