// The capability catalogue: every capability the standard
// library gates, with the context fields it reports. Registration uses it to refuse
// filters on fields an operation never reports; GET /v1/capabilities lists it.
import { MAIN_REFUSALS } from './decide';

export interface FieldInfo {
  type: 'string' | 'number' | 'boolean';
  description: string;
}

export interface CatalogueEntry {
  name: string;
  source: string;
  summary: string;
  fields: Record<string, FieldInfo>;
  exampleFilter: string | null;
  /** Reason text when the capability is refused to `main` whatever the policy. */
  mainDenial?: string;
}

const path = { type: 'string', description: 'Absolute, normalised VFS path' } as const;
const recursive = { type: 'boolean', description: 'Whether the operation recurses into directories' } as const;
const from = { type: 'string', description: 'Source VFS path' } as const;
const to = { type: 'string', description: 'Destination VFS path' } as const;
const httpFields: Record<string, FieldInfo> = {
  host: { type: 'string', description: 'Lower-case host without port' },
  port: { type: 'number', description: 'Port the request goes to (443 for https, 80 for http when the URL names none)' },
  path: { type: 'string', description: 'URL path without the query' },
  method: { type: 'string', description: 'Upper-case HTTP verb' },
  body_size: { type: 'number', description: 'Encoded request body length in bytes' },
  timeout_ms: { type: 'number', description: 'Timeout in milliseconds (absent on a redirect turned into GET)' },
};
const gitFields: Record<string, FieldInfo> = {
  path,
  remoteName: { type: 'string', description: 'Remote name, e.g. origin' },
  remote: { type: 'string', description: 'Canonical HTTPS remote URL' },
  branch: { type: 'string', description: 'Branch asked for ("" for all)' },
};

const entries: CatalogueEntry[] = [
  { name: 'fs.read', source: 'svc:fs', summary: 'Read a file or stream its contents', fields: { path, length: { type: 'number', description: 'Bytes asked for (readBytes)' }, chunkSize: { type: 'number', description: 'Chunk size of byte streams' } }, exampleFilter: 'path glob "/data/*"' },
  { name: 'fs.write', source: 'svc:fs', summary: 'Create, write, append or edit a file', fields: { path, length: { type: 'number', description: 'Bytes written' }, max_bytes: { type: 'number', description: 'Download size cap' }, diff: { type: 'string', description: 'Code edit as a diff' } }, exampleFilter: 'path glob "/out/*"' },
  { name: 'fs.stat', source: 'svc:fs', summary: 'Check whether a path exists and read its metadata', fields: { path }, exampleFilter: 'path glob "/data/*"' },
  { name: 'fs.list', source: 'svc:fs', summary: 'List, search or walk a directory', fields: { path, recursive }, exampleFilter: 'path == "/data"' },
  { name: 'fs.mkdir', source: 'svc:fs', summary: 'Create a directory', fields: { path, recursive }, exampleFilter: 'path glob "/out/*"' },
  { name: 'fs.remove', source: 'svc:fs', summary: 'Remove a file or directory', fields: { path, recursive }, exampleFilter: 'path glob "/tmp/*"' },
  { name: 'fs.move', source: 'svc:fs', summary: 'Move or rename a file or directory', fields: { from, to }, exampleFilter: 'to glob "/out/*"' },
  { name: 'fs.copy', source: 'svc:fs', summary: 'Copy a file or directory', fields: { from, to, recursive }, exampleFilter: 'to glob "/out/*"' },
  { name: 'git.init', source: 'svc:git', summary: 'Create a repository', fields: { path }, exampleFilter: 'path glob "/repos/*"' },
  { name: 'git.clone', source: 'svc:git', summary: 'Clone a repository over HTTPS', fields: gitFields, exampleFilter: 'remote glob "https://github.com/acme/*"' },
  { name: 'git.fetch', source: 'svc:git', summary: 'Fetch or pull from a remote', fields: gitFields, exampleFilter: 'remote glob "https://github.com/acme/*"' },
  { name: 'git.commit', source: 'svc:git', summary: 'Commit staged changes', fields: { path, branch: { type: 'string', description: 'Checked-out branch' } }, exampleFilter: 'branch != "main"' },
  ...['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map(
    (verb): CatalogueEntry => ({ name: `http.${verb}`, source: 'svc:http', summary: `HTTP ${verb.toUpperCase()} request`, fields: httpFields, exampleFilter: 'host == "api.example.com"' }),
  ),
  {
    name: 'http.download',
    source: 'svc:http',
    summary: 'Stream a response into a file',
    fields: {
      host: httpFields.host,
      port: httpFields.port,
      url_path: { type: 'string', description: 'URL path without the query' },
      vfs_path: { type: 'string', description: 'Destination VFS path' },
      max_bytes: { type: 'number', description: 'Size cap after decompression' },
      overwrite: { type: 'boolean', description: 'Whether an existing file may be replaced' },
      decompress: { type: 'boolean', description: 'Whether the body is decompressed' },
    },
    exampleFilter: 'host == "data.example.com"',
  },
  { name: 'llm.call', source: 'svc:llm', summary: 'Call a language model', fields: { op: { type: 'string', description: 'call, batch or models' }, model: { type: 'string', description: 'Declared model name' }, prompt_count: { type: 'number', description: 'Prompts in the call' } }, exampleFilter: 'model == "small"' },
  { name: 'embedding.embed', source: 'svc:embedding', summary: 'Embed texts', fields: { model: { type: 'string', description: 'Declared embedding model' }, input_count: { type: 'number', description: 'Texts in the call' } }, exampleFilter: 'model == "embed"' },
  {
    name: 'secrets.get',
    source: 'svc:secrets',
    summary: 'Read a secret (Packages only)',
    fields: { name: { type: 'string', description: 'Declared secret name' } },
    exampleFilter: 'name == "API_KEY"',
    mainDenial: MAIN_REFUSALS.get('secrets.get'),
  },
  { name: 'session.read', source: 'svc:session', summary: 'Read session state', fields: { key: { type: 'string', description: 'State key' } }, exampleFilter: 'key glob "notes/*"' },
  { name: 'session.write', source: 'svc:session', summary: 'Write session state', fields: { key: { type: 'string', description: 'State key' } }, exampleFilter: 'key glob "notes/*"' },
  { name: 'session.remove', source: 'svc:session', summary: 'Remove session state', fields: { key: { type: 'string', description: 'State key' } }, exampleFilter: 'key glob "notes/*"' },
  { name: 'session.list', source: 'svc:session', summary: 'List session state keys', fields: { prefix: { type: 'string', description: 'Key prefix' } }, exampleFilter: 'prefix == "notes/"' },
];

export const capabilityCatalogue: readonly CatalogueEntry[] = entries;
const byName = new Map(entries.map((e) => [e.name, e]));

/**
 * Fields an operation reports, or null when nothing provides the capability (not
 * checked). `mcp.<server>` reports tool and transport; any `http.<method>` the verb fields.
 */
export function reportedFields(capability: string, mcpServers: readonly string[]): string[] | null {
  const entry = byName.get(capability);
  if (entry) return Object.keys(entry.fields).sort();
  if (capability.startsWith('mcp.') && mcpServers.includes(capability.slice(4))) return ['tool', 'transport'];
  if (/^http\.[a-z]+$/.test(capability)) return Object.keys(httpFields).sort();
  return null;
}

/**
 * Why a rule's capability name is not one anything would ask for, or null when it is:
 * a catalogue name, `mcp.<declared server>`, or a Package's `domain/name` (checked against
 * the installed Packages at registration). A near catalogue name is suggested.
 */
export function unknownCapabilityProblem(capability: string, mcpServers: readonly string[]): string | null {
  if (byName.has(capability) || capability.includes('/')) return null;
  if (capability.startsWith('mcp.') && mcpServers.includes(capability.slice(4))) return null;
  if (capability.startsWith('mcp.')) return `\`${capability}\` names no server of this Blueprint's \`mcp:\` block${mcpServers.length ? ` (${mcpServers.map((s) => `mcp.${s}`).join(', ')})` : ''}`;
  const near = entries.map((e) => e.name).filter((name) => editDistance(name, capability) <= 2);
  const custom = /^http\.[a-z]+$/.test(capability) ? `; a program's fetch with the custom method ${capability.slice(5).toUpperCase()} is judged as it, so keep it if that is meant` : '';
  return `unknown capability \`${capability}\`${near.length ? `; did you mean ${near.map((n) => `\`${n}\``).join(' or ')}?` : ''}${custom} (\`svc capabilities\` lists them)`;
}

/** Levenshtein distance, for short names only (capability names are a few dozen bytes). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64 || b.length > 64) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
