// svc as an MCP client: `@mcp/<server>` Packages: discovery, declarations, calls and result mapping.

export { McpDiscovery, DISCOVERY_BUDGET_MS, type ServerCatalogue, type DiscoveryScope, type TokenSource, type McpDiscoveryOptions } from './discovery';
export { McpRun, McpAuthExpiredError, mapResult, CALL_LIMIT_MS, type McpRunOptions } from './calls';
export { catalogueTools, describeTool, renderDeclarations, schemaType, isNamedExport, packageDescription, type CatalogueTool, type UpstreamTool } from './declarations';

export type { McpRunServices } from '../../stdlib';
export { mcpViews, visibleServers } from './views';
