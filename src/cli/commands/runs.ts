// `svc runs list | show | wait | cancel`: run records from the shell (GET /v1/runs, GET
// /v1/runs/{id} with `wait`, POST /v1/runs/{id}/cancel). A `user` token sees its own runs,
// an `admin` token every run.
import type { RunState } from '../../runs/record';
import type { Command } from 'commander';
import { expectStatus, ServerClient, serverCommand, serverMessage, type ApiReply, type ServerOptions } from '../client';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from '../errors';
import { alignColumns, subcommand } from '../help';
import { say, warn } from '../io';
import type { CliContext } from '../context';

const runParams = (id: string) => ({ path: { execution_id: id } });
/** The longest the server holds one request (its `wait` ceiling); longer waits ask again. */
const SERVER_WAIT_SECONDS = 60;

interface ListOptions extends ServerOptions {
  state?: string;
  session?: string;
  blueprint?: string;
  limit?: string;
  json?: boolean;
}

export function registerRunsCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const runs = subcommand(root, 'runs', 'look up runs (started with Prefer: respond-async or not), wait for one, cancel one', ['svc runs list --state running', 'svc runs wait <execution-id>', 'svc runs cancel <execution-id>']);

  serverCommand(runs, 'list', 'one line per run, newest first: id, state, Blueprint, entry point, started, finished', ['svc runs list --state running', 'svc runs list --blueprint support --limit 10 --json'])
    .option('--state <state>', 'only runs in this state: queued, running, waiting_for_approval or finished')
    .option('--session <id>', 'only runs of this session')
    .option('--blueprint <name>', 'only runs under this Blueprint')
    .option('--limit <n>', 'at most this many (1-500, default 50)')
    .option('--json', 'print the listing as JSON')
    .action(async (options: ListOptions) => {
      // An unknown state is the server's 400 (it names the accepted ones).
      const query = { state: options.state as RunState | undefined, session_id: options.session, blueprint: options.blueprint, limit: options.limit };
      const reply = await ServerClient.from(options, io).request('GET', '/v1/runs', { params: { query } });
      if (reply.status === 400) throw new CliError(serverMessage(reply), EXIT_USAGE);
      expectStatus(reply, 200, EXIT_FAILURE);
      if (options.json) {
        say(io, JSON.stringify(reply.json, null, 2));
        return;
      }
      const list: Array<Record<string, unknown>> = reply.json.runs ?? [];
      if (list.length === 0) {
        say(io, 'no runs');
        return;
      }
      const rows = list.map((r) => [String(r.execution_id), String(r.state), String(r.blueprint), String(r.entry_point), String(r.started_at), r.finished_at === null ? '-' : String(r.finished_at)]);
      for (const line of alignColumns(rows)) say(io, line);
    });

  serverCommand(runs, 'show', 'print the run record as JSON (with its result once finished)', ['svc runs show 3f0c…'])
    .argument('<id>', 'execution id')
    .action(async (id: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/runs/{execution_id}', { params: runParams(id) });
      say(io, JSON.stringify(recordOf(reply, id), null, 2));
    });

  serverCommand(runs, 'wait', 'wait until the run finishes, then print it as `svc run` does: result on stdout, console lines and error on stderr', ['svc runs wait 3f0c…', 'svc runs wait 3f0c… --timeout 30'])
    .argument('<id>', 'execution id')
    .option('--timeout <seconds>', 'give up after this many seconds (exit 1, the run goes on)', '600')
    .action(async (id: string, options: ServerOptions & { timeout: string }) => {
      if (!/^[0-9]{1,7}$/.test(options.timeout)) throw new CliError(`--timeout takes a whole number of seconds, got \`${options.timeout}\``, EXIT_USAGE);
      const client = ServerClient.from(options, io);
      let left = Number(options.timeout);
      let record: Record<string, any>;
      for (;;) {
        // The server holds each request until the run finishes or its wait runs out.
        const wait = Math.min(left, SERVER_WAIT_SECONDS);
        record = recordOf(await client.request('GET', '/v1/runs/{execution_id}', { params: { ...runParams(id), query: { wait: String(wait) } } }), id);
        left -= wait;
        if (record.state === 'finished' || left <= 0) break;
      }
      if (record.state !== 'finished') throw new CliError(`run ${id} is still ${record.state} after ${options.timeout} s; it goes on (\`svc runs wait ${id}\` again, or \`svc runs cancel ${id}\`)`, EXIT_FAILURE);
      const result = record.result ?? {};
      for (const line of result.console ?? []) warn(io, line);
      if (result.error) {
        warn(io, `error: ${result.error.message}`);
        context.setExitCode(EXIT_FAILURE);
        return;
      }
      if (typeof result.result === 'string') io.stdout(result.result.endsWith('\n') ? result.result : `${result.result}\n`);
    });

  serverCommand(runs, 'cancel', 'stop a run in flight; it ends `cancelled`', ['svc runs cancel 3f0c…'])
    .argument('<id>', 'execution id')
    .action(async (id: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('POST', '/v1/runs/{execution_id}/cancel', { params: runParams(id) });
      if (reply.status === 409) throw new CliError(`run ${id} has already finished; nothing to cancel (\`svc runs show ${id}\` for its result)`, EXIT_FAILURE);
      recordOf(reply, id, 202);
      say(io, `Cancelling run ${id} (\`svc runs wait ${id}\` to see it end)`);
    });
}

/** The record of a run answer, or the CLI error for its refusal. */
function recordOf(reply: ApiReply, id: string, expected = 200): Record<string, any> {
  if (reply.status === 404) throw new CliError(`no run ${id} is known to this token (unknown, expired, or another token's)`, EXIT_FAILURE);
  if (reply.status === 400) throw new CliError(serverMessage(reply), EXIT_USAGE);
  expectStatus(reply, expected, EXIT_FAILURE);
  return reply.json as Record<string, any>;
}
