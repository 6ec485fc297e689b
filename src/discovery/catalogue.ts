// Package search and docs over the standard-library modules a
// Blueprint makes visible, plus suggestions for near misses.
import type { Blueprint } from '../blueprints';
import type { HostModule } from '../stdlib';
import { builtinDeclarations, isBuiltinName, BUILTIN_NAMESPACES, BUILTIN_TYPES } from './builtins';
import { visibleModules } from './prompt';

const DESCRIPTIONS: Record<string, string> = {
  code: 'Workspace tools over the file area: line windows, search, glob, tree, exact edits, diffs and patches',
  fs: 'Files of the sandbox file area: read, write, list, move, inspect',
  http: 'Outbound HTTP(S) requests and downloads into the file area',
  url: 'Parse, build and encode URLs and query strings',
  crypto: 'Hashes, HMAC, secure random bytes, constant-time comparison',
  uuid: 'Generate and validate UUIDs (v4, v7)',
  session: 'Small JSON key/value state kept for this session across runs',
  llm: "The Blueprint's language models, single or batched, optional JSON Schema output",
  embedding: "Text embeddings from the Blueprint's embedding models",
  git: 'Git repositories in the file area: init, clone, status, diff, commit, branches, fetch, pull',
};

/** Lookup counters (for telemetry; reported by /v1/status). */
export const lookupCounters = { package_search: 0, package_docs: 0, builtins_list: 0, builtins_docs: 0 };

export interface SearchEntry {
  name: string;
  description: string;
  source: 'host' | 'registry' | 'mcp';
}

/** A Blueprint Package as discovery shows it (read from the store by src/packages). */
export interface RegistryPackage {
  name: string;
  version: string;
  description: string;
  keywords: string[];
  values: string[];
  types: string[];
  readme: string;
  declarations: string;
}

/** An installed, loadable Package by name, or null when it is missing or will not load. */
export type RegistryLookup = (name: string) => RegistryPackage | null;

type Candidate = SearchEntry & { symbols: string[] };

/** The Blueprint's Packages that load, sorted by name. */
function registryEntries(blueprint: Blueprint, registry: RegistryLookup | undefined): Candidate[] {
  if (!registry) return [];
  return [...blueprint.packages]
    .sort()
    .map((name) => registry(name))
    .filter((p): p is RegistryPackage => p !== null)
    .map((p) => ({
      name: p.name,
      // A blank description falls back to a text naming the Package and its version.
      description: p.description.trim() || `Package ${p.name} ${p.version}`,
      source: 'registry' as const,
      symbols: [...p.keywords, ...p.values, ...p.types],
    }));
}

function symbolsOf(declarations: string): string[] {
  return [...declarations.matchAll(/(?:function|interface|type|class)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]);
}

export function visibleEntries(blueprint: Blueprint, modules: ReadonlyMap<string, HostModule>): Array<SearchEntry & { symbols: string[]; declarations: string }> {
  return visibleModules(blueprint)
    .map((short) => modules.get(`svc:${short}`))
    .filter((m): m is HostModule => m !== undefined)
    .map((m) => {
      const short = m.name.slice(4);
      return { name: m.name, description: DESCRIPTIONS[short] ?? m.description, source: 'host' as const, symbols: symbolsOf(m.declarations), declarations: m.declarations };
    });
}

/** An `@mcp/<server>` Package as discovery found it (built by src/mcp/client). */
export interface McpPackageView {
  server: string;
  ok: boolean;
  description?: string;
  declarations?: string;
  /** The declarations of its asynchronous form, `@mcp/<server>/async`. */
  asyncDeclarations?: string;
  toolNames?: string[];
  /** Why the server is unavailable. */
  reason?: string;
}

function mcpEntries(mcp: readonly McpPackageView[]): Array<SearchEntry & { symbols: string[]; declarations: string }> {
  return mcp
    .filter((m) => m.ok)
    .sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0))
    .map((m) => ({ name: `@mcp/${m.server}`, description: m.description ?? '', source: 'mcp' as const, symbols: [m.server, ...(m.toolNames ?? [])], declarations: m.declarations ?? '' }));
}

export function searchPackages(blueprint: Blueprint, modules: ReadonlyMap<string, HostModule>, query: string, builtinsPointer: string, registry?: RegistryLookup, mcp: readonly McpPackageView[] = []) {
  lookupCounters.package_search++;
  const entries: Candidate[] = [...visibleEntries(blueprint, modules), ...registryEntries(blueprint, registry), ...mcpEntries(mcp)];
  const q = query.trim().toLowerCase();
  // MCP Packages match on package, server and tool names only (not on the generic description).
  const hits = entries.filter((e) => q === '' || e.name.toLowerCase().includes(q) || (e.source !== 'mcp' && e.description.toLowerCase().includes(q)) || e.symbols.some((s) => s.toLowerCase().includes(q)));
  const shape = (e: SearchEntry) => ({ name: e.name, description: e.description, source: e.source });
  if (hits.length > 0) return { results: hits.map(shape) };
  const available = entries.map(shape);
  return {
    results: [],
    available_packages: available.slice(0, 50),
    builtins: builtinsPointer,
    ...(available.length > 50 ? { available_packages_omitted: available.length - 50 } : {}),
  };
}

function distance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0][j] = j;
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) dp[i][j] = Math.min(dp[i - 1][j] + 1, dp[i][j - 1] + 1, dp[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  return dp[a.length][b.length];
}

/** The best candidate: case-insensitive exact, then smallest edit distance, then prefix/substring. */
export function suggest(name: string, candidates: string[]): string | undefined {
  const lower = name.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact) return exact;
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = distance(lower, c.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { c, d };
  }
  if (best) return best.c;
  return candidates.find((c) => c.toLowerCase().startsWith(lower) || c.toLowerCase().includes(lower));
}

export type DocsAnswer =
  | { kind: 'json'; body: Record<string, unknown> }
  | { kind: 'markdown'; text: string }
  | { kind: 'not_found'; body: Record<string, unknown> };

/** A Package's docs: its readme trimmed, a blank line, `## Declarations`, a blank line, a ts fence. */
export function packageMarkdown(p: RegistryPackage): string {
  return `${p.readme.trim()}\n\n## Declarations\n\n\`\`\`ts\n${p.declarations.trimEnd()}\n\`\`\`\n`;
}

export function packageDocs(blueprint: Blueprint, modules: ReadonlyMap<string, HostModule>, name: string, registry?: RegistryLookup, mcp: readonly McpPackageView[] = []): DocsAnswer {
  lookupCounters.package_docs++;
  const entries = visibleEntries(blueprint, modules);
  const wanted = name.startsWith('svc:') ? name : `svc:${name}`;
  const entry = entries.find((e) => e.name === wanted);
  if (entry) return { kind: 'json', body: { name: entry.name, source: 'host', description: entry.description, declarations: entry.declarations } };
  if (isBuiltinName(name)) {
    const declarations = builtinDeclarations(name);
    if (declarations) return { kind: 'json', body: { name, source: 'builtin', description: `${name} is a built-in: it is in scope without an import; do not import it.`, declarations } };
  }
  if (blueprint.packages.includes(name)) {
    const found = registry?.(name) ?? null;
    if (found) return { kind: 'markdown', text: packageMarkdown(found) };
    return { kind: 'not_found', body: { error: 'unknown_package', message: `Package '${name}' is listed in this Blueprint but is not installed on this server (or its artifact will not load); ask the operator to install it with \`svc packages install <owner/repo> ${name}\`` } };
  }
  const hidden = modules.has(wanted) ? hiddenModuleReason(wanted.slice(4), blueprint) : null;
  if (hidden) return { kind: 'not_found', body: { error: 'unknown_package', message: `${wanted} exists but is not available to this Blueprint: ${hidden}` } };
  if (name.startsWith('@mcp/')) {
    const asyncForm = name.endsWith('/async');
    const server = name.slice(5, asyncForm ? -'/async'.length : undefined);
    if (!(server in blueprint.mcp)) {
      const did = suggest(server, Object.keys(blueprint.mcp));
      return { kind: 'not_found', body: { error: 'unknown_mcp_server', message: `no MCP server named '${server}' is declared in this Blueprint`, ...(did ? { did_you_mean: `@mcp/${did}` } : {}) } };
    }
    const view = mcp.find((m) => m.server === server);
    if (view?.ok && asyncForm) return { kind: 'markdown', text: `${view.description}; asynchronous form of \`@mcp/${server}\`: the same tools returning promises, so \`await Promise.all(...)\` calls them concurrently\n\n## Declarations\n\n\`\`\`ts\n${view.asyncDeclarations}\n\`\`\`\n` };
    if (view?.ok) return { kind: 'markdown', text: `${view.description}\n\n## Declarations\n\n\`\`\`ts\n${view.declarations}\n\`\`\`\n\nTo call tools concurrently, import \`@mcp/${server}/async\`: the same tools returning promises (\`await Promise.all(...)\`).\n` };
    const why = view?.reason ?? `the policy gives \`main\` no access to mcp.${server}`;
    return { kind: 'not_found', body: { error: 'unknown_package', message: `@mcp/${server} is declared but unavailable: ${why}` } };
  }
  const candidates = [...entries.map((e) => e.name), ...entries.map((e) => e.name.slice(4)), ...blueprint.packages, ...mcpEntries(mcp).map((e) => e.name), ...BUILTIN_TYPES, ...BUILTIN_NAMESPACES];
  const did = suggest(name, candidates);
  return { kind: 'not_found', body: { error: 'unknown_package', message: `no Package or module named '${name}' is available to this Blueprint`, ...(did ? { did_you_mean: did } : {}) } };
}

/** Why a standard-library module is not offered under this Blueprint (it needs a rule or a block to do anything). */
function hiddenModuleReason(short: string, blueprint: Blueprint): string | null {
  const rules = (names: string, example: string) => `no rule in its permissions could allow ${names}, so the module could do nothing; the operator can add one (e.g. \`- {capability: ${example}, action: allow}\` under \`permissions.main\`)`;
  switch (short) {
    case 'session':
      return rules('`session.read` or `session.write`', 'session.read');
    case 'fs':
    case 'code':
      return rules('`fs.read`, `fs.write` or another `fs.*` capability', 'fs.read');
    case 'http':
      return rules('`http.get` or another `http.*` capability', 'http.get');
    case 'llm':
      return `it needs models under \`llm.models\` and a rule that could allow \`llm.call\`${Object.keys(blueprint.llm.models ?? {}).length === 0 ? ' (it declares no model)' : ''}`;
    case 'embedding':
      return `it needs models under \`llm.embedding_models\` and a rule that could allow \`embedding.embed\``;
    case 'git':
      return 'the Blueprint has no `git:` block (a commit identity)';
    default:
      return null;
  }
}

export function builtinsDocs(blueprint: Blueprint, modules: ReadonlyMap<string, HostModule>, names: string[], docsTool: string) {
  lookupCounters.builtins_docs += names.length;
  const moduleNames = [...modules.keys()];
  return {
    results: names.map((name) => {
      // `crypto` is both a built-in namespace and the short name of svc:crypto: the built-in wins.
      if (name.startsWith('svc:') || name.startsWith('@') || (moduleNames.includes(`svc:${name}`) && !isBuiltinName(name))) {
        return { name, error: 'not_a_builtin', message: `${name} is a module or Package, not a built-in; read it with ${docsTool}` };
      }
      const declarations = builtinDeclarations(name);
      if (declarations) return { name, declarations };
      const did = suggest(name.split('.')[0], [...BUILTIN_TYPES, ...BUILTIN_NAMESPACES]);
      return { name, error: 'unknown_builtin', message: `${name} is not a built-in of svc programs`, ...(did ? { did_you_mean: did } : {}) };
    }),
  };
  void blueprint;
}
