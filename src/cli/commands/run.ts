// `svc run <program.ts>`: runs a program locally in this process (same sandbox, limits and
// outbound block as the server; no audit trail), or with --remote on a server, one-off
// under a registered Blueprint or inside an open session. The result goes to standard
// output, console lines to standard error. Exit: 0 ok, 1 the program failed, 2 usage,
// 3 the run could not be attempted.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ExecuteResult } from '../../execution';
import { ServerClient, serverMessage, withServerOptions, type ServerOptions } from '../client';
import { CliError, EXIT_FAILURE, EXIT_NOT_ATTEMPTED, UsageError } from '../errors';
import { withExample } from '../help';
import { secretsFromEnvironment, warn, type CliIo } from '../io';
import type { CliContext } from '../context';

export interface RunOptions extends ServerOptions {
  blueprint?: string;
  var: string[];
  secret: string[];
  remote?: boolean;
  session?: string;
  idempotencyKey?: string;
  allowLocalhost?: boolean;
  allowPrivate?: boolean;
  allowIp: string[];
  addHost: string[];
}

/** Error kinds that mean the program never ran (exit 3), as opposed to a program failure (exit 1). */
const NOT_ATTEMPTED_KINDS = new Set(['blueprint_not_found', 'invalid_request', 'package_resolution']);

/** Repeatable options collect into a list (no default, so help shows none). */
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerRunCommand(root: Command, context: CliContext): void {
  const { io } = context;
  const run = withServerOptions(
    root
      .command('run')
      .description('run a program: locally in this process (default) or on a server with --remote')
      .argument('<program>', 'TypeScript program file defining main()')
      .option('--blueprint <file|name>', 'local: a Blueprint YAML file (default: built-in compute-only); --remote: a registered Blueprint name')
      .option('--var <name=value>', 'bind a Blueprint variable (repeatable)', collect)
      .option('--secret <NAME>', 'supply secret NAME from the environment variable NAME (repeatable; never a value)', collect)
      .option('--allow-localhost', 'local: let outbound calls reach loopback')
      .option('--allow-private', 'local: let outbound calls reach private ranges')
      .option('--allow-ip <ip|cidr>', 'local: let outbound calls reach this address or range (repeatable)', collect)
      .option('--add-host <name=ip>', 'local: resolve this host name to this address, like /etc/hosts (repeatable; also SVC_ADD_HOSTS)', collect)
      .option('--remote', 'send the program to the server instead of running it here')
      .option('--session <id>', '--remote: run inside this open session')
      .option('--idempotency-key <key>', '--remote --session: run at most once for this key (retries get the recorded result)'),
  );
  withExample(
    run,
    'svc run hello.ts',
    'svc run report.ts --blueprint team.yaml --var team=ops --secret GIT_TOKEN --allow-localhost',
    'svc run report.ts --remote --blueprint support --var customerId=42',
    'svc run step.ts --remote --session 3f0c… --idempotency-key step-7',
  );
  run.addHelpText('after', '\nLimits come from the SVC_MAX_* variables (as for svc-server); outbound grants also from SVC_ALLOW_*.\nExit status: 0 ok, 1 the program failed, 2 usage error, 3 the run could not be attempted.\n');
  run.action(async (file: string, given: Partial<RunOptions>) => runAndReport(context, file, given));
}

/** `svc run` (and `svc session run`): runs the program and prints the result, console, error and hints. */
export async function runAndReport(context: CliContext, file: string, given: Partial<RunOptions>): Promise<void> {
  const { io } = context;
  const options: RunOptions = { ...given, var: given.var ?? [], secret: given.secret ?? [], allowIp: given.allowIp ?? [], addHost: given.addHost ?? [] };
  checkCombination(options);
  const code = readProgram(file, io);
  const variables = parseVariables(options.var);
  const secrets = secretsFromEnvironment(options.secret, io);
  let result: ExecuteResult & { consoleAll?: string[] };
  try {
    if (options.remote) result = await runRemote(io, options, code, variables, secrets);
    else {
      // Loaded on demand: the sandbox and standard library are only needed for local runs.
      const { runHere } = await import('../local-run');
      result = await runHere(io, context.version, options, code, variables, secrets);
    }
  } catch (error) {
    // Anything that stopped the run before the program could run is status 3.
    if (error instanceof CliError && error.exitCode === EXIT_FAILURE) throw new CliError(error.message, EXIT_NOT_ATTEMPTED, error.details);
    throw error;
  }
  for (const line of result.consoleAll ?? result.console) warn(io, line);
  for (const entry of result.discovery_warnings ?? []) warn(io, `warning: ${entry}`);
  if (result.error) {
    warn(io, `error: ${nameTheFile(result.error.message, file)}`);
    const { operatorHints } = await import('../run-hints');
    for (const hint of await operatorHints(result, options.remote === true)) warn(io, hint);
    context.setExitCode(NOT_ATTEMPTED_KINDS.has(result.error.kind) ? EXIT_NOT_ATTEMPTED : EXIT_FAILURE);
    return;
  }
  if (result.result !== null) io.stdout(result.result.endsWith('\n') ? result.result : `${result.result}\n`);
}

/** The runtime calls every program `program.ts`; the operator knows it by the file they gave. */
function nameTheFile(message: string, file: string): string {
  return message.replace(/\bprogram\.ts(?=:\d)/g, file).replace(/^compile error in program\.ts\b/, `compile error in ${file}`);
}

function checkCombination(options: RunOptions): void {
  const grants = options.allowLocalhost || options.allowPrivate || options.allowIp.length > 0 || options.addHost.length > 0;
  if (!options.remote) {
    if (options.session !== undefined || options.idempotencyKey !== undefined) throw new UsageError('--session and --idempotency-key need --remote');
    return;
  }
  if (grants) throw new UsageError("--allow-localhost, --allow-private, --allow-ip and --add-host apply to local runs only; with --remote the server's own settings apply");
  if ((options.blueprint === undefined) === (options.session === undefined)) throw new UsageError('--remote needs exactly one of --blueprint <name> (a one-off run) or --session <id>');
  if (options.session !== undefined && (options.var.length > 0 || options.secret.length > 0)) {
    throw new UsageError('--var and --secret bind when a session is created; they cannot be given with --session (rebind the session instead)');
  }
  if (options.idempotencyKey !== undefined && options.session === undefined) throw new UsageError('--idempotency-key needs --session <id>');
}

function readProgram(file: string, io: CliIo): string {
  try {
    return fs.readFileSync(path.resolve(io.cwd, file), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read program ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}`);
  }
}

export function parseVariables(entries: readonly string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`--var expects NAME=VALUE, got \`${entry}\``);
    variables[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return variables;
}

async function runRemote(io: CliIo, options: RunOptions, code: string, variables: Record<string, string>, secrets: Record<string, string>) {
  const client = ServerClient.from(options, io);
  const reply =
    options.session !== undefined
      ? await client.request('POST', '/v1/sessions/{session_id}/execute', {
          params: { path: { session_id: options.session } },
          body: { code },
          ...(options.idempotencyKey !== undefined ? { headers: { 'idempotency-key': options.idempotencyKey } } : {}),
        })
      : // One of --blueprint and --session is given (checked with the options).
        await client.request('POST', '/v1/execute', { body: { code, blueprint: options.blueprint!, variables, secrets } });
  if (reply.status !== 200 || !reply.json || !('error' in reply.json)) {
    const hint = reply.status === 404 && options.session !== undefined ? ['the session is unknown or has ended; create a new one'] : [];
    throw new CliError(`the server refused the run (HTTP ${reply.status}): ${serverMessage(reply)}`, EXIT_NOT_ATTEMPTED, hint);
  }
  const result = reply.json as ExecuteResult;
  if (result.error) return result;
  // A successful execute result carries no console lines; the last-run record has them all.
  const lastRun = await client.request('GET', '/v1/sessions/{session_id}/last-run', { params: { path: { session_id: result.session_id } } });
  return { ...result, consoleAll: lastRun.status === 200 && Array.isArray(lastRun.json?.console) ? (lastRun.json.console as string[]) : [] };
}
