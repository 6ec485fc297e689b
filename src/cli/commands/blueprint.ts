// `svc blueprint …`: the Blueprint admin API (apply, add, list, show, remove) and the
// local file tools (lint, add-mcp, capability add).
import { Option, type Command } from 'commander';
import type { RuleSpec } from '../blueprint-document';
import { expectOk, ServerAccessError, ServerClient, serverCommand, type ApiReply, type ServerOptions } from '../client';
import { blueprintError, failureFromBody } from '../diagnostics';
import { CliError, UsageError } from '../errors';
import { alignColumns, subcommand } from '../help';
import { envValue, say, svcHome, warn, type CliIo } from '../io';
import type { CliContext } from '../context';

/** The YAML parser loads for the verbs that read a file, not for `list` or help. */
const blueprintFiles = () => import('../blueprint-file');

/**
 * A failed Blueprint request rendered with the file's name and position: the server's,
 * or for registration checks (which report only a path) the path's place in the file.
 */
async function blueprintReplyError(file: string, reply: ApiReply, text?: string): Promise<CliError> {
  const failure = failureFromBody(reply.json, reply.status);
  if (!failure) return new CliError(`${file}: ${reply.text.trim() || `the server answered ${reply.status}`}`);
  const diagnostic = failure.diagnostic;
  if (text !== undefined && diagnostic?.path && diagnostic.line === undefined) {
    const { positionOf } = await import('../yaml-position');
    const at = positionOf(text, diagnostic.path);
    if (at) failure.diagnostic = { ...diagnostic, ...at };
  }
  return blueprintError(file, failure);
}


export function registerBlueprintCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const blueprint = subcommand(root, 'blueprint', 'register, inspect, remove and edit Blueprints', ['svc blueprint apply blueprints/*.yaml']);

  serverCommand(blueprint, 'apply', 'register or replace Blueprints from files (PUT /v1/blueprints/{name}; the name is read from each file)', ['svc blueprint apply support.yaml field-notes.yaml'])
    .argument('<file...>', 'Blueprint YAML files, one document each')
    .action(async (files: string[], options: ServerOptions) => {
      const client = ServerClient.from(options, io);
      const { blueprintName, readBlueprintFile } = await blueprintFiles();
      let failed = 0;
      for (const file of files) {
        try {
          const source = readBlueprintFile(file, io.cwd);
          const name = blueprintName(source);
          const reply = await client.request('PUT', '/v1/blueprints/{name}', { params: { path: { name } }, body: { yaml: source.text } });
          if (reply.status !== 200) throw await blueprintReplyError(file, reply, source.text);
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

  serverCommand(blueprint, 'add', 'register a new Blueprint (POST /v1/blueprints); refuses a name already registered', ['svc blueprint add support.yaml'])
    .argument('<file>', 'Blueprint YAML file')
    .action(async (file: string, options: ServerOptions) => {
      const client = ServerClient.from(options, io);
      const { readBlueprintFile } = await blueprintFiles();
      const source = readBlueprintFile(file, io.cwd);
      const reply = await client.request('POST', '/v1/blueprints', { body: { yaml: source.text } });
      if (reply.status !== 200) throw await blueprintReplyError(file, reply, source.text);
      say(io, `Added blueprint '${reply.json.name}'`);
    });

  serverCommand(blueprint, 'list', 'one line per registered Blueprint: name, vfs mode, default, rule count, packages', ['svc blueprint list', 'svc blueprint list --json'])
    .option('--json', 'print the summaries as JSON')
    .action(async (options: ServerOptions & { json?: boolean }) => {
      const summaries: any[] = expectOk(await ServerClient.from(options, io).request('GET', '/v1/blueprints')).json.blueprints ?? [];
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
        `default=${s.default_action}`,
        `rules=${s.rule_count}`,
        `packages=${Array.isArray(s.packages) && s.packages.length > 0 ? s.packages.join(',') : '-'}`,
      ]);
      for (const line of alignColumns(rows)) say(io, line);
    });

  serverCommand(blueprint, 'show', 'print the stored YAML of a Blueprint, exactly as it was submitted', ['svc blueprint show support > support.yaml'])
    .argument('<name>', 'registered Blueprint name')
    .action(async (name: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/blueprints/{name}', { params: { path: { name } } });
      if (reply.status !== 200) throw await blueprintReplyError(name, reply);
      io.stdout(reply.json.yaml);
    });

  serverCommand(blueprint, 'remove', 'unregister a Blueprint; its open sessions end', ['svc blueprint remove support'])
    .argument('<name>', 'registered Blueprint name')
    .action(async (name: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('DELETE', '/v1/blueprints/{name}', { params: { path: { name } } });
      if (reply.status !== 200) throw await blueprintReplyError(name, reply);
      say(io, `Removed blueprint '${reply.json.name}'; its open sessions were ended`);
    });

  registerFileCommands(blueprint, context);
}

/** Default file of the editing verbs. */
const DEFAULT_FILE = 'blueprint.yaml';

/** `--deny-warnings` or SVC_DENY_WARNINGS=1 (any other value is a usage error). */
function denyWarnings(io: CliIo, flag: boolean | undefined): boolean {
  const raw = envValue(io, 'SVC_DENY_WARNINGS');
  if (raw !== undefined && raw.trim() !== '1') throw new UsageError(`$SVC_DENY_WARNINGS: expected \`1\` or unset, got \`${raw}\``);
  return flag === true || raw !== undefined;
}

/** The verbs that read or edit a local Blueprint file: lint, add-mcp, capability add; and the schema they follow. */
function registerFileCommands(blueprint: Command, context: CliContext): void {
  const { io } = context;
  subcommand(blueprint, 'schema', "print the Blueprint document's JSON Schema (the same as docs/blueprint.schema.json), for an editor's YAML support", ['svc blueprint schema > blueprint.schema.json']).action(async () => {
    const { blueprintJsonSchema } = await import('../../blueprints/schema');
    say(io, JSON.stringify(blueprintJsonSchema(), null, 2));
  });

  subcommand(blueprint, 'lint', "check Blueprint files locally with the server's parser (server state such as volumes, stored secrets and installed Packages is checked at apply)", ['svc blueprint lint support.yaml'])
    .argument('<file...>', 'Blueprint YAML files')
    .option('--deny-warnings', 'treat warnings as errors (also SVC_DENY_WARNINGS=1)')
    .action(async (files: string[], options: { denyWarnings?: boolean }) => {
      const strict = denyWarnings(io, options.denyWarnings);
      // The server's parser and policy code load only for the verbs that need them.
      const { lintBlueprintFile } = await import('../lint');
      let failed = 0;
      for (const file of files) {
        const result = lintBlueprintFile(file, io.cwd);
        if (!result.ok) {
          failed++;
          warn(io, `error: ${result.error.message}`);
          for (const line of result.error.details) warn(io, `  ${line}`);
          continue;
        }
        for (const line of result.warnings) warn(io, `warning: ${line}`);
        if (strict && result.warnings.length > 0) {
          failed++;
          warn(io, `error: ${file}: ${result.warnings.length} warning(s) treated as errors`);
          continue;
        }
        say(io, `ok ${file}: blueprint '${result.blueprint.name}'${result.warnings.length > 0 ? ` with ${result.warnings.length} warning(s)` : ''}`);
      }
      if (failed > 0) context.setExitCode(1);
    });

  subcommand(blueprint, 'add-mcp', "declare an MCP server in a Blueprint file and add an unfiltered `deny` rule for it under `main` (grant tools with `capability add`)", ["svc blueprint add-mcp linear https://mcp.linear.app/mcp -f support.yaml"])
    .argument('<name>', 'server name (A–Z a–z 0–9 _ -): becomes @mcp/<name> and capability mcp.<name>')
    .argument('<url>', 'the server\'s https:// URL')
    .option('-f, --file <path>', 'Blueprint file to edit', DEFAULT_FILE)
    .option('--oauth', 'the server uses OAuth (adds `auth: {type: oauth2}`; log in later)')
    .action(async (name: string, url: string, options: { file: string; oauth?: boolean }) => {
      const { BlueprintDocument } = await import('../blueprint-document');
      const document = BlueprintDocument.open(options.file, io.cwd);
      document.addMcpServer(name, url, { oauth: options.oauth });
      document.save();
      say(io, `Added mcp server '${name}' to ${options.file} (denied to main until you grant it: svc blueprint capability add mcp.${name} --filter 'tool == "<tool>"')`);
    });

  subcommand(blueprint, 'add-package', "list an installed Package in a Blueprint file and allow its own calls (its derived `requires`, also for its dependencies); grants the program nothing unless asked", ['svc blueprint add-package @acme/billing -f support.yaml', 'svc blueprint add-package @svc/github --capabilities github.com/issues.get,github.com/issues.list'])
    .argument('<name>', 'Package name, @scope/name (from $SVC_HOME/server/packages or $SVC_HOME/packages)')
    .option('-f, --file <path>', 'Blueprint file to edit', DEFAULT_FILE)
    .option('--capabilities <names>', 'also allow these provided capabilities to main (comma-separated)')
    .option('--all-capabilities', 'also allow every capability the Package provides to main')
    .option('--no-capabilities', 'grant main nothing (the default)')
    .action(async (name: string, options: { file: string; capabilities?: string | boolean; allCapabilities?: boolean }) => {
      const { packageClosureInfo } = await import('../package-info');
      const closure = packageClosureInfo(svcHome(io), name);
      const provided = closure[0].provides;
      let grants: string[] = [];
      if (options.allCapabilities) grants = provided;
      else if (typeof options.capabilities === 'string') {
        grants = options.capabilities.split(',').map((c) => c.trim()).filter(Boolean);
        const unknown = grants.filter((c) => !provided.includes(c));
        if (unknown.length > 0) throw new UsageError(`${name} does not provide ${unknown.join(', ')}; it provides: ${provided.join(', ') || 'nothing'}`);
      }
      const { BlueprintDocument } = await import('../blueprint-document');
      const document = BlueprintDocument.open(options.file, io.cwd);
      const result = document.addPackage(name, closure);
      for (const capabilityName of grants) if (document.addRule('main', { capability: capabilityName, action: 'allow' })) result.rules.push({ caller: 'main', rule: { capability: capabilityName, action: 'allow' } });
      document.save();
      say(io, result.listed ? `Listed ${name} in ${options.file}` : `${name} was already listed in ${options.file}`);
      for (const { caller, rule } of result.rules) say(io, `  allow ${rule.capability}${rule.filter ? ` (filter ${rule.filter})` : ''} for ${caller}`);
      const declared = document.declaredSecrets();
      for (const secret of closure.flatMap((p) => p.secrets)) {
        if (!declared.has(secret)) warn(io, `warning: ${name} reads secret ${secret}, which ${options.file} does not declare under \`secrets:\` (declare it with a store or harness source)`);
      }
      if (grants.length === 0 && provided.length > 0) say(io, `main may use none of its capabilities yet; grant them with \`svc blueprint capability add <capability> -f ${options.file}\` (provided: ${provided.join(', ')})`);
    });

  const capability = subcommand(blueprint, 'capability', 'edit the permission rules of a Blueprint file', ["svc blueprint capability add fs.read --filter 'path glob \"/data/**\"' -f team.yaml"]);
  subcommand(capability, 'add', 'add a rule for a capability; it goes before any unfiltered rule for the same capability, so it can match', ["svc blueprint capability add mcp.linear --filter 'tool == \"save_issue\"' -f support.yaml"])
    .argument('<capability>', 'capability name, e.g. fs.read, http.get, mcp.linear')
    .option('--filter <expr>', 'filter expression the use must satisfy (quote it for the shell)')
    .option('--caller <caller>', 'whose rules: main or a Package name such as @acme/billing', 'main')
    .addOption(new Option('--action <action>', 'what the rule decides').choices(['allow', 'deny', 'ask-human']).default('allow'))
    .option('--name <label>', 'optional rule label (unique within the caller)')
    .option('-f, --file <path>', 'Blueprint file to edit', DEFAULT_FILE)
    .action(async (name: string, options: { filter?: string; caller: string; action: RuleSpec['action']; name?: string; file: string }) => {
      if (name.trim() === '') throw new UsageError('the capability name is empty');
      const { BlueprintDocument } = await import('../blueprint-document');
      const document = BlueprintDocument.open(options.file, io.cwd);
      const rule: RuleSpec = { capability: name, action: options.action, ...(options.filter !== undefined ? { filter: options.filter } : {}), ...(options.name ? { name: options.name } : {}) };
      if (!document.addRule(options.caller, rule)) {
        say(io, `${options.file} already has this rule for ${options.caller}; nothing changed`);
        return;
      }
      document.save();
      say(io, `Added ${options.action} rule for ${name}${options.filter !== undefined ? ` (filter ${options.filter})` : ''} under ${options.caller} in ${options.file}`);
    });
}
