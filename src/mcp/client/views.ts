// `@mcp/<server>` Packages for package search and docs: every
// server `main` could be allowed to call, discovered (or taken from the cache).
import type { Blueprint } from '../../blueprints';
import { hasPotential, type McpPackageView } from '../../discovery';
import { ASYNC_SUFFIX } from '../../stdlib';
import type { DiscoveryScope, McpDiscovery } from './discovery';
import { renderDeclarations } from './declarations';

export function visibleServers(blueprint: Blueprint): string[] {
  return Object.keys(blueprint.mcp)
    .filter((server) => hasPotential(blueprint.policy, (c) => c === `mcp.${server}`))
    .sort();
}

/** Views of the visible servers (or only `only`, for docs). */
export async function mcpViews(discovery: McpDiscovery, blueprint: Blueprint, scope: DiscoveryScope, only?: string): Promise<McpPackageView[]> {
  // `<server>/async` (docs of the asynchronous form) is the same server's view.
  const wanted = only?.endsWith(ASYNC_SUFFIX) ? only.slice(0, -ASYNC_SUFFIX.length) : only;
  const servers = visibleServers(blueprint).filter((s) => wanted === undefined || s === wanted);
  const catalogues = await Promise.all(servers.map((s) => discovery.catalogue(blueprint, s, scope)));
  return catalogues.map((c) =>
    c.ok
      ? { server: c.server, ok: true, description: c.description, declarations: c.declarations, asyncDeclarations: renderDeclarations(c.server, c.tools, 'async'), toolNames: c.tools.map((t) => t.name) }
      : { server: c.server, ok: false, reason: c.reason },
  );
}
