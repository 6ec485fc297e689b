// /mcp/{blueprint} (user): the MCP Streamable HTTP endpoint, every method. The MCP layer
// (src/mcp) owns the protocol; this file hands it the request and renders its answer, so
// the HTTP layer depends on the MCP layer and never the other way round. Served outside
// the OpenAPI document (MCP describes itself).
import type { Hono } from 'hono';
import type { McpEndpoint } from '../../mcp';
import { defineRoute, serve } from '../route';
import type { AppEnv } from '../types';
import { bodyText, bodyTooLarge, BodyTooLargeError } from '../validation';

export const mcpEndpointRoute = defineRoute({ method: 'all', path: '/mcp/{blueprint}', role: 'user', hidden: true });

export function mountMcpRoutes(app: Hono<AppEnv>, endpoint: McpEndpoint): void {
  serve(app, mcpEndpointRoute, async (c) => {
    const answer = await endpoint.handle({
      method: c.req.method,
      blueprint: c.req.param('blueprint') ?? '',
      actor: c.get('principal'),
      header: (name) => c.req.header(name),
      raw: c.req.raw,
      body: async () => {
        try {
          return await bodyText(c);
        } catch (error) {
          if (error instanceof BodyTooLargeError) return null;
          throw error;
        }
      },
    });
    if (answer instanceof Response) return answer;
    if ('tooLarge' in answer) return bodyTooLarge(c);
    if ('json' in answer) return c.json(answer.json as object, answer.status);
    if ('text' in answer) return c.text(answer.text, answer.status);
    return c.body(null, answer.status);
  });
}
