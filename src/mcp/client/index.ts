// svc as an MCP client: `@mcp/<server>` Packages: discovery, declarations, calls and result mapping.
import type { HostModule } from '../../stdlib';

export { McpDiscovery, DISCOVERY_BUDGET_MS, type ServerCatalogue, type DiscoveryScope, type TokenSource, type McpDiscoveryOptions } from './discovery';
export { McpRun, McpAuthExpiredError, mapResult, CALL_LIMIT_MS, type McpRunOptions } from './calls';
export { catalogueTools, describeTool, renderDeclarations, schemaType, isNamedExport, packageDescription, type CatalogueTool, type UpstreamTool } from './declarations';

/** What a run needs from the MCP client: the imported servers as modules, and an end. */
export interface McpRunServices {
  /** Modules for the imported servers that are available; `unavailable` maps `@mcp/<server>` to the reason. */
  prepare(source: string): Promise<{ modules: HostModule[]; warnings: string[]; unavailable: Record<string, string> }>;
  close(): Promise<void>;
}

declare module '../../stdlib/types' {
  interface RunServices {
    mcp?: McpRunServices;
  }
}
export { mcpViews, visibleServers } from './views';
