// Validates a Blueprint document (blueprints-and-policy §2–§4) into the typed model: stage 2
// reads each top-level key's structure in document order, stage 3 runs the semantic checks
// in the reference's fixed order. The first fault wins and becomes one diagnostic.
import { parsePermissionPolicy, policyVariableReferences, type PermissionPolicy } from '../policy';
import { storeKeyProblem } from '../secrets';
import type { SecretDeclaration, VariableDeclaration } from '../sessions';
import { checkLlm, parseLlm } from './llm-section';
import type { AuthProxyRule, GitDeclaration, LlmDeclaration, McpServerDeclaration, VfsDeclaration } from './model';
import { asMap, bool, BlueprintValidationError, checkKeys, fail, get, NAME, parseDuration, stringMap, text, type BlueprintErrorCode, type MapNode, type Path } from './readers';
import { secretReferenceProblem } from './references';
import { checkPathTemplate, parseVfs } from './vfs-section';
import type { TreeNode } from './yaml-tree';

export { BlueprintValidationError, type BlueprintErrorCode } from './readers';

const TOP_KEYS = ['kind', 'name', 'allow_insecure_http', 'idle_timeout', 'vfs', 'secrets', 'variables', 'packages', 'auth_proxy', 'git', 'default', 'permissions', 'mcp', 'llm'];
const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** Stage-2 results of the top-level keys, filled in document order. */
interface Sections {
  kind?: string;
  name?: string;
  allowInsecureHttp: boolean;
  idleTimeoutSecs: number;
  vfs: VfsDeclaration;
  secrets: Map<string, SecretDeclaration>;
  variables: Map<string, VariableDeclaration>;
  variableNodes: Map<string, TreeNode>;
  packages: string[];
  authProxy: AuthProxyRule[];
  git: GitDeclaration | null;
  mcp: Record<string, McpServerDeclaration>;
  llm: LlmDeclaration;
}

/** Stage 2: each present top-level key's structure, walked in document order (first fault wins). */
function readSections(doc: MapNode, root: TreeNode): Sections {
  const sections: Sections = {
    allowInsecureHttp: false,
    idleTimeoutSecs: 86_400,
    vfs: { mode: 'ephemeral' },
    secrets: new Map(),
    variables: new Map(),
    variableNodes: new Map(),
    packages: [],
    authProxy: [],
    git: null,
    mcp: {},
    llm: {},
  };
  for (const entry of doc.entries) {
    const node = entry.value;
    if (node.kind === 'null') {
      checkKeys({ ...doc, entries: [entry] }, TOP_KEYS, []);
      continue;
    }
    switch (entry.key) {
      case 'kind':
        sections.kind = text(node, ['kind']);
        break;
      case 'name':
        sections.name = text(node, ['name']);
        break;
      case 'allow_insecure_http':
        sections.allowInsecureHttp = bool(node, ['allow_insecure_http']);
        break;
      case 'idle_timeout':
        sections.idleTimeoutSecs = parseDuration(text(node, ['idle_timeout']), ['idle_timeout'], node);
        break;
      case 'vfs':
        sections.vfs = parseVfs(node);
        break;
      case 'secrets':
        sections.secrets = parseSecrets(node);
        break;
      case 'variables':
        [sections.variables, sections.variableNodes] = parseVariables(node);
        break;
      case 'packages':
        sections.packages = parsePackages(node);
        break;
      case 'auth_proxy':
        sections.authProxy = parseAuthProxy(node);
        break;
      case 'git':
        sections.git = parseGit(node);
        break;
      case 'default':
        failOnStructure(parsePermissionPolicy(text(node, ['default']), undefined), root);
        break;
      case 'permissions':
        failOnStructure(parsePermissionPolicy(undefined, toPlain(node)), root);
        break;
      case 'mcp':
        sections.mcp = parseMcp(node);
        break;
      case 'llm':
        sections.llm = parseLlm(node);
        break;
      default:
        checkKeys({ ...doc, entries: [entry] }, TOP_KEYS, []);
    }
  }
  if (sections.name === undefined) fail('parse_error', 'missing field `name`', ['name'], root);
  return sections;
}

/** A structure fault of the rules (filter syntax included) is a stage-2 parse_error. */
function failOnStructure(result: ReturnType<typeof parsePermissionPolicy>, root: TreeNode): void {
  if (!('error' in result)) return;
  if (result.error.code === 'parse_error' || result.error.code === 'invalid_filter') failAt({ ...result.error, code: 'parse_error' }, root);
}

function parseSecrets(node: TreeNode): Map<string, SecretDeclaration> {
  const secrets = new Map<string, SecretDeclaration>();
  for (const entry of asMap(node, ['secrets'])?.entries ?? []) {
    const path = ['secrets', entry.key];
    const source = entry.value.kind === 'null' ? null : asMap(entry.value, path);
    for (const key of source?.entries.map((e) => e.key) ?? []) {
      if (key !== 'store' && key !== 'harness') fail('parse_error', `secret '${entry.key}': unknown source \`${key}\`, expected one of \`store\`, \`harness\``, [...path, key], entry.value);
    }
    const store = source?.entries.find((e) => e.key === 'store');
    const harness = source?.entries.find((e) => e.key === 'harness');
    if (!source || (store ? 1 : 0) + (harness ? 1 : 0) !== 1 || store?.value.kind === 'null' || harness?.value.kind === 'null') {
      fail('parse_error', `secret '${entry.key}': a secret needs exactly one source: store / harness`, path, entry.value.kind === 'null' ? { kind: 'null', offset: entry.keyOffset } : entry.value);
    }
    if (store) {
      secrets.set(entry.key, { source: 'store', key: text(store.value, [...path, 'store']) });
      continue;
    }
    const harnessMap = harness!.value.kind === 'map' ? harness!.value : fail('parse_error', `secret '${entry.key}': \`harness\` takes \`{}\` or \`{required: true}\`, not a ${harness!.value.kind === 'seq' ? 'list' : 'plain value'}`, [...path, 'harness'], harness!.value);
    checkKeys(harnessMap, ['required'], [...path, 'harness']);
    const required = get(harnessMap, 'required');
    secrets.set(entry.key, { source: 'harness', required: required ? bool(required, [...path, 'harness', 'required']) : false });
  }
  return secrets;
}

function parseVariables(node: TreeNode): [Map<string, VariableDeclaration>, Map<string, TreeNode>] {
  const variables = new Map<string, VariableDeclaration>();
  const nodes = new Map<string, TreeNode>();
  for (const entry of asMap(node, ['variables'])?.entries ?? []) {
    const path = ['variables', entry.key];
    const map = entry.value.kind === 'null' ? null : asMap(entry.value, path);
    if (map) checkKeys(map, ['required', 'default'], path);
    const requiredNode = map ? get(map, 'required') : undefined;
    const defaultNode = map ? get(map, 'default') : undefined;
    const required = requiredNode ? bool(requiredNode, [...path, 'required']) : false;
    const defaultValue = defaultNode ? text(defaultNode, [...path, 'default']) : undefined;
    variables.set(entry.key, { required, ...(defaultValue !== undefined ? { default: defaultValue } : {}) });
    nodes.set(entry.key, entry.value.kind === 'null' ? { kind: 'null', offset: entry.keyOffset } : entry.value);
  }
  return [variables, nodes];
}

function parsePackages(node: TreeNode): string[] {
  if (node.kind === 'map') fail('parse_error', 'packages: versions are not supported; list package names only (a YAML list)', ['packages'], node);
  if (node.kind !== 'seq') fail('parse_error', 'packages: expected a list of package names', ['packages'], node);
  const packages: string[] = [];
  node.items.forEach((item, i) => {
    const packageName = text(item, ['packages', i]);
    if (packages.includes(packageName)) fail('parse_error', `duplicate package \`${packageName}\` in packages`, ['packages'], item);
    packages.push(packageName);
  });
  return packages;
}

function parseAuthProxy(node: TreeNode): AuthProxyRule[] {
  if (node.kind !== 'seq') fail('parse_error', 'auth_proxy: expected a list of rules', ['auth_proxy'], node);
  return node.items.map((item, i) => parseAuthProxyRule(item, ['auth_proxy', i]));
}

function parseAuthProxyRule(item: TreeNode, path: Path): AuthProxyRule {
  const map = asMap(item, path) ?? fail('parse_error', 'auth_proxy: a rule must be a mapping', path, item);
  checkKeys(map, ['host', 'allow_insecure_http', 'auth', 'headers', 'query'], path);
  const host = get(map, 'host');
  if (!host) fail('parse_error', 'auth_proxy: missing field `host`', path, item);
  const rule: AuthProxyRule = { host: text(host, [...path, 'host']).toLowerCase() };
  const insecure = get(map, 'allow_insecure_http');
  if (insecure) rule.allow_insecure_http = bool(insecure, [...path, 'allow_insecure_http']);
  const auth = get(map, 'auth');
  if (auth) rule.auth = parseProxyAuth(auth, [...path, 'auth']);
  const headers = stringMap(get(map, 'headers'), [...path, 'headers']);
  if (headers && Object.keys(headers).length > 0) rule.headers = headers;
  const query = stringMap(get(map, 'query'), [...path, 'query']);
  if (query && Object.keys(query).length > 0) rule.query = query;
  return rule;
}

function parseProxyAuth(auth: TreeNode, path: Path): NonNullable<AuthProxyRule['auth']> {
  const authMap = asMap(auth, path)!;
  checkKeys(authMap, ['bearer', 'basic'], path);
  const bearer = get(authMap, 'bearer');
  const basic = get(authMap, 'basic');
  if ((bearer ? 1 : 0) + (basic ? 1 : 0) !== 1) fail('invalid_auth_proxy', 'auth must set exactly one of `bearer` or `basic`', path, auth);
  if (bearer) return { bearer: text(bearer, [...path, 'bearer']) };
  const basicMap = asMap(basic!, [...path, 'basic'])!;
  checkKeys(basicMap, ['username', 'password'], [...path, 'basic']);
  const username = get(basicMap, 'username');
  const password = get(basicMap, 'password');
  if (!username || !password) fail('parse_error', 'auth.basic needs `username` and `password`', [...path, 'basic'], basic);
  return { basic: { username: text(username, [...path, 'basic', 'username']), password: text(password, [...path, 'basic', 'password']) } };
}

function parseGit(node: TreeNode): GitDeclaration {
  const map = asMap(node, ['git'])!;
  checkKeys(map, ['identity', 'username'], ['git']);
  const identity = get(map, 'identity');
  if (!identity) fail('parse_error', 'git: missing field `identity`', ['git'], node);
  const identityMap = asMap(identity, ['git', 'identity'])!;
  checkKeys(identityMap, ['name', 'email'], ['git', 'identity']);
  const name = get(identityMap, 'name');
  const email = get(identityMap, 'email');
  if (!name) fail('parse_error', 'git.identity: missing field `name`', ['git', 'identity'], identity);
  if (!email) fail('parse_error', 'git.identity: missing field `email`', ['git', 'identity'], identity);
  const git: GitDeclaration = { identity: { name: text(name, ['git', 'identity', 'name']), email: text(email, ['git', 'identity', 'email']) } };
  const username = get(map, 'username');
  if (username) git.username = text(username, ['git', 'username']);
  return git;
}

function parseMcp(node: TreeNode): Record<string, McpServerDeclaration> {
  const mcp: Record<string, McpServerDeclaration> = {};
  for (const entry of asMap(node, ['mcp'])?.entries ?? []) mcp[entry.key] = parseMcpServer(entry.key, entry.value, ['mcp', entry.key]);
  return mcp;
}

function parseMcpServer(name: string, node: TreeNode, path: Path): McpServerDeclaration {
  const map = asMap(node, path) ?? fail('parse_error', `mcp server '${name}': missing field \`url\``, path, node);
  checkKeys(map, ['transport', 'url', 'headers', 'auth'], path);
  const transportNode = get(map, 'transport');
  const transport = transportNode ? text(transportNode, [...path, 'transport']) : 'streamable_http';
  if (transport === 'stdio') fail('parse_error', "stdio transport is not supported; use 'streamable_http'", [...path, 'transport'], transportNode);
  if (transport !== 'streamable_http' && transport !== 'sse') fail('parse_error', `unknown transport '${transport}', expected one of \`streamable_http\`, \`sse\``, [...path, 'transport'], transportNode);
  const url = get(map, 'url');
  if (!url) fail('parse_error', `mcp server '${name}': missing field \`url\``, path, node);
  const server: McpServerDeclaration = { url: text(url, [...path, 'url']) };
  const headers = stringMap(get(map, 'headers'), [...path, 'headers']);
  if (headers && Object.keys(headers).length > 0) server.headers = headers;
  const auth = get(map, 'auth');
  if (auth) server.auth = parseMcpAuth(auth, [...path, 'auth']);
  return server;
}

function parseMcpAuth(auth: TreeNode, path: Path): NonNullable<McpServerDeclaration['auth']> {
  const authMap = asMap(auth, path)!;
  checkKeys(authMap, ['type', 'client_id', 'authorization_endpoint', 'token_endpoint', 'scopes'], path);
  const type = get(authMap, 'type');
  if (!type) fail('parse_error', 'mcp auth: missing field `type` (only `oauth2` is supported)', path, auth);
  const typeText = text(type, [...path, 'type']);
  if (typeText !== 'oauth2') fail('parse_error', `unknown variant \`${typeText}\`, expected \`oauth2\``, [...path, 'type'], type);
  const out: NonNullable<McpServerDeclaration['auth']> = { type: 'oauth2' };
  for (const key of ['client_id', 'authorization_endpoint', 'token_endpoint'] as const) {
    const value = get(authMap, key);
    if (value) out[key] = text(value, [...path, key]);
  }
  const scopes = get(authMap, 'scopes');
  if (scopes) out.scopes = scopes.kind === 'seq' ? scopes.items.map((s, j) => text(s, [...path, 'scopes', j])) : fail('parse_error', 'mcp auth.scopes must be a list of strings', [...path, 'scopes'], scopes);
  return out;
}

/** Everything validated, in the reference's stage order (§2.14). */
export function validateDocument(root: TreeNode) {
  const doc = asMap(root, [])!;
  const sections = readSections(doc, root);
  const { kind, allowInsecureHttp, idleTimeoutSecs, vfs, secrets, variables, variableNodes, packages, authProxy, git, mcp, llm } = sections;
  const name = sections.name!;
  const kindNode = get(doc, 'kind');
  const nameNode = get(doc, 'name')!;
  const packagesNode = get(doc, 'packages');
  const secretsNode = get(doc, 'secrets');
  const authNode = get(doc, 'auth_proxy');
  const gitNode = get(doc, 'git');
  const mcpNode = get(doc, 'mcp');
  const defaultNode = get(doc, 'default');
  const permissionsNode = get(doc, 'permissions');
  const policyResult = parsePermissionPolicy(defaultNode ? text(defaultNode, ['default']) : undefined, permissionsNode ? toPlain(permissionsNode) : undefined);

  // Stage 3: semantic checks in the reference's order.
  if (kind !== undefined && kind !== 'blueprint') fail('invalid_kind', `unknown kind '${kind}': expected \`blueprint\` (or omit \`kind\`)`, ['kind'], kindNode);
  if (name === '') fail('invalid_name', 'blueprint name must not be empty', ['name'], nameNode);
  if (!NAME.test(name)) fail('invalid_name', `blueprint name '${name}' contains characters outside [A-Za-z0-9_-]`, ['name'], nameNode);
  packages.forEach((packageName, i) => checkPackageName(packageName, packagesNode!.kind === 'seq' ? packagesNode!.items[i] : null));
  for (const [secretName, declaration] of secrets) {
    if (!NAME.test(secretName)) fail('invalid_secrets', `secret name '${secretName}' contains characters outside [A-Za-z0-9_-]`, ['secrets', secretName], secretsNode);
    if (declaration.source === 'store') {
      const problem = storeKeyProblem(declaration.key);
      if (problem) fail('invalid_secrets', `secret '${secretName}': store key '${declaration.key}': ${problem}`, ['secrets', secretName, 'store'], secretsNode);
    }
  }
  authProxy.forEach((rule, i) => checkAuthProxyRule(rule, i, secrets));
  if ('error' in policyResult) failAt(policyResult.error, root);
  const policy = policyResult.policy;
  for (const [variableName, declaration] of variables) {
    if (!NAME.test(variableName)) fail('invalid_variables', `variable name '${variableName}' contains characters outside [A-Za-z0-9_-]`, ['variables', variableName], variableNodes.get(variableName));
    if (declaration.required && declaration.default !== undefined) fail('invalid_variables', `variable '${variableName}': \`required: true\` and \`default:\` are mutually exclusive`, ['variables', variableName], variableNodes.get(variableName));
  }
  for (const reference of policyVariableReferences(policy)) {
    if (!variables.has(reference.name)) fail('invalid_variables', `permissions for '${reference.caller}': filter references undeclared variable '\${vars.${reference.name}}'`, ['permissions', reference.caller, reference.index, 'filter'], permissionsNode);
  }
  if (git) checkGit(git, variables, gitNode!);
  const variableNames = new Set(variables.keys());
  if (vfs.cwd !== undefined) checkPathTemplate(vfs.cwd, 'cwd', variableNames, ['vfs', 'cwd'], get(doc, 'vfs') ?? null);
  if (vfs.subPath !== undefined) checkPathTemplate(vfs.subPath, 'subPath', variableNames, ['vfs', 'subPath'], get(doc, 'vfs') ?? null);
  for (const [mountPath, mount] of Object.entries(vfs.mounts ?? {})) {
    if (mount.subPath !== undefined) checkPathTemplate(mount.subPath, 'subPath', variableNames, ['vfs', 'mounts', mountPath, 'subPath'], get(doc, 'vfs') ?? null);
  }
  checkMcp(mcp, secrets, policy, allowInsecureHttp);
  checkLlm(llm, secrets, policy);

  return { name, allowInsecureHttp, idleTimeoutSecs, vfs, secrets, variables, packages, authProxy, git, policy, mcp, llm };
}

function failAt(error: { code: string; message: string; path: Path }, root: TreeNode): never {
  throw new BlueprintValidationError(error.code as BlueprintErrorCode, error.message, error.path, locate(root, error.path));
}

/** Offset of the node at `path`, or of its nearest existing ancestor. */
export function locate(root: TreeNode, path: Path): number | null {
  let node: TreeNode | undefined = root;
  let offset: number | null = root.offset;
  for (const step of path) {
    if (!node) break;
    if (node.kind === 'map') {
      const entry: { key: string; keyOffset: number; value: TreeNode } | undefined = node.entries.find((e) => e.key === step);
      if (!entry) break;
      offset = entry.value.kind === 'null' ? entry.keyOffset : entry.value.offset;
      node = entry.value;
    } else if (node.kind === 'seq' && typeof step === 'number' && node.items[step]) {
      node = node.items[step];
      offset = node.offset;
    } else break;
  }
  return offset;
}

function toPlain(node: TreeNode): unknown {
  switch (node.kind) {
    case 'null':
      return null;
    case 'scalar':
      return typeof node.value === 'string' ? node.value : node.quoted ? node.text : node.value;
    case 'seq':
      return node.items.map(toPlain);
    case 'map':
      return Object.fromEntries(node.entries.map((e) => [e.key, toPlain(e.value)]));
  }
}

function checkPackageName(name: string, node: TreeNode | null): void {
  const bad: (why: string) => never = (why) => fail('invalid_packages', `package '${name}': ${why}`, ['packages'], node);
  if (name.startsWith('svc:')) bad('standard-library modules need no declaration; remove it from packages');
  if (name.startsWith('@mcp/')) bad('MCP servers are declared under `mcp:`, not listed as packages');
  const match = /^@([^/]+)\/([^/]+)$/.exec(name);
  if (!match) bad('a package name looks like `@scope/name`');
  if (!SCOPE.test(match[1])) bad('the scope is 1-39 letters, digits and single inner hyphens');
  if (!/^[A-Za-z0-9._-]+$/.test(match[2]) || match[2] === '.' || match[2] === '..') bad('the name uses letters, digits, `.`, `_` and `-`');
}

/** Refuses an unterminated or undeclared `${secrets.NAME}` in `value`. */
function checkSecretReferences(value: string, where: string, code: BlueprintErrorCode, path: Path, secrets: ReadonlyMap<string, SecretDeclaration>): void {
  const problem = secretReferenceProblem(value, secrets);
  if (problem) fail(code, `${where} ${problem}`, path, null);
}

function checkAuthProxyRule(rule: AuthProxyRule, index: number, secrets: ReadonlyMap<string, SecretDeclaration>): void {
  const path = ['auth_proxy', index];
  const where = `auth_proxy rule ${index} (${rule.host})`;
  if (!/^[a-z0-9.-]+$|^\[?[0-9a-f:.]+\]?$/.test(rule.host)) fail('invalid_auth_proxy', `${where}: host must be a bare host name or IP (no scheme, port, path or whitespace)`, [...path, 'host'], null);
  if (!rule.auth && !rule.headers && !rule.query) fail('invalid_auth_proxy', `${where}: a rule must set at least one of \`auth\`, \`headers\`, \`query\``, path, null);
  const authorizationHeader = Object.keys(rule.headers ?? {}).find((h) => h.toLowerCase() === 'authorization');
  if (rule.auth && authorizationHeader) fail('invalid_auth_proxy', `${where}: \`auth\` and an ${authorizationHeader} header cannot be combined; keep one of them`, [...path, 'headers', authorizationHeader], null);
  if (rule.auth) {
    const [named, at] = 'bearer' in rule.auth ? [rule.auth.bearer, ['auth', 'bearer']] : [rule.auth.basic.password, ['auth', 'basic', 'password']];
    if (!secrets.has(named)) fail('invalid_auth_proxy', `${where}: auth names undeclared secret '${named}'; declare it under \`secrets:\``, [...path, ...at], null);
  }
  for (const part of ['headers', 'query'] as const) {
    for (const [key, value] of Object.entries(rule[part] ?? {})) checkSecretReferences(value, `${where} ${part} '${key}'`, 'invalid_auth_proxy', [...path, part, key], secrets);
  }
}

function checkGit(git: GitDeclaration, variables: Map<string, VariableDeclaration>, node: TreeNode): void {
  const values: Array<[Path, string, 'identity' | 'username']> = [
    [['git', 'identity', 'name'], git.identity.name, 'identity'],
    [['git', 'identity', 'email'], git.identity.email, 'identity'],
    ...(git.username !== undefined ? [[['git', 'username'], git.username, 'username'] as [Path, string, 'username']] : []),
  ];
  for (const [path, value, kind] of values) {
    const trimmed = value.trim();
    const forbidden = kind === 'identity' ? /[<>]/ : /:/;
    if (trimmed === '' || /[\u0000-\u001f\u007f]/.test(trimmed) || forbidden.test(trimmed)) fail('invalid_git', `${path.join('.')}: must be nonempty and contain no control characters or identity delimiters`, path, node);
    let rest = value;
    while (rest.includes('${')) {
      const start = rest.indexOf('${');
      const end = rest.indexOf('}', start);
      if (end === -1) fail('invalid_git', `${path.join('.')}: unterminated variable reference`, path, node);
      const inner = rest.slice(start + 2, end);
      if (!inner.startsWith('vars.')) fail('invalid_git', `${path.join('.')}: only \${vars.NAME} references are supported`, path, node);
      if (!variables.has(inner.slice(5))) fail('invalid_git', `${path.join('.')}: references undeclared variable '\${${inner}}'`, path, node);
      rest = rest.slice(end + 1);
    }
  }
}

function checkMcp(mcp: Record<string, McpServerDeclaration>, secrets: ReadonlyMap<string, SecretDeclaration>, policy: PermissionPolicy, allowInsecure: boolean): void {
  for (const [server, declaration] of Object.entries(mcp)) checkMcpServer(server, declaration, secrets, allowInsecure);
  for (const [caller, rules] of policy.callers) {
    rules.forEach((rule, index) => {
      if (!rule.capability.startsWith('mcp.')) return;
      const rest = rule.capability.slice(4);
      const path = ['permissions', caller, index, 'capability'];
      if (rest.includes('/')) {
        const [server, tool] = [rest.slice(0, rest.indexOf('/')), rest.slice(rest.indexOf('/') + 1)];
        fail('invalid_mcp', `permissions for '${caller}': capability '${rule.capability}' is not supported; use capability \`mcp.${server}\` with a filter such as \`tool == "${tool}"\``, path, null);
      }
      if (!Object.hasOwn(mcp, rest)) fail('invalid_mcp', `permissions for '${caller}': capability '${rule.capability}' names MCP server '${rest}', which is not declared under \`mcp:\``, path, null);
    });
  }
}

function checkMcpServer(server: string, declaration: McpServerDeclaration, secrets: ReadonlyMap<string, SecretDeclaration>, allowInsecure: boolean): void {
  const path = ['mcp', server];
  if (!NAME.test(server)) fail('invalid_mcp', `server name '${server}' contains characters outside [A-Za-z0-9_-]`, path, null);
  if (!mcpUrlAccepted(declaration.url, allowInsecure)) {
    fail('invalid_mcp', `server '${server}': url '${declaration.url}' must be an absolute https:// URL${allowInsecure ? ' or http:// URL' : ' (http:// only with allow_insecure_http: true)'}`, [...path, 'url'], null);
  }
  if (declaration.headers && declaration.auth) fail('invalid_mcp', `server '${server}': \`headers\` and \`auth\` are mutually exclusive`, path, null);
  for (const [key, value] of Object.entries(declaration.headers ?? {})) checkSecretReferences(value, `server '${server}' header '${key}'`, 'invalid_mcp', [...path, 'headers', key], secrets);
  const auth = declaration.auth;
  if (!auth) return;
  for (const key of ['client_id', 'authorization_endpoint', 'token_endpoint'] as const) {
    const value = auth[key];
    if (value !== undefined) checkSecretReferences(value, `server '${server}' auth.${key}`, 'invalid_mcp', [...path, 'auth', key], secrets);
  }
  (auth.scopes ?? []).forEach((scope, i) => checkSecretReferences(scope, `server '${server}' auth.scopes[${i}]`, 'invalid_mcp', [...path, 'auth', 'scopes', i], secrets));
}

function mcpUrlAccepted(value: string, allowInsecure: boolean): boolean {
  try {
    const url = new URL(value);
    return url.hostname !== '' && (url.protocol === 'https:' || (url.protocol === 'http:' && allowInsecure));
  } catch {
    return false;
  }
}
