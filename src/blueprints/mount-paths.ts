// What a `vfs.mounts` key may be: an absolute guest path of plain components, not inside,
// containing or equal to an earlier mount (compared without case).

/** Why `mountPath` cannot be a mount beside the mounts written before it, or null. */
export function mountPathProblem(mountPath: string, earlier: readonly string[]): string | null {
  if (!mountPath.startsWith('/') || mountPath === '/') return 'a mount path must be an absolute guest path other than /';
  if (Buffer.byteLength(mountPath) > 4096) return 'a mount path is at most 4096 bytes';
  if (!/^[A-Za-z0-9._\/-]+$/.test(mountPath)) return 'a mount path uses only ASCII letters, digits, `.`, `_`, `-` and `/`';
  const components = mountPath.slice(1).split('/');
  if (components.length > 64) return 'a mount path has at most 64 components';
  if (components.some((c) => c === '' || c === '.' || c === '..')) return 'a mount path has no empty, `.` or `..` component';
  if (components.some((c) => c.endsWith('.'))) return 'no component of a mount path may end in `.`';
  if (components.some((c) => c.toLowerCase() === '.git')) return 'a mount path may not contain a `.git` component';
  const lower = components.map((c) => c.toLowerCase());
  for (const other of earlier) {
    const otherLower = other.slice(1).split('/').map((c) => c.toLowerCase());
    const shorter = Math.min(lower.length, otherLower.length);
    if (lower.slice(0, shorter).join('/') === otherLower.slice(0, shorter).join('/')) return `overlaps the mount '${other}' (mounts may not be inside, contain or equal one another)`;
  }
  return null;
}
