// Context normalisation before matching: VFS paths against
// the cwd, HTTP hosts, git remotes, chosen by capability name so a package's check() of
// `fs.read` is normalised too. A path that cannot be normalised is an invariant refusal.

/** A context the policy refuses to judge; its message names the field or path. */
export class ContextError extends Error {
  readonly code = 'invalid_context';
}

/** Lexical normalisation (no symlinks, no I/O) of a VFS path against `cwd`; refuses climbing above `/`. */
export function normalizeVfsPath(value: unknown, cwd: string, capability: string, field: string): string {
  if (typeof value !== 'string' || value === '' || value.includes('\0')) {
    throw new ContextError(`invalid ${capability} context: ${field} must be a VFS path string`);
  }
  const absolute = value.startsWith('/') ? value : `${cwd}/${value}`;
  const parts: string[] = [];
  for (const segment of absolute.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') parts.push(segment);
    else if (parts.length > 0) parts.pop();
    else throw new ContextError(`invalid ${capability} context: ${field} ${value} climbs above /`);
  }
  return `/${parts.join('/')}`;
}

/** `https://API.example.com.:443/` or `API.example.com.:443` → `api.example.com`; non-strings as given. */
export function normalizeHost(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  let host = value.trim().toLowerCase();
  if (host.includes('://')) {
    try {
      host = new URL(host).hostname;
    } catch {
      return value;
    }
  }
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  if (bracketed) host = bracketed[1];
  else if (/^[^:]*:\d*$/.test(host)) host = host.slice(0, host.indexOf(':'));
  return host.replace(/\.+$/, '');
}

/** Canonical HTTPS URL: lower-case host, default port and dot segments removed, `/` for an empty path. */
export function normalizeRemote(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return value;
  }
  // WHATWG parsing lower-cases special-scheme hosts, drops default ports and resolves dot segments.
  url.hostname = url.hostname.replace(/\.+$/, '');
  return url.toString();
}

const PATH_FIELDS: Readonly<Record<string, readonly string[]>> = { fs: ['path', 'from', 'to'], git: ['path'] };

function has(context: Record<string, unknown>, field: string): boolean {
  return Object.prototype.hasOwnProperty.call(context, field);
}

/** A normalised copy of the context (the caller's object is never changed). Throws ContextError. */
export function normalizeContext(capability: string, context: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const out = { ...context };
  const domain = capability.split('.')[0];
  for (const field of PATH_FIELDS[domain] ?? []) {
    if (has(out, field)) out[field] = normalizeVfsPath(out[field], cwd, capability, field);
  }
  if (capability === 'http.download' && has(out, 'vfs_path')) out.vfs_path = normalizeVfsPath(out.vfs_path, cwd, capability, 'vfs_path');
  if (domain === 'http' && has(out, 'host')) out.host = normalizeHost(out.host);
  if ((capability === 'git.clone' || capability === 'git.fetch') && has(out, 'remote')) out.remote = normalizeRemote(out.remote);
  return out;
}
