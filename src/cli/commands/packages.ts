// `svc packages install | remove | list` over the admin API.
import type { Command } from 'commander';
import { refusalText, ServerClient, serverCommand, type ApiReply, type ServerOptions } from '../client';
import { CliError } from '../errors';
import { alignColumns, subcommand } from '../help';
import { denyWarnings, say, warn } from '../io';
import type { CliContext } from '../context';

function refusal(reply: ApiReply): CliError {
  const code = typeof reply.json?.error === 'string' ? `${reply.json.error}: ` : '';
  return new CliError(`${code}${refusalText(reply)}`);
}

export function registerPackagesCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const packages = subcommand(root, 'packages', "install, list and remove Packages in the server's store", ['svc packages install acme/billing-pkgs@v1.2.0 @acme/billing']);

  serverCommand(packages, 'install', 'install Packages from a GitHub repository into the server (dependencies first)', ['svc packages install acme/billing-pkgs@v1.2.0 @acme/billing'])
    .argument('<repo>', 'owner/repo, github.com/owner/repo or https://github.com/owner/repo, optionally @<ref>')
    .argument('[package]', 'only this Package of the repository (and what it needs)')
    .option('--ref <ref>', 'branch, tag or commit (wins over @<ref>)')
    .option('--upgrade', 'replace a Package installed from a different commit')
    .option('--deny-warnings', 'fail on any code warning (also SVC_DENY_WARNINGS=1)')
    .action(async (repo: string, name: string | undefined, options: ServerOptions & { ref?: string; upgrade?: boolean; denyWarnings?: boolean }) => {
      const client = ServerClient.from(options, io);
      const body = { url: repo, ref: options.ref ?? null, package: name ?? null, upgrade: options.upgrade === true, deny_warnings: denyWarnings(io, options.denyWarnings) };
      const reply = await client.request('POST', '/v1/packages/install', { body });
      for (const line of (reply.json?.warnings as string[] | undefined) ?? []) warn(io, line);
      if (reply.status !== 200) throw refusal(reply);
      for (const p of reply.json.installed as Array<{ name: string; version: string; digest: string }>) say(io, `installed ${p.name} ${p.version} (${p.digest})`);
      for (const p of reply.json.up_to_date as Array<{ name: string; version: string }>) say(io, `up to date ${p.name} ${p.version}`);
      say(io, `commit ${reply.json.sha}`);
    });

  serverCommand(packages, 'list', 'list installed Packages (own store and the read-only fallback)', ['svc packages list']).action(async (options: ServerOptions) => {
    const reply = await ServerClient.from(options, io).request('GET', '/v1/packages');
    if (reply.status !== 200) throw refusal(reply);
    const rows = (reply.json.packages as Array<{ name: string; version: string; managed: boolean; description: string }>).map((p) => [p.name, p.version, p.managed ? 'managed' : 'fallback', p.description]);
    for (const line of alignColumns([['NAME', 'VERSION', 'STORE', 'DESCRIPTION'], ...rows])) say(io, line);
  });

  serverCommand(packages, 'remove', 'remove a Package from the server store', ['svc packages remove @acme/billing'])
    .argument('<name>', '@scope/name')
    .action(
      async (name: string, options: ServerOptions) => {
        const reply = await ServerClient.from(options, io).request('DELETE', '/v1/packages/{name}', { params: { path: { name } } });
        if (reply.status !== 200) throw refusal(reply);
        say(io, `removed ${reply.json.name} ${reply.json.version ?? ''}`.trimEnd());
        if (reply.json.still_available_from) say(io, `still available from the fallback store ${reply.json.still_available_from}`);
      },
    );
}
