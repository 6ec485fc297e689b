// `svc server status | stop`: the ops endpoints GET /v1/status and POST /v1/shutdown.
import type { Command } from 'commander';
import { expectOk, ServerClient, serverCommand, ServerUnreachableError, type ServerOptions } from '../client';
import { say } from '../io';
import { subcommand } from '../help';
import type { CliContext } from '../context';

export function registerServerCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const server = subcommand(root, 'server', 'inspect or stop a running svc-server', ['svc server status --server https://svc.internal:8128']);

  serverCommand(server, 'status', 'show the server\'s bind address, pid, open sessions, Blueprints and runner sandbox level (exit 1 when no server answers)', ['svc server status']).action(async (options: ServerOptions) => {
    const status = expectOk(await ServerClient.from(options, io).request('GET', '/v1/status')).json;
    const blueprints: string[] = Array.isArray(status.blueprints) ? status.blueprints : [];
    const rows: Array<[string, string]> = [
      ['status', String(status.status)],
      ['bind', String(status.bind_addr)],
      ['pid', String(status.pid)],
      ['active sessions', String(status.active_sessions)],
      ['blueprints', blueprints.length > 0 ? blueprints.join(', ') : '(none)'],
      ...runnerSandboxRow(status.runner_sandbox),
    ];
    const width = Math.max(...rows.map(([label]) => label.length)) + 2;
    for (const [label, value] of rows) say(io, `${`${label}:`.padEnd(width)}${value}`);
  });

  serverCommand(server, 'stop', 'ask the server to drain and stop (exit 0 when none is running)', ['svc server stop --server http://127.0.0.1:8128']).action(async (options: ServerOptions) => {
    const client = ServerClient.from(options, io);
    try {
      expectOk(await client.request('POST', '/v1/shutdown'));
    } catch (error) {
      if (error instanceof ServerUnreachableError) {
        say(io, `already stopped (no server at ${client.url})`);
        return;
      }
      throw error;
    }
    say(io, `Stopping svc-server at ${client.url}`);
  });
}

/** `full`, or the level with what runners lack (README "How a run is contained"); nothing from a server that does not say. */
function runnerSandboxRow(sandbox: { level?: unknown; missing?: unknown } | undefined): Array<[string, string]> {
  if (!sandbox || typeof sandbox.level !== 'string') return [];
  const missing = Array.isArray(sandbox.missing) ? sandbox.missing.map(String) : [];
  return [['runner sandbox', missing.length > 0 ? `${sandbox.level} (missing ${missing.join(', ')})` : sandbox.level]];
}
