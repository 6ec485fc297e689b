// `svc approvals list | show | approve | deny`: the approvals `ask-human` calls wait on
// (GET /v1/approvals, GET and POST /v1/approvals/{id}; admin token). Approving lets the
// parked call through; denying (with --reason) fails it with PermissionDeniedError, source human.
import type { ApprovalState } from '../../approvals/approval';
import { Option, type Command } from 'commander';
import { refusalWithHint, ServerClient, serverCommand, type ServerOptions } from '../client';
import { subcommand } from '../help';
import { say, warn } from '../io';
import type { CliContext } from '../context';

const HINTS: Record<string, string> = {
  unknown_approval: 'list the pending ones with `svc approvals list`',
  approval_decided: 'the first answer settles an approval (REST, CLI or an MCP client); see it with `svc approvals show <id>`',
};

/** One line per approval: id, state, capability, caller, run, Blueprint, expiry. */
function line(a: Record<string, unknown>): string {
  const context = a.context as Record<string, unknown> | undefined;
  const target = typeof context?.path === 'string' ? ` ${context.host ?? ''}${context.path}` : '';
  return `${a.approval_id}  ${a.state}  ${a.capability}${target}  caller=${a.caller}  blueprint=${a.blueprint}  token=${a.token_name}  run=${a.execution_id}  expires=${a.expires_at}`;
}

interface ListOptions extends ServerOptions {
  state?: string;
  blueprint?: string;
  session?: string;
  run?: string;
  json?: boolean;
}

export function registerApprovalCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const approvals = subcommand(root, 'approvals', 'answer the approvals that ask-human calls wait on (admin token)', ['svc approvals list', 'svc approvals approve <approval-id> --scope run', 'svc approvals deny <approval-id> --reason "refunds need a ticket"']).alias('approval');

  serverCommand(approvals, 'list', 'list approvals, newest first (default: the pending ones)', ['svc approvals list', 'svc approvals list --state denied --blueprint billing'])
    .addOption(new Option('--state <state>', 'which ones').choices(['pending', 'approved', 'denied', 'expired']))
    .option('--blueprint <name>', 'only this Blueprint\'s')
    .option('--session <id>', 'only this session\'s')
    .option('--run <execution-id>', 'only this run\'s')
    .option('--json', 'print the JSON answer')
    .action(async (options: ListOptions) => {
      const client = ServerClient.from(options, io);
      // An unknown state is the server's 400 (it names the accepted ones).
      const query = { state: options.state as ApprovalState | undefined, blueprint: options.blueprint, session_id: options.session, execution_id: options.run };
      const reply = await client.request('GET', '/v1/approvals', { params: { query } });
      if (reply.status !== 200) throw refusalWithHint(reply, HINTS);
      const list: Array<Record<string, unknown>> = Array.isArray(reply.json?.approvals) ? reply.json.approvals : [];
      if (options.json) say(io, JSON.stringify(reply.json, null, 2));
      else if (list.length === 0) warn(io, `no ${options.state ?? 'pending'} approvals`);
      else for (const approval of list) say(io, line(approval));
    });

  serverCommand(approvals, 'show', 'print one approval as JSON', ['svc approvals show 4a844d5f-fea4-4f76-8bef-b287e8ef8872'])
    .argument('<approval-id>', 'the approval')
    .action(async (id: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/approvals/{approval_id}', { params: { path: { approval_id: id } } });
      if (reply.status !== 200) throw refusalWithHint(reply, HINTS);
      say(io, JSON.stringify(reply.json, null, 2));
    });

  for (const verb of ['approve', 'deny'] as const) {
    serverCommand(approvals, verb, verb === 'approve' ? 'let the waiting call through the gate' : 'refuse the waiting call: the program gets PermissionDeniedError (source human) with the reason', [`svc approvals ${verb} <approval-id>${verb === 'deny' ? ' --reason "not this week"' : ' --scope run'}`])
      .argument('<approval-id>', 'the approval')
      .option('--reason <text>', 'why (at most 1,000 characters; a denial\'s reason reaches the program)')
      .addOption(new Option('--scope <scope>', '`run`: later identical calls (same capability and context) of the run pass without asking').choices(['call', 'run']))
      .action(async (id: string, options: ServerOptions & { reason?: string; scope?: 'call' | 'run' }) => {
        const body = { decision: verb, ...(options.reason !== undefined ? { reason: options.reason } : {}), ...(options.scope ? { scope: options.scope } : {}) };
        const reply = await ServerClient.from(options, io).request('POST', '/v1/approvals/{approval_id}', { params: { path: { approval_id: id } }, body });
        if (reply.status !== 200) throw refusalWithHint(reply, HINTS);
        say(io, `${verb === 'approve' ? 'Approved' : 'Denied'} ${reply.json.approval_id} (${reply.json.capability}, caller ${reply.json.caller}, run ${reply.json.execution_id})`);
      });
  }
}
