// /mcp/{blueprint} (user): the MCP Streamable HTTP endpoint, every method handed to src/mcp.
// Served outside the OpenAPI document (MCP describes itself).
import type { Context, Hono } from 'hono';
import { defineRoute, serve } from '../route';
import type { AppEnv } from '../types';

export const mcpEndpointRoute = defineRoute({ method: 'all', path: '/mcp/{blueprint}', role: 'user', hidden: true });

export function mountMcpEndpoint(app: Hono<AppEnv>, handle: (c: Context<AppEnv>) => Promise<Response> | Response): void {
  serve(app, mcpEndpointRoute, (c) => handle(c));
}
