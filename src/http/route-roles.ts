// The table of known paths and the role each needs. Authentication is attached per path
// before method routing, so a wrong method answers 401/403 first and 405 only with a
// sufficient token; unknown paths answer 404 with or without a token.
import type { RouteRole } from './types';

interface PathRule {
  pattern: RegExp;
  role: RouteRole;
}

const segment = '[^/]+';

function path(template: string, role: RouteRole): PathRule {
  // `{rest}` matches one or more segments (secret keys may contain `/`).
  const source = template
    .split('/')
    .map((part) => (part === '{rest}' ? '.+' : part.startsWith('{') ? segment : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('/');
  return { pattern: new RegExp(`^${source}$`), role };
}

/** Order matters only for readability; patterns do not overlap in role. */
export const pathRules: readonly PathRule[] = [
  path('/healthz', 'none'),
  path('/v1/status', 'admin'),
  path('/v1/openapi.json', 'user'),
  path('/metrics', 'admin'),
  path('/v1/shutdown', 'admin'),
  path('/v1/blueprints', 'admin'),
  path('/v1/blueprints/{name}', 'admin'),
  path('/v1/blueprints/{name}/prompt', 'user'),
  path('/v1/blueprints/{name}/packages/search', 'user'),
  path('/v1/blueprints/{name}/packages/docs', 'user'),
  path('/v1/blueprints/{name}/builtins', 'user'),
  path('/v1/blueprints/{name}/builtins/docs', 'user'),
  path('/v1/sessions', 'user'),
  path('/v1/sessions/{id}', 'user'),
  path('/v1/sessions/{id}/execute', 'user'),
  path('/v1/sessions/{id}/rebind', 'user'),
  path('/v1/sessions/{id}/last-run', 'user'),
  path('/v1/execute', 'user'),
  path('/v1/secrets', 'admin'),
  path('/v1/secrets/{rest}', 'admin'),
  path('/v1/packages', 'admin'),
  path('/v1/packages/install', 'admin'),
  path('/v1/packages/{rest}', 'admin'),
  path('/v1/capabilities', 'admin'),
  path('/v1/volumes', 'admin'),
  path('/v1/mcp/{blueprint}/auth-status', 'admin'),
  path('/v1/mcp/{blueprint}/{server}/auth-config', 'admin'),
  path('/v1/mcp/{blueprint}/{server}/refresh-token', 'admin'),
  path('/v1/mcp/{blueprint}/{server}/oauth/exchange', 'admin'),
  path('/mcp/{blueprint}', 'user'),
];

/** The role a request path needs, or null when the path is unknown. */
export function roleForPath(pathname: string): RouteRole | null {
  for (const rule of pathRules) if (rule.pattern.test(pathname)) return rule.role;
  return null;
}
