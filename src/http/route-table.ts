// Every route the server knows, listed once: each route file's group (its declarations and
// the function that mounts them). The role each path needs, the mounting (mountRoutes) and
// so the OpenAPI document (the routes mounted) all derive from `routeGroups`.
//
// Adding routes: declare them with defineRoute in routes/<resource>.ts, export them with a
// `mountXRoutes(app, dependencies)` that serves each one, and add one line to `routeGroups`.
// The composition root (src/serve/boot.ts) then has to supply the new dependencies
// (RouteDependencies makes it a type error until it does). A route outside the document
// declares `hidden: true`.
//
// Authentication runs by path before method routing, so a wrong method answers 401/403
// first and 405 only with a sufficient token; an unknown path answers 404 with or without one.
import type { Hono } from 'hono';
import { mountOpenApiRoute, openApiRoute } from './openapi';
import type { ApiRoute, RouteGroup } from './route';
import { approvalRoutes, mountApprovalRoutes } from './routes/approvals';
import { blueprintRoutes, mountBlueprintRoutes } from './routes/blueprints';
import { discoveryRoutes, mountDiscoveryRoutes } from './routes/discovery';
import { executeRoute, mountExecuteRoutes } from './routes/execute';
import { mcpEndpointRoute, mountMcpRoutes } from './routes/mcp';
import { mcpOAuthRoutes, mountMcpOAuthRoutes } from './routes/mcp-oauth';
import { metricsRoute, mountMetricsRoute } from './routes/metrics';
import { mountOpsRoutes, opsRoutes } from './routes/ops';
import { mountPackageRoutes, packageRoutes } from './routes/packages';
import { mountSecretRoutes, secretRoutes } from './routes/secrets';
import { mountRunRoutes, runRoutes } from './routes/runs';
import { mountSessionRoutes, sessionRoutes } from './routes/sessions';
import { mountTapeRoutes, tapeRoutes } from './routes/tapes';
import type { AppEnv, RouteRole } from './types';

/** The route groups in mount order (discovery's /v1/blueprints/{name}/… before the Blueprint admin routes). */
export const routeGroups = {
  ops: { routes: opsRoutes, mount: mountOpsRoutes },
  discovery: { routes: discoveryRoutes, mount: mountDiscoveryRoutes },
  blueprints: { routes: blueprintRoutes, mount: mountBlueprintRoutes },
  secrets: { routes: secretRoutes, mount: mountSecretRoutes },
  packages: { routes: packageRoutes, mount: mountPackageRoutes },
  mcpOAuth: { routes: mcpOAuthRoutes, mount: mountMcpOAuthRoutes },
  execute: { routes: { executeRoute }, mount: mountExecuteRoutes },
  mcp: { routes: { mcpEndpointRoute }, mount: mountMcpRoutes },
  sessions: { routes: sessionRoutes, mount: mountSessionRoutes },
  runs: { routes: runRoutes, mount: mountRunRoutes },
  tapes: { routes: tapeRoutes, mount: mountTapeRoutes },
  approvals: { routes: approvalRoutes, mount: mountApprovalRoutes },
  openapi: { routes: { openApiRoute }, mount: mountOpenApiRoute },
  metrics: { routes: { metricsRoute }, mount: mountMetricsRoute },
} satisfies Record<string, RouteGroup<never>>;

type Groups = typeof routeGroups;
type DependenciesOf<G> = G extends { mount: (app: never, dependencies: infer D) => void } ? D : never;

/** What each group's mount needs, by group name (groups whose mount takes nothing are left out). */
export type RouteDependencies = { [K in keyof Groups as unknown extends DependenciesOf<Groups[K]> ? never : K]: DependenciesOf<Groups[K]> };

/** Mounts every group's routes on the app, in the order of `routeGroups`. */
export function mountRoutes(app: Hono<AppEnv>, dependencies: RouteDependencies): void {
  for (const [name, group] of Object.entries(routeGroups) as Array<[string, RouteGroup<unknown>]>) {
    group.mount(app, (dependencies as Record<string, unknown>)[name]);
  }
}

export const apiRoutes: readonly ApiRoute[] = Object.values(routeGroups).flatMap((group): ApiRoute[] => Object.values(group.routes));

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
