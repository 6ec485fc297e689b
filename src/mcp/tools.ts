// The eight MCP tools, answered for one svc session. Descriptions
// are computed from the Blueprint in force on every tools/list.
import type { Blueprint } from '../blueprints';
import { builtinsDocs, BUILTIN_FUNCTIONS, BUILTIN_NAMESPACES, BUILTIN_TYPES, executePrompt, packageDocs, searchPackages, toolDescriptions, type McpPackageView, type ToolNames, type RegistryLookup } from '../discovery';
import type { HostModule } from '../stdlib';
import { violation, type JsonSchema } from '../json-schema';
import { MCP_TOOL_INPUTS } from './tool-inputs';
import path from 'node:path';
import { z } from 'zod';

export const MCP_TOOL_NAMES: ToolNames = {
  search: 'svc__typescript__packages__search',
  docs: 'svc__typescript__packages__docs',
  builtinsDocs: 'svc__typescript__builtins__docs',
  lastRun: 'svc__typescript__last_run',
};

const READ_ONLY = { readOnlyHint: true };

type ToolSchema = { type: 'object'; properties: Record<string, JsonSchema>; required?: string[]; additionalProperties: false };

/** The JSON Schemas of the eight tools' inputs (from their zod declarations); arguments are validated against them before any work. */
export const TOOL_SCHEMAS = Object.fromEntries(
  Object.entries(MCP_TOOL_INPUTS).map(([name, input]) => {
    const { $schema: _draft, ...schema } = z.toJSONSchema(input, { io: 'input' });
    return [name, schema as ToolSchema];
  }),
) as Record<keyof typeof MCP_TOOL_INPUTS, ToolSchema>;

export function toolList(blueprint: Blueprint) {
  const d = toolDescriptions(MCP_TOOL_NAMES);
  return [
    { name: 'svc__typescript__execute', description: executePrompt(blueprint, MCP_TOOL_NAMES), inputSchema: TOOL_SCHEMAS.svc__typescript__execute },
    { name: 'svc__typescript__last_run', description: d.last_run, inputSchema: TOOL_SCHEMAS.svc__typescript__last_run, annotations: READ_ONLY },
    { name: 'svc__typescript__packages__search', description: d.search, inputSchema: TOOL_SCHEMAS.svc__typescript__packages__search, annotations: READ_ONLY },
    { name: 'svc__typescript__packages__docs', description: d.docs, inputSchema: TOOL_SCHEMAS.svc__typescript__packages__docs, annotations: READ_ONLY },
    { name: 'svc__typescript__builtins__list', description: d.builtins_list, inputSchema: TOOL_SCHEMAS.svc__typescript__builtins__list, annotations: READ_ONLY },
    { name: 'svc__typescript__builtins__docs', description: d.builtins_docs, inputSchema: TOOL_SCHEMAS.svc__typescript__builtins__docs, annotations: READ_ONLY },
    {
      name: 'svc__files__read',
      description: "Reads a text file of this session's file area as a window of lines: offset is 1-based (default 1), limit defaults to 2000 (at most 5000); continue with next_offset while has_more. Needs fs.read.",
      inputSchema: TOOL_SCHEMAS.svc__files__read,
      annotations: READ_ONLY,
    },
    {
      name: 'svc__files__list',
      description: "Lists a directory of this session's file area (default the working directory; recursive optional), at most 1000 entries sorted by path, with kind and size. Needs fs.list.",
      inputSchema: TOOL_SCHEMAS.svc__files__list,
      annotations: READ_ONLY,
    },
  ];
}

/** The JSON types a property accepts (`type`, or the alternatives of a nullable's `anyOf`). */
function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).flatMap(typesOf);
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
}

/** Clients that send every argument as a string get booleans, numbers and `names` converted. */
function coerce(name: string, key: string, value: unknown, schema: JsonSchema): unknown {
  if (typeof value !== 'string') return value;
  const types = typesOf(schema);
  if (types.includes('boolean') && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  if (types.includes('integer') && /^-?\d+$/.test(value.trim())) return Number(value);
  if (types.includes('number') && value.trim() !== '' && Number.isFinite(Number(value))) {
    try {
      const parsed = JSON.parse(value);
      if (typeof parsed === 'number') return parsed;
    } catch {
      // not a JSON number: left as is, fails validation
    }
  }
  if (name === 'svc__typescript__builtins__docs' && key === 'names' && types.includes('array')) {
    try {
      const parsed = JSON.parse(value);
      if (Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')) return parsed;
    } catch {
      // a single name
    }
    return [value];
  }
  return value;
}

/** Coerces and validates a tool's arguments (the server's JSON-Schema validator); unknown properties are refused. */
export function checkArguments(name: string, raw: Record<string, unknown>): { ok: true; args: Record<string, unknown> } | { ok: false; answer: ToolAnswer } {
  const schema: ToolSchema | undefined = Object.hasOwn(TOOL_SCHEMAS, name) ? TOOL_SCHEMAS[name as keyof typeof TOOL_SCHEMAS] : undefined;
  if (!schema) return { ok: true, args: raw };
  const fail = (message: string) => ({ ok: false as const, answer: errorAnswer('invalid_arguments', `${name}: ${message}`) });
  const unknown = Object.keys(raw).filter((k) => !Object.hasOwn(schema.properties, k));
  const accepted = Object.keys(schema.properties);
  if (unknown.length > 0) return fail(`unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')}; accepted: ${accepted.length ? accepted.map((k) => `\`${k}\``).join(', ') : 'none'}`);
  const args = Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, coerce(name, key, value, schema.properties[key])]));
  const problem = violation(schema, args);
  return problem ? fail(problem) : { ok: true, args };
}

/** `isError` results carry `{error: {kind, message}}`. */
export function errorAnswer(kind: string, message: string): ToolAnswer {
  const body = { error: { kind, message } };
  return { structured: body, text: JSON.stringify(body), isError: true };
}

export type ToolAnswer = { structured?: Record<string, unknown>; text: string; isError?: boolean };

/** `@mcp/` Package views for this session (only `only` when given); none without an MCP client. */
export type McpViews = (only?: string) => Promise<McpPackageView[]>;

export async function discoveryTool(name: string, args: Record<string, unknown>, blueprint: Blueprint, modules: ReadonlyMap<string, HostModule>, packages?: RegistryLookup, mcp: McpViews = async () => []): Promise<ToolAnswer | null> {
  switch (name) {
    case 'svc__typescript__packages__search': {
      const out = searchPackages(blueprint, modules, String(args.query ?? ''), 'built-ins need no import: use svc__typescript__builtins__list', packages, await mcp());
      return { structured: out, text: JSON.stringify(out) };
    }
    case 'svc__typescript__packages__docs': {
      const wanted = String(args.name ?? '');
      const answer = packageDocs(blueprint, modules, wanted, packages, wanted.startsWith('@mcp/') ? await mcp(wanted.slice(5)) : []);
      // A Package's Markdown is one text item.
      if (answer.kind === 'markdown') return { text: answer.text };
      return { structured: answer.body, text: JSON.stringify(answer.body), isError: answer.kind !== 'json' };
    }
    case 'svc__typescript__builtins__list': {
      const out = { namespaces: BUILTIN_NAMESPACES, types: BUILTIN_TYPES, functions: BUILTIN_FUNCTIONS };
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

const READ_DEFAULT_LIMIT = 2000;
const READ_MAX_LIMIT = 5000;
const MAX_LINE_CHARS = 2000;
const LIST_MAX_ENTRIES = 1000;

/** `fs.read /a/b: no such file` → `/a/b: no such file`; host paths never appear (fs messages use guest paths). */
function fileMessage(message: string): string {
  return message.replace(/^fs\.[A-Za-z]+:? /, '');
}

/** Runs one standard-library operation for `main` (validated and gated like a program's call). */
export type InvokeOperation = (module: string, op: string, args: unknown[]) => Promise<unknown>;

/**
 * The two file tools over the standard library's own operations, so the decision,
 * path normalisation and file-area rules are the runtime's; only the shapes are the tool's.
 */
export async function filesTool(name: 'svc__files__read' | 'svc__files__list', invoke: InvokeOperation, cwd: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  try {
    if (name === 'svc__files__read') {
      const raw = String(args.path);
      const content = (await invoke('svc:fs', 'read', [raw])) as Uint8Array | null;
      const shown = path.posix.resolve(cwd, raw);
      if (content === null) return errorAnswer('file_error', `${shown}: the file is too large to read with this tool`);
      const decoded = new TextDecoder('utf-8').decode(content);
      const text = decoded.startsWith('\uFEFF') ? decoded.slice(1) : decoded;
      const all = text === '' ? [] : text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
      if (text.endsWith('\n')) all.pop();
      const offset = typeof args.offset === 'number' ? args.offset : 1;
      const limit = Math.min(READ_MAX_LIMIT, Math.max(1, typeof args.limit === 'number' ? args.limit : READ_DEFAULT_LIMIT));
      let truncatedLines = 0;
      const window = all.slice(offset - 1, offset - 1 + limit).map((line) => {
        if (line.length <= MAX_LINE_CHARS) return line;
        truncatedLines++;
        return `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`;
      });
      const hasMore = offset - 1 + window.length < all.length;
      const body = {
        path: shown,
        content: window.join('\n'),
        line_start: window.length > 0 ? offset : null,
        line_end: window.length > 0 ? offset + window.length - 1 : null,
        returned_lines: window.length,
        has_more: hasMore,
        next_offset: hasMore ? offset + window.length : null,
        truncated_lines: truncatedLines,
        bytes: content.byteLength,
      };
      return { structured: body, text: JSON.stringify(body) };
    }
    const raw = typeof args.path === 'string' ? args.path : '.';
    const entries = (await invoke('svc:fs', 'list', [raw, args.recursive === true])) as Array<{ kind: string; path: string; size: number }>;
    const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const shown = sorted.slice(0, LIST_MAX_ENTRIES).map((e) => ({ path: e.path, kind: e.kind, bytes: e.kind === 'file' ? e.size : 0 }));
    const body = { path: path.posix.resolve(cwd, raw), entries: shown, count: shown.length, truncated: sorted.length > LIST_MAX_ENTRIES };
    return { structured: body, text: JSON.stringify(body) };
  } catch (error) {
    const e = error as Error;
    if (e.name === 'PermissionDeniedError') return errorAnswer('permission_denied', e.message);
    return errorAnswer('file_error', fileMessage(e.message));
  }
}
