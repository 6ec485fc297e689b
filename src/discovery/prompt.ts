// The execute tool's description, filled for one Blueprint: the
// modules it makes visible, its file area, the hosts `main` may reach, and the rules of
// the road. Written for a model reading it cold; kept well under 1,500 tokens.
import type { Blueprint } from '../blueprints';
import { printFilter, type PermissionPolicy } from '../policy';
import { builtinsText } from './builtins';

export interface ToolNames {
  search: string;
  docs: string;
  builtinsDocs: string;
  lastRun: string;
}

export const REST_TOOL_NAMES: ToolNames = { search: 'search', docs: 'docs', builtinsDocs: 'builtins', lastRun: 'last_run' };

const MODULE_ORDER = ['code', 'fs', 'http', 'url', 'crypto', 'uuid', 'session', 'llm', 'embedding', 'git'];

/** The asynchronous forms this run may import (the modules that wait on the network), or nothing. */
function asyncFormsText(modules: readonly string[], mcp: boolean): string {
  const forms = [...modules.filter((m) => m.endsWith('/async')).map((m) => `\`svc:${m}\``), ...(mcp ? ['`@mcp/<server>/async`'] : [])];
  if (forms.length === 0) return '';
  return ` Those that wait on the network also come as ${forms.join(', ')}: the same functions returning promises, under the same rules, so \`await Promise.all(items.map(...))\` runs them concurrently (up to the server's \`max_host_calls_in_flight\` per run; past it a call fails at once naming the limit).`;
}

/** Whether `main` could be allowed something for this capability (filters ignored). */
export function hasPotential(policy: PermissionPolicy, capability: (name: string) => boolean): boolean {
  if (policy.default !== undefined && policy.default !== 'deny') return true;
  return (policy.callers.get('main') ?? []).some((rule) => capability(rule.capability) && rule.action !== 'deny');
}

/** Whether any call of a run may wait for a person (an `ask-human` rule or default). */
function asksHuman(policy: PermissionPolicy): boolean {
  return policy.default === 'ask-human' || [...policy.callers.values()].some((rules) => rules.some((rule) => rule.action === 'ask-human'));
}

export function visibleModules(blueprint: Blueprint): string[] {
  const p = blueprint.policy;
  const cap = (name: string) => hasPotential(p, (c) => c === name);
  const visible: Record<string, boolean> = {
    fs: hasPotential(p, (c) => c.startsWith('fs.')),
    code: ['fs.read', 'fs.write', 'fs.stat', 'fs.list'].some(cap),
    http: hasPotential(p, (c) => c.startsWith('http.')),
    url: true,
    crypto: true,
    uuid: true,
    session: cap('session.read') || cap('session.write'),
    llm: Object.keys(blueprint.llm.models ?? {}).length > 0 && cap('llm.call'),
    embedding: Object.keys(blueprint.llm.embedding_models ?? {}).length > 0 && cap('embedding.embed'),
    git: blueprint.git !== null,
  };
  return MODULE_ORDER.filter((m) => visible[m]);
}

function hostPhrase(filterText: string | undefined): string {
  if (!filterText) return 'any host';
  const eq = /host == "([^"]+)"/.exec(filterText);
  const port = /port == ([0-9]+)/.exec(filterText);
  if (eq) return port ? `${eq[1]}:${port[1]}` : eq[1];
  const glob = /host glob "([^"]+)"/.exec(filterText);
  if (glob) return glob[1] === '*' ? 'any host' : glob[1];
  const re = /host matches "([^"]+)"/.exec(filterText);
  if (re) return `/${re[1]}/`;
  return 'any host';
}

function httpAccess(blueprint: Blueprint): string {
  const p = blueprint.policy;
  if (p.default === 'allow') return 'Network (`svc:http` and `fetch`): requests are allowed unless a rule denies them.';
  const byMethod = new Map<string, Set<string>>();
  let askOnly = false;
  for (const rule of p.callers.get('main') ?? []) {
    if (!rule.capability.startsWith('http.')) continue;
    if (rule.action === 'ask-human') askOnly = true;
    if (rule.action !== 'allow') continue;
    const method = rule.capability === 'http.download' ? 'download' : rule.capability.slice(5).toUpperCase();
    const hosts = byMethod.get(method) ?? new Set<string>();
    hosts.add(hostPhrase(rule.filter ? printFilter(rule.filter) : undefined));
    byMethod.set(method, hosts);
  }
  if (byMethod.size === 0) return `Network (\`svc:http\` and \`fetch\`): none — outbound HTTP is blocked by policy${askOnly ? ', except calls a person must approve first (they wait for the answer)' : ''}.`;
  const groups = new Map<string, string[]>();
  for (const [method, hosts] of byMethod) {
    const key = [...hosts].sort().join(', ');
    groups.set(key, [...(groups.get(key) ?? []), method]);
  }
  const text = [...groups].map(([hosts, methods]) => `${methods.join(', ')} → ${hosts}`).join('; ');
  return `Network (\`svc:http\` and \`fetch\`): ${text}.${askOnly ? ' Some calls need a person\'s approval first: they wait for the answer.' : ''}`;
}

function sandboxPhrase(blueprint: Blueprint): string {
  const v = blueprint.vfs;
  const limit = v.size_limit !== undefined ? ` (limit: ${v.size_limit} bytes)` : '';
  const mode =
    v.mode === 'none'
      ? 'disabled'
      : v.mode === 'ephemeral'
        ? `fresh for each run and wiped afterwards${limit}`
        : v.mode === 'per_session'
          ? `kept across runs of this session${limit}`
          : `volume ${v.volume} (${v.access === 'read_only' ? 'read-only' : 'read-write'}), shared across sessions and Blueprints`;
  const mounts = Object.entries(v.mounts ?? {}).map(([p, m]) => `${p} → ${m.volume} (${m.access ?? 'as declared'})`);
  return `Sandbox: file system ${mode}${mounts.length ? `; mounted volumes: ${mounts.join(', ')}` : ''}${v.cwd && v.cwd !== '/' ? `; working directory ${v.cwd}` : ''}.`;
}

function typecheckPhrase(blueprint: Blueprint, tools: ToolNames): string {
  if (blueprint.typecheck === 'off') return 'types are stripped, not checked.';
  if (blueprint.typecheck === 'strict') return `the program is type-checked first (strict: null checks and implicit any too) against the declarations of the built-ins and of what it may import: any type error is a compile_error and nothing runs, so read signatures with ${tools.docs} first; untyped values (JSON, session values, untyped tool results) need no casts.`;
  return `the program is type-checked first against the declarations of the built-ins and of what it may import. Only mistakes against those declarations are a compile_error (nothing runs): a name, import or export that does not exist, a member missing on a declared type (a misspelt function or tool, \`"s".lenght\`), arguments a declared function or tool cannot take, calling what is not callable; read signatures with ${tools.docs} first. Other type errors (plain JavaScript such as \`this.x = 1\` in a constructor, \`new Date() - start\`, fewer arguments to your own function) do not stop the run: they come back in \`warnings\`. Untyped values (JSON, session values, untyped tool results) need no casts.`;
}

export function executePrompt(blueprint: Blueprint, tools: ToolNames): string {
  const modules = visibleModules(blueprint);
  const has = (m: string) => modules.includes(m);
  const p = blueprint.policy;
  const cap = (name: string) => hasPotential(p, (c) => c === name);
  const parts: string[] = [
    `Runs one TypeScript (or JavaScript) program in a sandboxed V8 isolate under the "${blueprint.name}" Blueprint's rules; ${typecheckPhrase(blueprint, tools)}`,
    'Define `main` (sync or async) and return the result from it. Import only the `svc:` modules below' +
      (blueprint.packages.length ? ', the listed Packages' : '') +
      (Object.keys(blueprint.mcp).length ? ' and `@mcp/` Packages' : '') +
      '; there is no npm, no Node.js module, no `require`, `process` or `eval`. `fetch` and timers work as on the web: a `fetch` is checked exactly like the HTTP module\'s request of its method, and waiting for a timer counts against the time limit. `fetch` and `crypto.subtle` calls started together run concurrently (`Promise.all`).',
    'Write one coherent program per task: loops, batching, pagination and data dependencies belong in code. Come back only when judgment is needed.',
    'Filter and aggregate inside the program; return only the fields, ids and short excerpts you need, say when a result is partial, never dump whole files, and stop once the evidence suffices.',
    `Standard-library calls are synchronous (they return values; \`await\` is optional).${asyncFormsText(modules, Object.keys(blueprint.mcp).length > 0)} Modules: ${modules.map((m) => `\`svc:${m}\``).join(', ')}. Packages: ${blueprint.packages.length ? blueprint.packages.map((n) => `\`${n}\``).join(', ') : 'none'}. Find more with ${tools.search}; read exact signatures with ${tools.docs} before importing.`,
    `Built-ins without import: ${builtinsText()}. Standard JavaScript; declarations via ${tools.builtinsDocs} (dotted paths such as Math.max work).`,
  ];
  if (has('http')) parts.push('Both `fetch` and `svc:http` work and follow the same rules: a request is gated as `http.<method>` (host, port, path, body size), goes through the outbound block and gets the operator\'s credentials either way; `fetch` is asynchronous, resolves for any HTTP status and rejects with a `TypeError` whose `cause` is the `PermissionDeniedError` or network error, while `svc:http` calls return directly and throw those errors themselves.');
  if (has('http')) parts.push('Never build `Authorization` headers or put keys in query strings: the operator injects credentials for configured hosts.');
  parts.push(
    'Denials are final: a `PermissionDeniedError` ("permission denied: … capability=…") means every route to that effect is forbidden. Do not retry, switch Package or alter arguments; report it. The same holds for HTTP 401/403 answers.',
    'Secrets: the program never sees secret values and `svc:secrets` is refused to it whatever the policy; pass a secret\'s name to a Package API instead.',
    'Budgets throw catchable `QuotaExceededError`, size caps `RangeError`; fuel, time, memory and stack limits end the run and cannot be caught.',
    'Nothing enforces types at run time: validate parsed JSON, HTTP and session data yourself.',
  );
  if (asksHuman(p)) {
    parts.push(
      'Some calls need a person\'s approval (the Blueprint marks them `ask-human`): such a call waits, possibly for hours, until someone approves or denies it; the run\'s time limit stops meanwhile, and calls started alongside it (`Promise.all`) go on. Approved, it proceeds as usual. Denied or unanswered in time, it throws `PermissionDeniedError` with `source: "human"` and the person\'s reason in its message: that is an answer, not a fault; do not retry or work around it, report it. Make the gated call once, with exactly the arguments you mean, after the work that does not need approval.',
    );
  }
  if (Object.keys(blueprint.mcp).length > 0) parts.push(`MCP servers are configured: search \`@mcp/\` with ${tools.search}, read their docs, then import (e.g. \`import linear from "@mcp/linear"\`); check optional fields of results.`);
  if (has('llm')) parts.push(`\`svc:llm\` models: ${Object.keys(blueprint.llm.models ?? {}).map((m) => `\`${m}\``).join(', ')}. \`call(model, prompt)\` returns a Completion (check \`ok\`, \`reason\`, \`retryable\`); with a JSON Schema as third argument it returns the parsed value or throws${blueprint.typecheck === 'off' ? '' : ', and so does `call<T>(model, prompt)`: the schema is derived from `T` (an explicit schema wins)'}; \`batch\` keeps prompt order (at most 128).`);
  if (has('embedding')) parts.push(`\`svc:embedding\` models: ${Object.keys(blueprint.llm.embedding_models ?? {}).map((m) => `\`${m}\``).join(', ')}. \`embed(model, texts, "query" | "document")\` returns unit vectors (\`vector(i)\`, \`bytes(i)\`); compare only vectors with the same \`identity\`.`);
  if (has('git')) parts.push('`svc:git` is available (read its docs): init, clone, fetch, pull and commit need git capabilities; the rest does not; there is no push.');
  const situation: string[] = [];
  if (has('fs') || has('code')) situation.push(sandboxPhrase(blueprint));
  if (has('http')) situation.push(httpAccess(blueprint));
  if (cap('session.read') && cap('session.write')) situation.push('`svc:session` keeps JSON values per session in memory (`set`/`get`/`has`/`remove`/`list`); `get` returns `undefined` for a missing key and checks no shape.');
  if (situation.length) parts.push(situation.join(' '));
  parts.push(`A string result is returned verbatim, other values as JSON text, \`undefined\` as no result. On failure you get the error and the console lines logged before it; a successful run's console is dropped: read it with ${tools.lastRun}.`);
  return parts.join('\n\n');
}

export function toolDescriptions(tools: ToolNames) {
  return {
    search: `Searches names, descriptions and exported symbols of the svc: modules, this Blueprint's Packages and its @mcp/ Packages (source host, registry or mcp). An empty query lists everything; a query with no hit returns the whole catalogue and a pointer to the built-ins.`,
    docs: `Returns a module's or Package's one-line description and TypeScript declarations; read them before importing. Built-in names are answered too (do not import them). Unknown names return an error with a suggestion.`,
    builtins: `Without names: lists the built-in namespaces and types usable without import. With names: their declarations; dotted member paths (Temporal.Instant, Math.max) return just that member. Package names are redirected to ${tools.docs}.`,
    builtins_list: 'Lists {types, namespaces} in scope without an import; namespaces such as Temporal or JSON are used directly, never imported.',
    builtins_docs: `Declarations per built-in name; dotted member paths allowed; unknown names return an error entry; a Package name returns an error naming ${tools.docs}.`,
    last_run: 'Returns this session\'s most recent run: result, error and the full console, including for a successful run; an error when no run exists.',
  };
}
