// MCP OAuth admin routes (server-operations §4.6): auth status and config, storing and
// removing a credential, and the code exchange of a login. Every mutating request writes
// its admin audit record (blueprint, server) whatever the outcome; no token is ever echoed.
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { ServerLog } from '../../audit';
import type { AuditWriter } from '../../audit';
import { OAuthError, type OAuthService } from '../../mcp/oauth';
import { writeAdminAudit } from '../admin-audit';
import type { AppEnv } from '../types';
import { bodyOf, jsonBody } from '../validation';

export interface McpOAuthRouteDependencies {
  oauth: OAuthService;
  audit: AuditWriter;
  log: ServerLog;
}

export const credentialBody = z
  .object({
    refresh_token: z.string().optional(),
    access_token: z.string().optional(),
    client_id: z.string().min(1).optional(),
    token_endpoint: z.string().url().optional(),
    scopes: z.array(z.string()).optional(),
  })
  .strict();
export const exchangeBody = z.object({ code: z.string().min(1), redirect_uri: z.string().min(1), code_verifier: z.string().min(1), client_id: z.string().min(1).optional() }).strict();

export function mountMcpOAuthRoutes(app: Hono<AppEnv>, deps: McpOAuthRouteDependencies): void {
  const params = (c: Context<AppEnv>) => ({ blueprint: c.req.param('blueprint') ?? '', server: c.req.param('server') ?? '' });
  const fail = (c: Context<AppEnv>, error: unknown) => {
    if (error instanceof OAuthError) return c.json({ error: error.code, message: error.message }, error.status);
    deps.log.error('svc_server::mcp_oauth', 'MCP OAuth request failed', { error: (error as Error).message });
    return c.json({ error: 'store_error', message: 'the request failed inside the server; see the server log' }, 500);
  };
  /** Runs a mutating request and writes its audit record with the final status. */
  const mutate = async (c: Context<AppEnv>, event: string, work: () => unknown | Promise<unknown>) => {
    const fields = params(c);
    let response: Response;
    try {
      response = c.json((await work()) as object, 200);
    } catch (error) {
      response = fail(c, error);
    }
    writeAdminAudit(deps.audit, c, event, response.status, fields);
    return response;
  };

  app.get('/v1/mcp/:blueprint/auth-status', (c) => {
    try {
      return c.json(deps.oauth.authStatus(params(c).blueprint));
    } catch (error) {
      return fail(c, error);
    }
  });

  app.get('/v1/mcp/:blueprint/:server/auth-config', async (c) => {
    const { blueprint, server } = params(c);
    try {
      return c.json(await deps.oauth.authConfig(blueprint, server, c.req.query('redirect_uri') || undefined));
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post('/v1/mcp/:blueprint/:server/refresh-token', jsonBody(credentialBody), (c) =>
    mutate(c, 'oauth_refresh_token_set', () => deps.oauth.setCredential(params(c).blueprint, params(c).server, bodyOf<z.infer<typeof credentialBody>>(c))),
  );

  app.delete('/v1/mcp/:blueprint/:server/refresh-token', (c) => mutate(c, 'oauth_refresh_token_deleted', () => deps.oauth.deleteCredential(params(c).blueprint, params(c).server)));

  app.post('/v1/mcp/:blueprint/:server/oauth/exchange', jsonBody(exchangeBody), (c) =>
    mutate(c, 'oauth_code_exchanged', () => deps.oauth.exchange(params(c).blueprint, params(c).server, bodyOf<z.infer<typeof exchangeBody>>(c))),
  );
}
