// The eight MCP tools (mcp-and-packages A.7), answered for one svc session. Descriptions
// are computed from the Blueprint in force on every tools/list.
import type { Blueprint } from '../blueprints';
import { builtinsDocs, BUILTIN_NAMESPACES, BUILTIN_TYPES, executePrompt, packageDocs, searchPackages, toolDescriptions, type ToolNames, type RegistryLookup } from '../discovery';
import type { HostModule } from '../stdlib';

export const MCP_TOOL_NAMES: ToolNames = {
  search: 'svc__typescript__packages__search',
  docs: 'svc__typescript__packages__docs',
  builtinsDocs: 'svc__typescript__builtins__docs',
  lastRun: 'svc__typescript__last_run',
};

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, ...(required.length ? { required } : {}) });

export function toolList(blueprint: Blueprint) {
  const d = toolDescriptions(MCP_TOOL_NAMES);
  return [
    { name: 'svc__typescript__execute', description: executePrompt(blueprint, MCP_TOOL_NAMES), inputSchema: object({ code: { type: 'string', description: 'TypeScript program defining main()' } }, ['code']) },
    { name: 'svc__typescript__last_run', description: d.last_run, inputSchema: object({}) },
    { name: 'svc__typescript__packages__search', description: d.search, inputSchema: object({ query: { type: 'string' } }) },
    { name: 'svc__typescript__packages__docs', description: d.docs, inputSchema: object({ name: { type: 'string' } }, ['name']) },
    { name: 'svc__typescript__builtins__list', description: d.builtins_list, inputSchema: object({}) },
    { name: 'svc__typescript__builtins__docs', description: d.builtins_docs, inputSchema: object({ names: { type: 'array', items: { type: 'string' } } }, ['names']) },
    {
      name: 'svc__files__read',
      description: "Reads a text file of this session's file area as a window of numbered lines (offset 1-based, default 1; limit default 200, at most 2000).",
      inputSchema: object({ path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } }, ['path']),
    },
    {
      name: 'svc__files__list',
      description: "Lists a directory of this session's file area (at most 1000 entries) with kinds and sizes.",
      inputSchema: object({ path: { type: 'string' }, recursive: { type: 'boolean' } }),
    },
  ];
}

export type ToolAnswer = { structured?: Record<string, unknown>; text: string; isError?: boolean };

export function discoveryTool(name: string, args: Record<string, unknown>, blueprint: Blueprint, modules: ReadonlyMap<string, HostModule>, packages?: RegistryLookup): ToolAnswer | null {
  switch (name) {
    case 'svc__typescript__packages__search': {
      const out = searchPackages(blueprint, modules, String(args.query ?? ''), 'built-ins need no import: use svc__typescript__builtins__list', packages);
      return { structured: out, text: JSON.stringify(out) };
    }
    case 'svc__typescript__packages__docs': {
      const answer = packageDocs(blueprint, modules, String(args.name ?? ''), packages);
      // A Package's Markdown is one text item.
      if (answer.kind === 'markdown') return { text: answer.text };
      return { structured: answer.body, text: JSON.stringify(answer.body), isError: answer.kind !== 'json' };
    }
    case 'svc__typescript__builtins__list': {
      const out = { namespaces: BUILTIN_NAMESPACES, types: BUILTIN_TYPES };
      return { structured: out, text: JSON.stringify(out) };
    }
    case 'svc__typescript__builtins__docs': {
      const names = Array.isArray(args.names) ? args.names.map(String) : typeof args.names === 'string' ? [args.names] : [];
      const out = builtinsDocs(blueprint, modules, names, 'svc__typescript__packages__docs');
      return { structured: out, text: JSON.stringify(out) };
    }
    default:
      return null;
  }
}
