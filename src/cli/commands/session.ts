// `svc session open | list | run | last-run | close`: a harness's session from the shell (POST
// /v1/sessions, GET /v1/sessions, POST /v1/sessions/{id}/execute, GET …/last-run, DELETE …). Harness
// secrets come from environment variables named on the command line, never values.
import type { Command } from 'commander';
import { expectStatus, ServerClient, serverCommand, serverMessage, type ServerOptions } from '../client';
import { CliError } from '../errors';
import { alignColumns, subcommand } from '../help';
import { say, secretsFromEnvironment } from '../io';
import type { CliContext } from '../context';
import { parseVariables, runAndReport } from './run';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function registerSessionCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const session = subcommand(root, 'session', 'open a session on the server, run programs in it, read its last run, close it', ['svc session open --blueprint support --var customerId=42', 'svc session run <id> step.ts', 'svc session close <id>']).alias('sessions');

  serverCommand(session, 'open', 'open a session under a registered Blueprint and print its id', ['svc session open --blueprint support --var customerId=42 --secret CRM_TOKEN'])
    .requiredOption('--blueprint <name>', 'registered Blueprint name')
    .option('--var <name=value>', 'bind a Blueprint variable (repeatable)', collect)
    .option('--secret <NAME>', 'bind harness secret NAME from the environment variable NAME (repeatable; never a value)', collect)
    .action(async (options: ServerOptions & { blueprint: string; var?: string[]; secret?: string[] }) => {
      const client = ServerClient.from(options, io);
      const body = { blueprint: options.blueprint, variables: parseVariables(options.var ?? []), secrets: secretsFromEnvironment(options.secret ?? [], io) };
      const reply = await client.request('POST', '/v1/sessions', { body });
      if (reply.status !== 200) throw new CliError(`the server refused the session (HTTP ${reply.status}): ${serverMessage(reply)}`, 1);
      say(io, String(reply.json.session_id));
    });

  serverCommand(session, 'list', "one line per open session the token may use (an admin token: every one): id, Blueprint, owner, kind, runs in flight", ['svc session list', 'svc session list --json'])
    .option('--json', 'print the listing as JSON')
    .action(async (options: ServerOptions & { json?: boolean }) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/sessions');
      expectStatus(reply, 200);
      const sessions: Array<Record<string, unknown>> = reply.json.sessions ?? [];
      if (options.json) {
        say(io, JSON.stringify(reply.json, null, 2));
        return;
      }
      if (sessions.length === 0) {
        say(io, `no open sessions (this token may open ${reply.json.max_sessions_per_token})`);
        return;
      }
      const rows = sessions.map((s) => [String(s.session_id), String(s.blueprint), `owner=${s.owner ?? '-'}`, s.mcp ? 'mcp' : 'rest', `runs=${s.runs_in_flight}`]);
      for (const line of alignColumns(rows)) say(io, line);
    });

  serverCommand(session, 'run', 'run a program in the session: result on stdout, console lines on stderr (as `svc run --remote --session`)', ['svc session run 3f0c… step.ts --idempotency-key step-7'])
    .argument('<id>', 'session id')
    .argument('<program>', 'TypeScript program file defining main()')
    .option('--idempotency-key <key>', 'run at most once for this key (retries get the recorded result)')
    .action(async (id: string, file: string, options: ServerOptions & { idempotencyKey?: string }) => {
      await runAndReport(context, file, { ...options, remote: true, session: id });
    });

  serverCommand(session, 'last-run', "print the session's last-run record as JSON (result, full console, error)", ['svc session last-run 3f0c…'])
    .argument('<id>', 'session id')
    .action(async (id: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/sessions/{session_id}/last-run', { params: { path: { session_id: id } } });
      if (reply.status === 404) throw new CliError(`no run is recorded for session ${id} (unknown, ended, or nothing ran yet)`, 1);
      expectStatus(reply, 200);
      say(io, JSON.stringify(reply.json, null, 2));
    });

  serverCommand(session, 'close', 'end the session (its state and per-session files go)', ['svc session close 3f0c…'])
    .argument('<id>', 'session id')
    .action(async (id: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('DELETE', '/v1/sessions/{session_id}', { params: { path: { session_id: id } } });
      if (reply.status === 404) throw new CliError(`session ${id} is unknown (already closed or expired)`, 1);
      expectStatus(reply, 204);
      say(io, `Closed session ${id}`);
    });
}
