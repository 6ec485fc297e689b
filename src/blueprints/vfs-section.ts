// The `vfs` section: modes, the fields each mode accepts,
// mounts and their path rules (stage 2), and the cwd/subPath templates (stage 3).
import type { MountDeclaration, VfsDeclaration, VfsMode, VolumeAccess } from './model';
import { asMap, checkKeys, fail, get, parseSize, text, type Path } from './readers';
import { fieldNames, VFS_MODES, VfsMappingSchema, VfsMountSchema, VOLUME_ACCESS } from './schema';
import type { TreeNode } from './yaml-tree';

const MODE_FIELDS: Record<VfsMode, readonly string[]> = {
  none: ['mode'],
  ephemeral: ['mode', 'size_limit', 'cwd', 'mounts'],
  per_session: ['mode', 'size_limit', 'cwd', 'mounts'],
  named: ['mode', 'volume', 'subPath', 'access', 'cwd', 'mounts'],
};
const VFS_KEYS = fieldNames(VfsMappingSchema);

function modeConflict(key: string, mode: VfsMode, explicitMode: boolean): string {
  if (!explicitMode && (key === 'volume' || key === 'subPath' || key === 'access')) {
    return `'${key}' is not valid here: this vfs block has no \`mode:\` and therefore defaults to 'ephemeral'; \`volume\` and \`access\` belong to \`mode: named\` or to an entry under \`mounts:\``;
  }
  if (key === 'size_limit' && mode === 'named') return "'size_limit' is not valid for vfs mode 'named'; a named volume's size limit is set by the operator where the server declares it";
  if (key === 'mounts' && mode === 'none') return "'mounts' is not valid for vfs mode 'none'; 'none' has no root to mount into";
  if (key === 'volume' || key === 'access' || key === 'subPath') return `'${key}' is not valid for vfs mode '${mode}'; \`volume\` and \`access\` belong to \`mode: named\` or to an entry under \`mounts:\``;
  return `'${key}' is not valid for vfs mode '${mode}'`;
}

function parseAccess(node: TreeNode, path: Path): VolumeAccess {
  const value = text(node, path);
  const access = VOLUME_ACCESS.find((a) => a === value);
  if (!access) fail('parse_error', `unknown variant \`${value}\`, expected one of ${VOLUME_ACCESS.map((a) => `\`${a}\``).join(', ')}`, path, node);
  return access;
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

export function parseVfs(node: TreeNode | undefined): VfsDeclaration {
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
  if (!(VFS_MODES as readonly string[]).includes(mode)) fail('parse_error', `unknown vfs mode '${mode}', expected one of ${VFS_MODES.map((m) => `\`${m}\``).join(', ')}`, [...path, 'mode'], modeNode);
  const modeIndex = map.entries.findIndex((e) => e.key === 'mode' && e.value.kind !== 'null');
  map.entries.forEach((entry, index) => {
    if (entry.value.kind === 'null' || MODE_FIELDS[mode].includes(entry.key)) return;
    // Read in order, a key before `mode:` cannot yet be known to conflict: the block itself is at fault.
    const modeSeenFirst = modeIndex !== -1 && modeIndex < index;
    const message = modeConflict(entry.key, mode, modeNode !== undefined);
    if (modeSeenFirst) fail('parse_error', message, [...path, entry.key], { kind: 'null', offset: entry.keyOffset });
    fail('parse_error', message, path, node);
  });
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
      checkKeys(fields, fieldNames(VfsMountSchema), mountPath);
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
export function checkPathTemplate(value: string, kind: 'cwd' | 'subPath', variables: ReadonlySet<string>, path: Path, node: TreeNode | null): void {
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

/** Stage 3: the `cwd` and `subPath` templates name only declared variables. */
export function checkVfsTemplates(vfs: VfsDeclaration, variableNames: ReadonlySet<string>): void {
  if (vfs.cwd !== undefined) checkPathTemplate(vfs.cwd, 'cwd', variableNames, ['vfs', 'cwd'], null);
  if (vfs.subPath !== undefined) checkPathTemplate(vfs.subPath, 'subPath', variableNames, ['vfs', 'subPath'], null);
  for (const [mountPath, mount] of Object.entries(vfs.mounts ?? {})) {
    if (mount.subPath !== undefined) checkPathTemplate(mount.subPath, 'subPath', variableNames, ['vfs', 'mounts', mountPath, 'subPath'], null);
  }
}
