// `svc blueprint …`: the Blueprint admin API (apply, add, list, show, remove) and the
// local file tools (lint, add-mcp, capability add).
import type { Command } from 'commander';
import { blueprintName, readBlueprintFile } from '../blueprint-file';
import { expectOk, ServerAccessError, ServerClient, withServerOptions, type ApiReply, type ServerOptions } from '../client';
import { blueprintError, failureFromBody } from '../diagnostics';
import { CliError } from '../errors';
import { alignColumns, withExample } from '../help';
import { say, warn } from '../io';
import type { CliContext } from '../program';

/** A failed Blueprint request rendered with the file's name and the server's position. */
function blueprintReplyError(file: string, reply: ApiReply): CliError {
  const failure = failureFromBody(reply.json, reply.status);
  return failure ? blueprintError(file, failure) : new CliError(`${file}: ${reply.text.trim() || `the server answered ${reply.status}`}`);
}

const segment = (name: string) => encodeURIComponent(name);

export function registerBlueprintCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const blueprint = root.command('blueprint').description('register, inspect, remove and edit Blueprints');
  withExample(blueprint, 'svc blueprint apply blueprints/*.yaml');

  withExample(
    withServerOptions(
      blueprint
        .command('apply')
        .description('register or replace Blueprints from files (PUT /v1/blueprints/{name}; the name is read from each file)')
        .argument('<file...>', 'Blueprint YAML files, one document each'),
    ),
    'svc blueprint apply support.yaml field-notes.yaml',
  ).action(async (files: string[], options: ServerOptions) => {
    const client = ServerClient.from(options, io);
    let failed = 0;
    for (const file of files) {
      try {
        const source = readBlueprintFile(file, io.cwd);
        const name = blueprintName(source);
        const reply = await client.request('PUT', `/v1/blueprints/${segment(name)}`, { body: { yaml: source.text } });
        if (reply.status !== 200) throw blueprintReplyError(file, reply);
        say(io, `${reply.json.created ? 'Added' : 'Updated'} blueprint '${reply.json.name}'`);
      } catch (error) {
        // 401/403/unreachable fail every file alike: stop at the first.
        if (!(error instanceof CliError) || error instanceof ServerAccessError) throw error;
        failed++;
        warn(io, `error: ${error.message}`);
        for (const line of error.details) warn(io, `  ${line}`);
      }
    }
    if (failed > 0) context.setExitCode(1);
  });

  withExample(
    withServerOptions(blueprint.command('add').description('register a new Blueprint (POST /v1/blueprints); refuses a name already registered').argument('<file>', 'Blueprint YAML file')),
    'svc blueprint add support.yaml',
  ).action(async (file: string, options: ServerOptions) => {
    const client = ServerClient.from(options, io);
    const source = readBlueprintFile(file, io.cwd);
    const reply = await client.request('POST', '/v1/blueprints', { body: { yaml: source.text } });
    if (reply.status !== 200) throw blueprintReplyError(file, reply);
    say(io, `Added blueprint '${reply.json.name}'`);
  });

  withExample(
    withServerOptions(blueprint.command('list').description('one line per registered Blueprint: name, vfs mode, default, rule count, packages').option('--json', 'print the summaries as JSON')),
    'svc blueprint list',
    'svc blueprint list --json',
  ).action(async (options: ServerOptions & { json?: boolean }) => {
    const client = ServerClient.from(options, io);
    const summaries: any[] = expectOk(await client.request('GET', '/v1/blueprints')).json.blueprints ?? [];
    if (options.json) {
      say(io, JSON.stringify(summaries, null, 2));
      return;
    }
    if (summaries.length === 0) {
      warn(io, 'no blueprints are registered (add one with `svc blueprint apply <file>`)');
      return;
    }
    const rows = summaries.map((s) => [
      String(s.name),
      `vfs=${s.vfs_mode}`,
      `default=${s.default_action ?? 'deny'}`,
      `rules=${s.rule_count}`,
      `packages=${Array.isArray(s.packages) && s.packages.length > 0 ? s.packages.join(',') : '-'}`,
    ]);
    for (const line of alignColumns(rows)) say(io, line);
  });

  withExample(
    withServerOptions(blueprint.command('show').description('print the stored YAML of a Blueprint, exactly as it was submitted').argument('<name>', 'registered Blueprint name')),
    'svc blueprint show support > support.yaml',
  ).action(async (name: string, options: ServerOptions) => {
    const client = ServerClient.from(options, io);
    const reply = await client.request('GET', `/v1/blueprints/${segment(name)}`);
    if (reply.status !== 200) throw blueprintReplyError(name, reply);
    io.stdout(reply.json.yaml);
  });

  withExample(
    withServerOptions(blueprint.command('remove').description('unregister a Blueprint; its open sessions end').argument('<name>', 'registered Blueprint name')),
    'svc blueprint remove support',
  ).action(async (name: string, options: ServerOptions) => {
    const client = ServerClient.from(options, io);
    const reply = await client.request('DELETE', `/v1/blueprints/${segment(name)}`);
    if (reply.status !== 200) throw blueprintReplyError(name, reply);
    say(io, `Removed blueprint '${reply.json.name}'; its open sessions were ended`);
  });
}
