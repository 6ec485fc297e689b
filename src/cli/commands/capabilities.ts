// `svc capabilities`: the capability catalogue a server judges rules against (GET
// /v1/capabilities): each capability with the fields its filters may test, grouped by the
// module or installed Package that provides it.
import type { Command } from 'commander';
import { expectOk, ServerClient, serverCommand, type ServerOptions } from '../client';
import { say } from '../io';
import type { CliContext } from '../context';

interface CapabilityView {
  name: string;
  summary: string;
  fields: Record<string, { type: string; description: string }>;
  example_filter: string | null;
  main_denial?: string;
}

interface GroupView {
  source: string;
  kind: string;
  capabilities: CapabilityView[];
  requires?: Array<{ capability: string; filter?: string }>;
}

/** One group as text: the capabilities, their fields and an example filter. */
export function renderCapabilityGroup(group: GroupView): string[] {
  const lines = [`${group.source} (${group.kind})`];
  for (const capability of group.capabilities) {
    lines.push(`  ${capability.name}${capability.summary ? `: ${capability.summary}` : ''}`);
    for (const [field, info] of Object.entries(capability.fields).sort(([a], [b]) => (a < b ? -1 : 1))) {
      lines.push(`      ${field} (${info.type})${info.description ? ` ${info.description}` : ''}`);
    }
    if (capability.example_filter) lines.push(`      e.g. filter: '${capability.example_filter}'`);
    if (capability.main_denial) lines.push(`      refused to main: ${capability.main_denial}`);
  }
  for (const required of group.requires ?? []) lines.push(`  requires ${required.capability}${required.filter ? ` where ${required.filter}` : ''}`);
  return lines;
}

export function registerCapabilitiesCommand(root: Command, context: CliContext): void {
  const { io } = context;
  serverCommand(root, 'capabilities', 'list the capabilities rules may name, with the fields their filters may test (standard library and installed Packages)', ['svc capabilities', 'svc capabilities --json'])
    .option('--json', 'print the server\'s answer as JSON')
    .action(async (options: ServerOptions & { json?: boolean }) => {
      const body = expectOk(await ServerClient.from(options, io).request('GET', '/v1/capabilities')).json as { groups: GroupView[] };
      if (options.json) {
        say(io, JSON.stringify(body, null, 2));
        return;
      }
      for (const group of body.groups) for (const line of renderCapabilityGroup(group)) say(io, line);
      say(io, 'mcp.<server>: each server of a Blueprint\'s `mcp:` block, with fields tool and transport');
    });
}
