// Package names (`@scope/leaf`) and reserved scopes.
const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const LEAF = /^[A-Za-z0-9._-]+$/;

/** Scopes no Package may use (`mcp`), or only the official repository (`svc`). */
export const RESERVED_SCOPE = 'mcp';
export const CURATED_SCOPE = 'svc';

/** Why `name` is not a Package name, or null. */
export function packageNameProblem(name: string): string | null {
  const match = /^@([^/]*)\/([^/]*)$/.exec(name);
  if (!match) return 'a package name looks like `@scope/name`';
  if (!SCOPE.test(match[1])) return 'the scope is 1-39 ASCII letters or digits with single inner hyphens (no dots)';
  if (!LEAF.test(match[2]) || match[2] === '.' || match[2] === '..') return 'the name after the scope uses letters, digits, `.`, `_` and `-` (not `.` or `..`)';
  return null;
}

export function scopeOf(name: string): string {
  return name.slice(1, name.indexOf('/'));
}
