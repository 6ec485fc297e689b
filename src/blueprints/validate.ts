// Validates a Blueprint document (blueprints-and-policy §2–§4) into the typed model. The
// first fault wins and becomes one diagnostic with the error class, the YAML path and,
// when the path maps to a node, its line and column.
import { parsePermissionPolicy, policyVariableReferences } from '../policy';
import { storeKeyProblem } from '../secrets';
import type { SecretDeclaration, VariableDeclaration } from '../sessions';
import type { AuthProxyRule, GitDeclaration, LlmDeclaration, McpServerDeclaration, MountDeclaration, VfsDeclaration, VfsMode } from './model';
import type { TreeNode } from './yaml-tree';

export type BlueprintErrorCode =
  | 'parse_error'
  | 'invalid_kind'
  | 'invalid_name'
  | 'invalid_packages'
  | 'invalid_secrets'
  | 'invalid_auth_proxy'
  | 'invalid_permissions'
  | 'invalid_variables'
  | 'invalid_git'
  | 'invalid_vfs'
  | 'invalid_mcp'
  | 'invalid_llm'
  | 'invalid_filter';

const PREFIX: Record<BlueprintErrorCode, string> = {
  parse_error: 'blueprint parse error',
  invalid_kind: 'invalid blueprint kind',
  invalid_name: 'invalid blueprint name',
  invalid_packages: 'invalid packages config',
  invalid_secrets: 'invalid secrets config',
  invalid_auth_proxy: 'invalid auth_proxy config',
  invalid_permissions: 'invalid permissions config',
  invalid_variables: 'invalid variables config',
  invalid_git: 'invalid git config',
  invalid_vfs: 'invalid vfs config',
  invalid_mcp: 'invalid mcp config',
  invalid_llm: 'invalid llm config',
  invalid_filter: 'invalid filter',
};

export class BlueprintValidationError extends Error {
  constructor(
    readonly code: BlueprintErrorCode,
    readonly leaf: string,
    readonly path: Array<string | number>,
    readonly offset: number | null,
  ) {
    super(code === 'parse_error' && leaf === 'blueprint YAML is empty' ? leaf : `${PREFIX[code]}: ${leaf}`);
  }
}

const NAME = /^[A-Za-z0-9_-]+$/;
type Path = Array<string | number>;

function fail(code: BlueprintErrorCode, leaf: string, path: Path, node?: TreeNode | null): never {
  throw new BlueprintValidationError(code, leaf, path, node ? node.offset : null);
}

type MapNode = Extract<TreeNode, { kind: 'map' }>;

function asMap(node: TreeNode, path: Path): MapNode | null {
  if (node.kind === 'null') return null;
  if (node.kind !== 'map') fail('parse_error', `${path.join('.') || 'document'}: expected a mapping`, path, node);
  return node;
}

function checkKeys(node: MapNode, accepted: readonly string[], path: Path): void {
  for (const entry of node.entries) {
    if (!accepted.includes(entry.key)) {
      fail('parse_error', `unknown field \`${entry.key}\`${path.length ? ` in ${path.join('.')}` : ''}, expected one of ${accepted.map((k) => `\`${k}\``).join(', ')}`, [...path, entry.key], { kind: 'null', offset: entry.keyOffset });
    }
  }
}

function get(node: MapNode, key: string): TreeNode | undefined {
  const entry = node.entries.find((e) => e.key === key);
  return entry && entry.value.kind !== 'null' ? entry.value : undefined;
}

function text(node: TreeNode, path: Path): string {
  if (node.kind !== 'scalar' || (typeof node.value === 'object' && node.value !== null)) fail('parse_error', `${path.join('.')}: expected a string`, path, node);
  return typeof node.value === 'string' ? node.value : node.text;
}

function bool(node: TreeNode, path: Path): boolean {
  if (node.kind !== 'scalar' || typeof node.value !== 'boolean' || node.quoted) fail('parse_error', `${path.join('.')}: expected \`true\` or \`false\``, path, node);
  return node.value;
}

function integer(node: TreeNode, path: Path): number {
  if (node.kind !== 'scalar' || typeof node.value !== 'number' || node.quoted || !Number.isSafeInteger(node.value)) fail('parse_error', `${path.join('.')}: expected a whole number`, path, node);
  return node.value;
}

function stringMap(node: TreeNode | undefined, path: Path): Record<string, string> | undefined {
  if (!node) return undefined;
  const map = asMap(node, path);
  const out: Record<string, string> = {};
  for (const entry of map?.entries ?? []) out[entry.key] = entry.value.kind === 'null' ? '' : text(entry.value, [...path, entry.key]);
  return out;
}

export function parseDuration(raw: string, path: Path, node: TreeNode): number {
  const trimmed = raw.trim();
  const match = /^([0-9]+)\s*([A-Za-z]*)$/.exec(trimmed);
  if (!match) fail('parse_error', `idle_timeout: invalid duration '${raw}': expected <number><s|m|h>`, path, node);
  if (match[2] === '') fail('parse_error', `idle_timeout: duration '${raw}' needs a unit (s, m, or h)`, path, node);
  const unit = match[2].toLowerCase();
  const factor = unit === 's' ? 1 : unit === 'm' ? 60 : unit === 'h' ? 3600 : null;
  if (factor === null) fail('parse_error', `idle_timeout: unknown duration unit '${match[2]}' in '${raw}' (use s, m, or h)`, path, node);
  const seconds = Number(match[1]) * factor;
  if (!Number.isSafeInteger(seconds * 1000)) fail('parse_error', `idle_timeout: duration '${raw}' overflows`, path, node);
  if (seconds < 1) fail('parse_error', `idle_timeout: duration '${raw}' must be at least 1s`, path, node);
  return seconds;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4, tib: 1024 ** 4 };

function parseSize(node: TreeNode, path: Path): number {
  if (node.kind === 'scalar' && typeof node.value === 'number' && !node.quoted) {
    if (!Number.isSafeInteger(node.value) || node.value < 1) fail('parse_error', `size_limit: invalid size '${node.text}'`, path, node);
    return node.value;
  }
  const raw = text(node, path);
  const match = /^\s*([0-9]+)\s*([A-Za-z]*)\s*$/.exec(raw);
  if (!match) fail('parse_error', `size_limit: invalid size '${raw}'`, path, node);
  const unit = SIZE_UNITS[match[2].toLowerCase()];
  if (unit === undefined) fail('parse_error', `size_limit: unknown size unit '${match[2]}' in '${raw}' (use B, KB, MB, GB, TB)`, path, node);
  const bytes = Number(match[1]) * unit;
  if (!Number.isSafeInteger(bytes)) fail('parse_error', `size_limit: size '${raw}' overflows`, path, node);
  if (bytes < 1) fail('parse_error', 'size_limit: must be at least 1 byte', path, node);
  return bytes;
}

// --- vfs --------------------------------------------------------------------------------

const VFS_MODES: readonly VfsMode[] = ['none', 'ephemeral', 'per_session', 'named'];
const MODE_FIELDS: Record<VfsMode, readonly string[]> = {
  none: ['mode'],
  ephemeral: ['mode', 'size_limit', 'cwd', 'mounts'],
  per_session: ['mode', 'size_limit', 'cwd', 'mounts'],
  named: ['mode', 'volume', 'subPath', 'access', 'cwd', 'mounts'],
};
const VFS_KEYS = ['mode', 'size_limit', 'volume', 'subPath', 'access', 'cwd', 'mounts'];

function modeConflict(key: string, mode: VfsMode, explicitMode: boolean): string {
  if (!explicitMode && (key === 'volume' || key === 'subPath' || key === 'access')) {
    return `'${key}' is not valid here: this vfs block has no \`mode:\` and therefore defaults to 'ephemeral'; \`volume\` and \`access\` belong to \`mode: named\` or to an entry under \`mounts:\``;
  }
  if (key === 'size_limit' && mode === 'named') return "'size_limit' is not valid for vfs mode 'named'; a named volume's size limit is set by the operator where the server declares it";
  if (key === 'mounts' && mode === 'none') return "'mounts' is not valid for vfs mode 'none'; 'none' has no root to mount into";
  if (key === 'volume' || key === 'access' || key === 'subPath') return `'${key}' is not valid for vfs mode '${mode}'; \`volume\` and \`access\` belong to \`mode: named\` or to an entry under \`mounts:\``;
  return `'${key}' is not valid for vfs mode '${mode}'`;
}

function parseAccess(node: TreeNode, path: Path): 'read_only' | 'read_write' {
  const value = text(node, path);
  if (value !== 'read_only' && value !== 'read_write') fail('parse_error', `unknown variant \`${value}\`, expected one of \`read_only\`, \`read_write\``, path, node);
  return value;
}

function checkMountPath(mountPath: string, others: string[], path: Path, node: TreeNode): void {
  const bad: (why: string) => never = (why) => fail('parse_error', `vfs mount '${mountPath}': ${why}`, path, node);
  if (!mountPath.startsWith('/') || mountPath === '/') bad('a mount path must be an absolute guest path other than /');
  if (Buffer.byteLength(mountPath) > 4096) bad('a mount path is at most 4096 bytes');
  if (!/^[A-Za-z0-9._\/-]+$/.test(mountPath)) bad('a mount path uses only ASCII letters, digits, `.`, `_`, `-` and `/`');
  const components = mountPath.slice(1).split('/');
  if (components.length > 64) bad('a mount path has at most 64 components');
  if (components.some((c) => c === '' || c === '.' || c === '..')) bad('a mount path has no empty, `.` or `..` component');
  if (components.some((c) => c.endsWith('.'))) bad('no component of a mount path may end in `.`');
  if (components.some((c) => c.toLowerCase() === '.git')) bad('a mount path may not contain a `.git` component');
  for (const other of others) {
    const a = components.map((c) => c.toLowerCase());
    const b = other.slice(1).split('/').map((c) => c.toLowerCase());
    const shorter = Math.min(a.length, b.length);
    if (a.slice(0, shorter).join('/') === b.slice(0, shorter).join('/')) bad(`overlaps the mount '${other}' (mounts may not be inside, contain or equal one another)`);
  }
}

function parseVfs(node: TreeNode | undefined): VfsDeclaration {
  if (!node) return { mode: 'ephemeral' };
  const path = ['vfs'];
  if (node.kind === 'scalar') {
    const mode = text(node, path);
    if (mode === 'named') fail('parse_error', "vfs mode 'named' needs a volume: write `vfs: {mode: named, volume: <name>}`", path, node);
    if (!(VFS_MODES as readonly string[]).includes(mode)) fail('parse_error', `unknown vfs mode '${mode}', expected one of ${VFS_MODES.map((m) => `\`${m}\``).join(', ')}`, path, node);
    return { mode: mode as VfsMode };
  }
  const map = asMap(node, path)!;
  checkKeys(map, VFS_KEYS, path);
  const modeNode = get(map, 'mode');
  const mode = (modeNode ? text(modeNode, [...path, 'mode']) : 'ephemeral') as VfsMode;
  if (!VFS_MODES.includes(mode)) fail('parse_error', `unknown vfs mode '${mode}', expected one of ${VFS_MODES.map((m) => `\`${m}\``).join(', ')}`, [...path, 'mode'], modeNode);
  for (const entry of map.entries) {
    if (entry.value.kind === 'null') continue;
    if (!MODE_FIELDS[mode].includes(entry.key)) fail('parse_error', modeConflict(entry.key, mode, modeNode !== undefined), [...path, entry.key], modeNode ? { kind: 'null', offset: entry.keyOffset } : node);
  }
  const vfs: VfsDeclaration = { mode };
  const size = get(map, 'size_limit');
  if (size) vfs.size_limit = parseSize(size, [...path, 'size_limit']);
  if (mode === 'named') {
    const volume = get(map, 'volume');
    if (!volume) fail('parse_error', "vfs mode 'named' needs a `volume`: name a volume the operator declared", [...path, 'volume'], node);
    if (volume.kind !== 'scalar' || typeof volume.value !== 'string') fail('parse_error', 'vfs.volume must be a string (quote a numeric-looking volume name)', [...path, 'volume'], volume);
    if (volume.value === '') fail('parse_error', 'vfs.volume is empty: name a volume the operator declared', [...path, 'volume'], volume);
    vfs.volume = volume.value;
    const subPath = get(map, 'subPath');
    if (subPath) vfs.subPath = text(subPath, [...path, 'subPath']);
    const access = get(map, 'access');
    if (access) vfs.access = parseAccess(access, [...path, 'access']);
  }
  const cwd = get(map, 'cwd');
  if (cwd) vfs.cwd = text(cwd, [...path, 'cwd']);
  const mounts = get(map, 'mounts');
  if (mounts) {
    const mountMap = asMap(mounts, [...path, 'mounts']);
    const declared: Record<string, MountDeclaration> = {};
    const seen: string[] = [];
    for (const entry of mountMap?.entries ?? []) {
      const mountPath = [...path, 'mounts', entry.key];
      checkMountPath(entry.key, seen, mountPath, { kind: 'null', offset: entry.keyOffset });
      seen.push(entry.key);
      const fields = asMap(entry.value, mountPath);
      if (!fields) fail('parse_error', `vfs mount '${entry.key}': needs \`mode: named\` and a \`volume\``, mountPath, entry.value);
      checkKeys(fields, ['mode', 'volume', 'subPath', 'access'], mountPath);
      const mountMode = get(fields, 'mode');
      if (!mountMode || text(mountMode, [...mountPath, 'mode']) !== 'named') fail('parse_error', `vfs mount '${entry.key}': mounts are always named volumes; write \`mode: named\``, [...mountPath, 'mode'], mountMode ?? entry.value);
      const volume = get(fields, 'volume');
      if (!volume || volume.kind !== 'scalar' || typeof volume.value !== 'string' || volume.value === '') fail('parse_error', `vfs mount '${entry.key}': \`volume\` must name a volume the operator declared`, [...mountPath, 'volume'], volume ?? entry.value);
      const mount: MountDeclaration = { volume: volume.value as string };
      const subPath = get(fields, 'subPath');
      if (subPath) mount.subPath = text(subPath, [...mountPath, 'subPath']);
      const access = get(fields, 'access');
      if (access) mount.access = parseAccess(access, [...mountPath, 'access']);
      declared[entry.key] = mount;
    }
    if (Object.keys(declared).length > 16) fail('parse_error', 'vfs: at most 16 mounts', [...path, 'mounts'], mounts);
    if (Object.keys(declared).length > 0) vfs.mounts = declared;
  }
  return vfs;
}

/** Registration-time checks of a path template (cwd absolute, subPath relative). */
function checkPathTemplate(value: string, kind: 'cwd' | 'subPath', variables: ReadonlySet<string>, path: Path, node: TreeNode | null): void {
  const bad: (why: string) => never = (why) => fail('invalid_vfs', `${path.join('.')}: ${why}`, path, node);
  if (Buffer.byteLength(value) > 4096) bad(kind === 'cwd' ? 'must be an absolute guest path of at most 4096 bytes' : 'must be a relative volume path of at most 4096 bytes');
  if (kind === 'cwd' && !value.startsWith('/')) bad('must be an absolute guest path of at most 4096 bytes');
  if (kind === 'subPath' && value.startsWith('/')) bad('must be a relative volume path of at most 4096 bytes');
  if (kind === 'cwd' && value === '/') return;
  const components = (kind === 'cwd' ? value.slice(1) : value).split('/');
  for (const component of components) {
    if (component.includes('${')) {
      const match = /^\$\{vars\.([^{}]+)\}$/.exec(component);
      if (!match) bad('use ${vars.NAME} as a whole path component');
      if (!variables.has(match[1])) bad(`references undeclared variable '\${vars.${match[1]}}'`);
    } else if (component === '' || component === '.' || component === '..' || component.includes('\\') || component.includes('\0')) {
      bad("each path component must be nonempty and contain no separator, NUL, '.' or '..' component");
    }
  }
}

// --- the document -----------------------------------------------------------------------

const TOP_KEYS = ['kind', 'name', 'allow_insecure_http', 'idle_timeout', 'vfs', 'secrets', 'variables', 'packages', 'auth_proxy', 'git', 'default', 'permissions', 'mcp', 'llm'];
const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** Everything validated, in the reference's stage order. */
export function validateDocument(root: TreeNode) {
  const doc = asMap(root, [])!;
  checkKeys(doc, TOP_KEYS, []);

  // Stage 2: structure (document order is approximated by key order of this function).
  const kindNode = get(doc, 'kind');
  const kind = kindNode ? text(kindNode, ['kind']) : undefined;
  const nameNode = get(doc, 'name');
  if (!nameNode) fail('parse_error', 'missing field `name`', ['name'], root);
  const name = text(nameNode, ['name']);
  const allowInsecureHttp = get(doc, 'allow_insecure_http') ? bool(get(doc, 'allow_insecure_http')!, ['allow_insecure_http']) : false;
  const idleNode = get(doc, 'idle_timeout');
  const idleTimeoutSecs = idleNode ? parseDuration(text(idleNode, ['idle_timeout']), ['idle_timeout'], idleNode) : 86_400;
  const vfs = parseVfs(get(doc, 'vfs'));

  const secrets = new Map<string, SecretDeclaration>();
  const secretsNode = get(doc, 'secrets');
  for (const entry of (secretsNode && asMap(secretsNode, ['secrets'])?.entries) || []) {
    const path = ['secrets', entry.key];
    const source = entry.value.kind === 'null' ? null : asMap(entry.value, path);
    const keys = source?.entries.map((e) => e.key) ?? [];
    for (const key of keys) if (key !== 'store' && key !== 'harness') fail('parse_error', `secret '${entry.key}': unknown source \`${key}\`, expected one of \`store\`, \`harness\``, [...path, key], entry.value);
    const store = source && source.entries.find((e) => e.key === 'store');
    const harness = source && source.entries.find((e) => e.key === 'harness');
    if (!source || (store ? 1 : 0) + (harness ? 1 : 0) !== 1 || (store && store.value.kind === 'null') || (harness && harness.value.kind === 'null')) {
      fail('parse_error', `secret '${entry.key}': a secret needs exactly one source: store / harness`, path, entry.value);
    }
    if (store) secrets.set(entry.key, { source: 'store', key: text(store.value, [...path, 'store']) });
    else {
      const harnessMap = harness!.value.kind === 'map' ? harness!.value : fail('parse_error', `secret '${entry.key}': \`harness\` takes \`{}\` or \`{required: true}\``, [...path, 'harness'], harness!.value);
      checkKeys(harnessMap, ['required'], [...path, 'harness']);
      const required = get(harnessMap, 'required');
      secrets.set(entry.key, { source: 'harness', required: required ? bool(required, [...path, 'harness', 'required']) : false });
    }
  }

  const variables = new Map<string, VariableDeclaration>();
  const variablesNode = get(doc, 'variables');
  const variableNodes = new Map<string, TreeNode>();
  for (const entry of (variablesNode && asMap(variablesNode, ['variables'])?.entries) || []) {
    const path = ['variables', entry.key];
    const map = entry.value.kind === 'null' ? null : asMap(entry.value, path);
    if (map) checkKeys(map, ['required', 'default'], path);
    const required = map && get(map, 'required') ? bool(get(map, 'required')!, [...path, 'required']) : false;
    const defaultValue = map && get(map, 'default') ? text(get(map, 'default')!, [...path, 'default']) : undefined;
    variables.set(entry.key, { required, ...(defaultValue !== undefined ? { default: defaultValue } : {}) });
    variableNodes.set(entry.key, entry.value.kind === 'null' ? { kind: 'null', offset: entry.keyOffset } : entry.value);
  }

  const packagesNode = get(doc, 'packages');
  const packages: string[] = [];
  if (packagesNode) {
    if (packagesNode.kind === 'map') fail('parse_error', 'packages: versions are not supported; list package names only (a YAML list)', ['packages'], packagesNode);
    if (packagesNode.kind !== 'seq') fail('parse_error', 'packages: expected a list of package names', ['packages'], packagesNode);
    for (let i = 0; i < packagesNode.items.length; i++) {
      const packageName = text(packagesNode.items[i], ['packages', i]);
      if (packages.includes(packageName)) fail('parse_error', `duplicate package \`${packageName}\` in packages`, ['packages'], packagesNode.items[i]);
      packages.push(packageName);
    }
  }

  const authProxy: AuthProxyRule[] = [];
  const authNode = get(doc, 'auth_proxy');
  if (authNode) {
    if (authNode.kind !== 'seq') fail('parse_error', 'auth_proxy: expected a list of rules', ['auth_proxy'], authNode);
    authNode.items.forEach((item, i) => {
      const path = ['auth_proxy', i];
      const map = asMap(item, path);
      if (!map) fail('parse_error', 'auth_proxy: a rule must be a mapping', path, item);
      checkKeys(map, ['host', 'allow_insecure_http', 'auth', 'headers', 'query'], path);
      const host = get(map, 'host');
      if (!host) fail('parse_error', 'auth_proxy: missing field `host`', path, item);
      const rule: AuthProxyRule = { host: text(host, [...path, 'host']).toLowerCase() };
      if (get(map, 'allow_insecure_http')) rule.allow_insecure_http = bool(get(map, 'allow_insecure_http')!, [...path, 'allow_insecure_http']);
      const auth = get(map, 'auth');
      if (auth) {
        const authMap = asMap(auth, [...path, 'auth'])!;
        checkKeys(authMap, ['bearer', 'basic'], [...path, 'auth']);
        const bearer = get(authMap, 'bearer');
        const basic = get(authMap, 'basic');
        if ((bearer ? 1 : 0) + (basic ? 1 : 0) !== 1) fail('invalid_auth_proxy', 'auth must set exactly one of `bearer` or `basic`', [...path, 'auth'], auth);
        if (bearer) rule.auth = { bearer: text(bearer, [...path, 'auth', 'bearer']) };
        else {
          const basicMap = asMap(basic!, [...path, 'auth', 'basic'])!;
          checkKeys(basicMap, ['username', 'password'], [...path, 'auth', 'basic']);
          const username = get(basicMap, 'username');
          const password = get(basicMap, 'password');
          if (!username || !password) fail('parse_error', 'auth.basic needs `username` and `password`', [...path, 'auth', 'basic'], basic);
          rule.auth = { basic: { username: text(username, [...path, 'auth', 'basic', 'username']), password: text(password, [...path, 'auth', 'basic', 'password']) } };
        }
      }
      const headers = stringMap(get(map, 'headers'), [...path, 'headers']);
      if (headers && Object.keys(headers).length > 0) rule.headers = headers;
      const query = stringMap(get(map, 'query'), [...path, 'query']);
      if (query && Object.keys(query).length > 0) rule.query = query;
      authProxy.push(rule);
    });
  }

  const gitNode = get(doc, 'git');
  let git: GitDeclaration | null = null;
  if (gitNode) {
    const map = asMap(gitNode, ['git'])!;
    checkKeys(map, ['identity', 'username'], ['git']);
    const identity = get(map, 'identity');
    if (!identity) fail('parse_error', 'git: missing field `identity`', ['git'], gitNode);
    const identityMap = asMap(identity, ['git', 'identity'])!;
    checkKeys(identityMap, ['name', 'email'], ['git', 'identity']);
    const gname = get(identityMap, 'name');
    const email = get(identityMap, 'email');
    if (!gname || !email) fail('parse_error', 'git.identity needs `name` and `email`', ['git', 'identity'], identity);
    git = { identity: { name: text(gname, ['git', 'identity', 'name']), email: text(email, ['git', 'identity', 'email']) } };
    if (get(map, 'username')) git.username = text(get(map, 'username')!, ['git', 'username']);
  }

  const defaultNode = get(doc, 'default');
  const permissionsNode = get(doc, 'permissions');
  const policyResult = parsePermissionPolicy(defaultNode ? text(defaultNode, ['default']) : undefined, permissionsNode ? toPlain(permissionsNode) : undefined);
  if ('error' in policyResult && policyResult.error.code === 'parse_error') failAt(policyResult.error, root);
  if ('error' in policyResult && policyResult.error.code === 'invalid_filter') failAt({ ...policyResult.error, code: 'parse_error' }, root);

  const mcp: Record<string, McpServerDeclaration> = {};
  const mcpNode = get(doc, 'mcp');
  for (const entry of (mcpNode && asMap(mcpNode, ['mcp'])?.entries) || []) {
    const path = ['mcp', entry.key];
    const map = asMap(entry.value, path);
    if (!map) fail('parse_error', `mcp server '${entry.key}': needs a \`url\``, path, entry.value);
    checkKeys(map, ['transport', 'url', 'headers', 'auth'], path);
    const transport = get(map, 'transport') ? text(get(map, 'transport')!, [...path, 'transport']) : 'streamable_http';
    if (transport === 'stdio') fail('parse_error', "stdio transport is not supported; use 'streamable_http'", [...path, 'transport'], get(map, 'transport'));
    if (transport !== 'streamable_http' && transport !== 'sse') fail('parse_error', `unknown transport '${transport}', expected one of \`streamable_http\`, \`sse\``, [...path, 'transport'], get(map, 'transport'));
    const url = get(map, 'url');
    if (!url) fail('parse_error', `mcp server '${entry.key}': missing field \`url\``, path, entry.value);
    const server: McpServerDeclaration = { url: text(url, [...path, 'url']) };
    const headers = stringMap(get(map, 'headers'), [...path, 'headers']);
    if (headers && Object.keys(headers).length > 0) server.headers = headers;
    const auth = get(map, 'auth');
    if (auth) {
      const authMap = asMap(auth, [...path, 'auth'])!;
      checkKeys(authMap, ['type', 'client_id', 'authorization_endpoint', 'token_endpoint', 'scopes'], [...path, 'auth']);
      const type = get(authMap, 'type');
      if (!type || text(type, [...path, 'auth', 'type']) !== 'oauth2') fail('parse_error', 'mcp auth: `type` is required and must be `oauth2`', [...path, 'auth', 'type'], type ?? auth);
      server.auth = { type: 'oauth2' };
      for (const key of ['client_id', 'authorization_endpoint', 'token_endpoint'] as const) if (get(authMap, key)) server.auth[key] = text(get(authMap, key)!, [...path, 'auth', key]);
      const scopes = get(authMap, 'scopes');
      if (scopes) server.auth.scopes = scopes.kind === 'seq' ? scopes.items.map((s, j) => text(s, [...path, 'auth', 'scopes', j])) : fail('parse_error', 'mcp auth.scopes must be a list', [...path, 'auth', 'scopes'], scopes);
    }
    mcp[entry.key] = server;
  }

  const llm = parseLlm(get(doc, 'llm'));

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
  authProxy.forEach((rule, i) => checkAuthProxyRule(rule, i, secrets, authNode));
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
  checkMcp(mcp, secrets, policy, allowInsecureHttp, mcpNode ?? null);
  checkLlm(llm, secrets);

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

const SECRET_REF = /\$\{secrets\.([^}]*)\}/g;

function secretReferences(value: string, where: string, code: BlueprintErrorCode, path: Path, node: TreeNode | null, secrets: Map<string, SecretDeclaration>): void {
  const open = value.split('${secrets.').length - 1;
  const refs = [...value.matchAll(SECRET_REF)];
  if (refs.length !== open) fail(code, `${where}: unterminated \`\${secrets.\` reference`, path, node);
  for (const ref of refs) if (!secrets.has(ref[1])) fail(code, `${where}: references undeclared secret '${ref[1]}'`, path, node);
}

function checkAuthProxyRule(rule: AuthProxyRule, index: number, secrets: Map<string, SecretDeclaration>, node: TreeNode | undefined): void {
  const path = ['auth_proxy', index];
  const where = `auth_proxy rule ${index} (${rule.host})`;
  if (!/^[a-z0-9.-]+$|^\[?[0-9a-f:.]+\]?$/.test(rule.host)) fail('invalid_auth_proxy', `${where}: host must be a bare host name or IP (no scheme, port, path or whitespace)`, [...path, 'host'], node);
  if (!rule.auth && !rule.headers && !rule.query) fail('invalid_auth_proxy', `${where}: a rule must set at least one of \`auth\`, \`headers\`, \`query\``, path, node);
  if (rule.auth && Object.keys(rule.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) fail('invalid_auth_proxy', `${where}: \`auth\` and an Authorization header cannot be combined`, path, node);
  const named = rule.auth ? ('bearer' in rule.auth ? rule.auth.bearer : rule.auth.basic.password) : null;
  if (named !== null && !secrets.has(named)) fail('invalid_auth_proxy', `${where}: references undeclared secret '${named}'`, [...path, 'auth'], node);
  for (const [key, value] of Object.entries({ ...(rule.headers ?? {}), ...(rule.query ?? {}) })) secretReferences(value, `${where} ${key}`, 'invalid_auth_proxy', path, node ?? null, secrets);
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

function checkMcp(mcp: Record<string, McpServerDeclaration>, secrets: Map<string, SecretDeclaration>, policy: { callers: Map<string, Array<{ capability: string }>> }, allowInsecure: boolean, node: TreeNode | null): void {
  for (const [server, declaration] of Object.entries(mcp)) {
    const path = ['mcp', server];
    if (!NAME.test(server)) fail('invalid_mcp', `server name '${server}' contains characters outside [A-Za-z0-9_-]`, path, node);
    let url: URL | null = null;
    try {
      url = new URL(declaration.url);
    } catch {
      url = null;
    }
    if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && allowInsecure))) fail('invalid_mcp', `server '${server}': url must be an absolute https:// URL (http:// only with allow_insecure_http: true)`, [...path, 'url'], node);
    if (declaration.headers && declaration.auth) fail('invalid_mcp', `server '${server}': \`headers\` and \`auth\` are mutually exclusive`, path, node);
    for (const [key, value] of Object.entries(declaration.headers ?? {})) secretReferences(value, `server '${server}' header ${key}`, 'invalid_mcp', [...path, 'headers', key], node, secrets);
    const auth = declaration.auth;
    if (auth) for (const value of [auth.client_id, auth.authorization_endpoint, auth.token_endpoint, ...(auth.scopes ?? [])]) if (value) secretReferences(value, `server '${server}' auth`, 'invalid_mcp', [...path, 'auth'], node, secrets);
  }
  for (const [caller, rules] of policy.callers) {
    rules.forEach((rule, index) => {
      if (!rule.capability.startsWith('mcp.')) return;
      const rest = rule.capability.slice(4);
      if (rest.includes('/')) fail('invalid_mcp', `permissions for '${caller}': capability '${rule.capability}' is not supported; use capability \`mcp.${rest.split('/')[0]}\` with a filter such as \`tool == "${rest.split('/')[1]}"\``, ['permissions', caller, index, 'capability'], null);
      if (!(rest in mcp)) fail('invalid_mcp', `permissions for '${caller}': capability '${rule.capability}' names an MCP server that is not declared under \`mcp:\``, ['permissions', caller, index, 'capability'], null);
    });
  }
}

function parseLlm(node: TreeNode | undefined): LlmDeclaration {
  if (!node) return {};
  const map = asMap(node, ['llm'])!;
  checkKeys(map, ['providers', 'models', 'embedding_models'], ['llm']);
  const llm: LlmDeclaration = {};
  const providers = get(map, 'providers');
  if (providers) {
    llm.providers = {};
    for (const entry of asMap(providers, ['llm', 'providers'])?.entries ?? []) {
      const path = ['llm', 'providers', entry.key];
      const fields = asMap(entry.value, path) ?? fail('parse_error', `llm provider '${entry.key}' needs a \`type\``, path, entry.value);
      checkKeys(fields, ['type', 'base_url', 'api_key', 'supports_structured_outputs'], path);
      const type = get(fields, 'type');
      if (!type) fail('parse_error', `llm provider '${entry.key}': missing field \`type\``, path, entry.value);
      llm.providers[entry.key] = {
        type: text(type, [...path, 'type']),
        ...(get(fields, 'base_url') ? { base_url: text(get(fields, 'base_url')!, [...path, 'base_url']) } : {}),
        ...(get(fields, 'api_key') ? { api_key: text(get(fields, 'api_key')!, [...path, 'api_key']) } : {}),
        ...(get(fields, 'supports_structured_outputs') ? { supports_structured_outputs: bool(get(fields, 'supports_structured_outputs')!, [...path, 'supports_structured_outputs']) } : {}),
      };
    }
  }
  const models = get(map, 'models');
  if (models) {
    llm.models = {};
    for (const entry of asMap(models, ['llm', 'models'])?.entries ?? []) {
      const path = ['llm', 'models', entry.key];
      const fields = asMap(entry.value, path) ?? fail('parse_error', `llm model '${entry.key}' needs a \`provider\``, path, entry.value);
      checkKeys(fields, ['provider', 'context_window', 'output_reserve', 'description'], path);
      const provider = get(fields, 'provider');
      if (!provider) fail('parse_error', `llm model '${entry.key}': missing field \`provider\``, path, entry.value);
      llm.models[entry.key] = {
        provider: text(provider, [...path, 'provider']),
        ...(get(fields, 'context_window') ? { context_window: integer(get(fields, 'context_window')!, [...path, 'context_window']) } : {}),
        ...(get(fields, 'output_reserve') ? { output_reserve: integer(get(fields, 'output_reserve')!, [...path, 'output_reserve']) } : {}),
        ...(get(fields, 'description') ? { description: text(get(fields, 'description')!, [...path, 'description']) } : {}),
      };
    }
  }
  const embedding = get(map, 'embedding_models');
  if (embedding) {
    llm.embedding_models = {};
    for (const entry of asMap(embedding, ['llm', 'embedding_models'])?.entries ?? []) {
      const path = ['llm', 'embedding_models', entry.key];
      const fields = asMap(entry.value, path) ?? fail('parse_error', `embedding model '${entry.key}' needs \`provider\` and \`dimensions\``, path, entry.value);
      checkKeys(fields, ['provider', 'dimensions', 'max_input_bytes', 'max_input_tokens', 'description'], path);
      const provider = get(fields, 'provider');
      const dimensions = get(fields, 'dimensions');
      if (!provider || !dimensions) fail('parse_error', `embedding model '${entry.key}': \`provider\` and \`dimensions\` are required`, path, entry.value);
      llm.embedding_models[entry.key] = {
        provider: text(provider, [...path, 'provider']),
        dimensions: integer(dimensions, [...path, 'dimensions']),
        ...(get(fields, 'max_input_bytes') ? { max_input_bytes: integer(get(fields, 'max_input_bytes')!, [...path, 'max_input_bytes']) } : {}),
        ...(get(fields, 'max_input_tokens') ? { max_input_tokens: integer(get(fields, 'max_input_tokens')!, [...path, 'max_input_tokens']) } : {}),
        ...(get(fields, 'description') ? { description: text(get(fields, 'description')!, [...path, 'description']) } : {}),
      };
    }
  }
  return llm;
}

const PROVIDER_TYPES = ['anthropic', 'google', 'openai', 'openai-compatible'];

function checkLlm(llm: LlmDeclaration, secrets: Map<string, SecretDeclaration>): void {
  for (const [name, provider] of Object.entries(llm.providers ?? {})) {
    const path = ['llm', 'providers', name];
    if (!PROVIDER_TYPES.includes(provider.type)) fail('invalid_llm', `provider '${name}': type must be one of ${PROVIDER_TYPES.join(', ')}`, [...path, 'type'], null);
    if (provider.type === 'openai-compatible' && !provider.base_url) fail('invalid_llm', `provider '${name}': \`base_url\` is required for openai-compatible`, path, null);
    if (provider.api_key !== undefined) {
      const match = /^\$\{secrets\.([^}]+)\}$/.exec(provider.api_key);
      if (!match) fail('invalid_llm', `provider '${name}': api_key must be exactly one \${secrets.NAME} reference`, [...path, 'api_key'], null);
      if (!secrets.has(match[1])) fail('invalid_llm', `provider '${name}': api_key references undeclared secret '${match[1]}'`, [...path, 'api_key'], null);
    }
  }
  for (const [name, model] of Object.entries(llm.models ?? {})) {
    if (!llm.providers?.[model.provider]) fail('invalid_llm', `model '${name}': provider '${model.provider}' is not declared`, ['llm', 'models', name, 'provider'], null);
  }
  for (const [name, model] of Object.entries(llm.embedding_models ?? {})) {
    const provider = llm.providers?.[model.provider];
    if (!provider) fail('invalid_llm', `embedding model '${name}': provider '${model.provider}' is not declared`, ['llm', 'embedding_models', name, 'provider'], null);
    if (provider.type === 'anthropic') fail('invalid_llm', `embedding model '${name}': provider '${model.provider}' (anthropic) has no embeddings`, ['llm', 'embedding_models', name, 'provider'], null);
  }
}
