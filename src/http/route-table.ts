// Every route the server knows, from the route declarations: the role each path needs.
// Authentication runs by path before method routing, so a wrong method answers 401/403
// first and 405 only with a sufficient token; an unknown path answers 404 with or without one.
import { openApiRoute } from './openapi';
import type { ApiRoute } from './route';
import { approvalRoutes } from './routes/approvals';
import { blueprintRoutes } from './routes/blueprints';
import { discoveryRoutes } from './routes/discovery';
import { executeRoute } from './routes/execute';
import { mcpEndpointRoute } from './routes/mcp';
import { mcpOAuthRoutes } from './routes/mcp-oauth';
import { metricsRoute } from './routes/metrics';
import { opsRoutes } from './routes/ops';
import { packageRoutes } from './routes/packages';
import { secretRoutes } from './routes/secrets';
import { sessionRoutes } from './routes/sessions';
import type { RouteRole } from './types';

export const apiRoutes: readonly ApiRoute[] = [
  ...Object.values(opsRoutes),
  openApiRoute,
  metricsRoute,
  ...Object.values(sessionRoutes),
  executeRoute,
  ...Object.values(discoveryRoutes),
  ...Object.values(blueprintRoutes),
  ...Object.values(secretRoutes),
  ...Object.values(packageRoutes),
  ...Object.values(mcpOAuthRoutes),
  ...Object.values(approvalRoutes),
  mcpEndpointRoute,
];

interface PathRule {
  pattern: RegExp;
  role: RouteRole;
}

/** `{x}` matches one segment; a `rest` route's last parameter one or more (secret keys may contain `/`). */
function pathRule(route: ApiRoute): PathRule {
  const parts = route.path.split('/');
  const rest = 'rest' in route && route.rest === true;
  const source = parts
    .map((part, i) => (part.startsWith('{') ? (rest && i === parts.length - 1 ? '.+' : '[^/]+') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('/');
  return { pattern: new RegExp(`^${source}$`), role: route.role };
}

function pathRules(routes: readonly ApiRoute[]): PathRule[] {
  const byPath = new Map<string, ApiRoute>();
  for (const route of routes) {
    const seen = byPath.get(route.path);
    // Roles are checked per path: two methods of one path must need the same role.
    if (seen && seen.role !== route.role) throw new Error(`${route.path} is declared with roles ${seen.role} and ${route.role}`);
    byPath.set(route.path, route);
  }
  return [...byPath.values()].map(pathRule);
}

const rules = pathRules(apiRoutes);

/** The role a request path needs, or null when the path is unknown. */
export function roleForPath(pathname: string): RouteRole | null {
  for (const rule of rules) if (rule.pattern.test(pathname)) return rule.role;
  return null;
}
