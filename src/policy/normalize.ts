// Context normalisation before matching (blueprints-and-policy §6.3): VFS paths against
// the cwd, HTTP hosts, git remotes. A path that cannot be normalised is an invariant
// refusal naming the field.
import path from 'node:path';

export class ContextError extends Error {}

/** Lexical normalisation of a VFS path against `cwd`; refuses climbing above `/`. */
export function normalizeVfsPath(value: unknown, cwd: string, capability: string, field: string): string {
  if (typeof value !== 'string' || value === '' || value.includes('\0')) {
    throw new ContextError(`invalid ${capability} context: ${field} must be a VFS path string`);
  }
  const absolute = value.startsWith('/') ? value : `${cwd.replace(/\/+$/, '')}/${value}`;
  const parts: string[] = [];
  for (const segment of absolute.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) throw new ContextError(`invalid ${capability} context: ${field} ${value} climbs above /`);
      parts.pop();
    } else parts.push(segment);
  }
  return `/${parts.join('/')}`;
}

export function normalizeHost(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  let host = value.trim().toLowerCase();
  try {
    if (host.includes('://')) host = new URL(host).hostname;
  } catch {
    return value;
  }
  host = host.replace(/^\[(.*)\](:\d+)?$/, '$1');
  if (!host.includes(':') || /^[^:]+:\d+$/.test(host)) host = host.replace(/:\d+$/, '');
  return host.replace(/\.+$/, '');
}

export function normalizeRemote(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const url = new URL(value);
    url.hostname = url.hostname.toLowerCase().replace(/\.+$/, '');
    if (url.pathname === '') url.pathname = '/';
    // WHATWG parsing already drops default ports and resolves dot segments.
    return url.toString();
  } catch {
    return value;
  }
}

const PATH_FIELDS: Record<string, string[]> = { fs: ['path', 'from', 'to'], git: ['path'] };

/** Returns a normalised copy of the context (never mutates the caller's object). */
export function normalizeContext(capability: string, context: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const out = { ...context };
  const domain = capability.split('.')[0];
  for (const field of PATH_FIELDS[domain] ?? []) {
    if (field in out) out[field] = normalizeVfsPath(out[field], cwd, capability, field);
  }
  if (capability === 'http.download' && 'vfs_path' in out) out.vfs_path = normalizeVfsPath(out.vfs_path, cwd, capability, 'vfs_path');
  if (domain === 'http' && 'host' in out) out.host = normalizeHost(out.host);
  if ((capability === 'git.clone' || capability === 'git.fetch') && 'remote' in out) out.remote = normalizeRemote(out.remote);
  return out;
}

void path;
