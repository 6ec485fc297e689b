// Public API of the MCP endpoint.
export { McpEndpoint, hostAllowed, type McpEndpointDependencies, type McpHttpAnswer, type McpHttpRequest } from './endpoint';
export { MCP_TOOL_NAMES, toolList } from './tools';
