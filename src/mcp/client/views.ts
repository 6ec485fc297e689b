// `@mcp/<server>` Packages for package search and docs: every
// server `main` could be allowed to call, discovered (or taken from the cache).
import type { Blueprint } from '../../blueprints';
import { hasPotential, type McpPackageView } from '../../discovery';
import type { DiscoveryScope, McpDiscovery } from './discovery';

export function visibleServers(blueprint: Blueprint): string[] {
  return Object.keys(blueprint.mcp)
    .filter((server) => hasPotential(blueprint.policy, (c) => c === `mcp.${server}`))
    .sort();
}

/** Views of the visible servers (or only `only`, for docs). */
export async function mcpViews(discovery: McpDiscovery, blueprint: Blueprint, scope: DiscoveryScope, only?: string): Promise<McpPackageView[]> {
  const servers = visibleServers(blueprint).filter((s) => only === undefined || s === only);
  const catalogues = await Promise.all(servers.map((s) => discovery.catalogue(blueprint, s, scope)));
  return catalogues.map((c) =>
    c.ok
      ? { server: c.server, ok: true, description: c.description, declarations: c.declarations, toolNames: c.tools.map((t) => t.name) }
      : { server: c.server, ok: false, reason: c.reason },
  );
}
