// MCP OAuth admin routes: auth status and config, storing and
// removing a credential, and the code exchange of a login. Every mutating request writes
// its admin audit record (blueprint, server) whatever the outcome; no token is ever echoed.
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { ServerLog } from '../../audit';
import type { AuditWriter } from '../../audit';
import { OAuthError, type OAuthService } from '../../mcp/oauth';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
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
  const failure = (error: unknown): HttpError => {
    if (error instanceof OAuthError) return HttpError.of(error.status, error.code, error.message);
    deps.log.error('svc_server::mcp_oauth', 'MCP OAuth request failed', { error: (error as Error).message });
    return HttpError.of(500, 'store_error', 'the request failed inside the server; see the server log');
  };
  /** Runs a mutating request; its audit record (blueprint, server) is written by `adminAudit`. */
  const mutate = async (c: Context<AppEnv>, work: () => unknown | Promise<unknown>) => {
    noteAdminAudit(c, params(c));
    try {
      return c.json((await work()) as object, 200);
    } catch (error) {
      throw failure(error);
    }
  };

  app.get('/v1/mcp/:blueprint/auth-status', (c) => {
    try {
      return c.json(deps.oauth.authStatus(params(c).blueprint));
    } catch (error) {
      throw failure(error);
    }
  });

  app.get('/v1/mcp/:blueprint/:server/auth-config', async (c) => {
    const { blueprint, server } = params(c);
    try {
      return c.json(await deps.oauth.authConfig(blueprint, server, c.req.query('redirect_uri') || undefined));
    } catch (error) {
      throw failure(error);
    }
  });

  app.post('/v1/mcp/:blueprint/:server/refresh-token', jsonBody(credentialBody), adminAudit(deps.audit, 'oauth_refresh_token_set'), (c) =>
    mutate(c, () => deps.oauth.setCredential(params(c).blueprint, params(c).server, bodyOf<z.infer<typeof credentialBody>>(c))),
  );

  app.delete('/v1/mcp/:blueprint/:server/refresh-token', adminAudit(deps.audit, 'oauth_refresh_token_deleted'), (c) => mutate(c, () => deps.oauth.deleteCredential(params(c).blueprint, params(c).server)));

  app.post('/v1/mcp/:blueprint/:server/oauth/exchange', jsonBody(exchangeBody), adminAudit(deps.audit, 'oauth_code_exchanged'), (c) =>
    mutate(c, () => deps.oauth.exchange(params(c).blueprint, params(c).server, bodyOf<z.infer<typeof exchangeBody>>(c))),
  );
}
