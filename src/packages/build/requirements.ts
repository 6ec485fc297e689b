// Which capability a standard-library call needs (for `requires` in capabilities.yaml),
// by module and exported function. Filters are derived separately from literal arguments.
const HTTP_VERBS: Record<string, string> = { get: 'get', head: 'head', options: 'options', del: 'delete', post: 'post', put: 'put', patch: 'patch' };

const FS: Record<string, string> = {
  read: 'fs.read',
  readBytes: 'fs.read',
  readText: 'fs.read',
  bytes: 'fs.read',
  lines: 'fs.read',
  peek: 'fs.read',
  write: 'fs.write',
  writeText: 'fs.write',
  append: 'fs.write',
  appendText: 'fs.write',
  writer: 'fs.write',
  stat: 'fs.stat',
  exists: 'fs.stat',
  size: 'fs.stat',
  list: 'fs.list',
  mkdir: 'fs.mkdir',
  move: 'fs.move',
  copy: 'fs.copy',
  remove: 'fs.remove',
};

const SESSION: Record<string, string> = { get: 'session.read', has: 'session.read', set: 'session.write', remove: 'session.remove', list: 'session.list' };
const GIT: Record<string, string> = { init: 'git.init', clone: 'git.clone', fetch: 'git.fetch', pull: 'git.fetch', commit: 'git.commit' };

export type CallKind = { capability: string; url?: 'first' | 'second' } | { capability: null };

/**
 * The capability a call of `module`'s export `name` needs. `request(method, url)` takes
 * its verb from a literal first argument (`literalMethod`), else is unfiltered `http.*`.
 */
export function stdlibCapability(module: string, name: string, literalMethod?: string): CallKind {
  // An asynchronous form (`svc:http/async`) needs what its synchronous form needs.
  switch (module.endsWith('/async') ? module.slice(0, -'/async'.length) : module) {
    case 'svc:http':
      if (name === 'download') return { capability: 'http.download', url: 'first' };
      if (name === 'request') return literalMethod ? { capability: `http.${literalMethod.toLowerCase()}`, url: 'second' } : { capability: null };
      return HTTP_VERBS[name] ? { capability: `http.${HTTP_VERBS[name]}`, url: 'first' } : { capability: null };
    case 'svc:secrets':
      return name === 'get' ? { capability: 'secrets.get' } : { capability: null };
    case 'svc:fs':
      return { capability: FS[name] ?? null };
    case 'svc:session':
      return { capability: SESSION[name] ?? null };
    case 'svc:git':
      return { capability: GIT[name] ?? null };
    case 'svc:llm':
      return { capability: 'llm.call' };
    case 'svc:embedding':
      return { capability: 'embedding.embed' };
    default:
      return { capability: null };
  }
}

/** `host == "…"` (and `path == "…"` for a fully literal URL) from a URL's static prefix. */
export function urlFilter(prefix: string, complete: boolean, capability: string): string | null {
  const match = /^https?:\/\/([^/?#:]+)(?::\d+)?([/?#]|$)/i.exec(prefix);
  if (!match) return null;
  // Without a terminator the host may still continue (`"https://api." + region`).
  if (match[2] === '' && !complete) return null;
  const host = match[1].toLowerCase().replace(/\.+$/, '');
  const parts = [`host == ${JSON.stringify(host)}`];
  if (complete && capability !== 'http.download') {
    const url = new URL(prefix);
    parts.push(`path == ${JSON.stringify(url.pathname)}`);
  }
  return parts.join(' and ');
}
