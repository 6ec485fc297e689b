// The `vfs` section (its shape, mounts and sizes are the schema's): the fields each mode
// accepts (a pass over the written keys, stage 2) and the cwd/subPath templates (stage 3).
import type { VfsDeclaration, VfsMode } from './model';
import { fail, type Path } from './readers';
import { fieldNames, VFS_MODES, VfsMappingSchema } from './schema';
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

/**
 * Which fields the written mode takes, read over the written keys in order: a key another
 * mode takes is refused at the key when `mode:` came first, else at the block (before
 * `mode:` is read, a key cannot yet be known to conflict). Refuses nothing when `mode` is
 * not a mode (the schema refuses that).
 */
export function checkModeFields(node: TreeNode): void {
  if (node.kind !== 'map') return;
  const modeEntry = node.entries.find((e) => e.key === 'mode' && e.value.kind !== 'null');
  const written = modeEntry?.value.kind === 'scalar' ? modeEntry.value.value : undefined;
  if (modeEntry && !(VFS_MODES as readonly unknown[]).includes(written)) return;
  const mode = (modeEntry ? written : 'ephemeral') as VfsMode;
  const modeIndex = modeEntry ? node.entries.indexOf(modeEntry) : -1;
  node.entries.forEach((entry, index) => {
    if (entry.value.kind === 'null' || MODE_FIELDS[mode].includes(entry.key) || !VFS_KEYS.includes(entry.key)) return;
    const message = modeConflict(entry.key, mode, modeEntry !== undefined);
    if (modeIndex !== -1 && modeIndex < index) fail('parse_error', message, ['vfs', entry.key], { kind: 'null', offset: entry.keyOffset });
    fail('parse_error', message, ['vfs'], node);
  });
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
