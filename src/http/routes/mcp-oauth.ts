// MCP OAuth admin routes: auth status and config, storing and
// removing a credential, and the code exchange of a login. Every mutating request writes
// its admin audit record (blueprint, server) whatever the outcome; no token is ever echoed.
import type { Context, Hono } from 'hono';
import { z } from '@hono/zod-openapi';
import type { ServerLog } from '../../audit';
import type { AuditWriter } from '../../audit';
import { OAuthError, type OAuthService } from '../../mcp/oauth';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { ErrorBody, OAuthConfig, OAuthState, OAuthStatus } from '../schemas';
import type { AppEnv } from '../types';

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
  .strict()
  .openapi('RefreshTokenRequest');
export const exchangeBody = z.object({ code: z.string().min(1), redirect_uri: z.string().min(1), code_verifier: z.string().min(1), client_id: z.string().min(1).optional() }).strict().openapi('OAuthExchangeRequest');

const unknownServer = json(ErrorBody, 'Unknown Blueprint or server');
export const mcpOAuthRoutes = {
  status: defineRoute({ method: 'get', path: '/v1/mcp/{blueprint}/auth-status', role: 'admin', tag: 'mcp', summary: 'OAuth state of a Blueprint\'s MCP servers', responses: { 200: json(OAuthStatus, 'State'), 404: json(ErrorBody, '`unknown_blueprint`') } }),
  config: defineRoute({ method: 'get', path: '/v1/mcp/{blueprint}/{server}/auth-config', role: 'admin', tag: 'mcp', summary: 'OAuth metadata for a login',
    query: z.object({ redirect_uri: z.string().optional().openapi({ param: { description: 'Enables dynamic client registration' } }) }),
    responses: { 200: json(OAuthConfig, 'Metadata, never a secret'), 400: json(ErrorBody, 'Not an OAuth server'), 404: unknownServer, 502: json(ErrorBody, 'Discovery failed') } }),
  setCredential: defineRoute({ method: 'post', path: '/v1/mcp/{blueprint}/{server}/refresh-token', role: 'admin', tag: 'mcp', summary: 'Store a refresh or access token', body: credentialBody,
    responses: { 200: json(OAuthState, 'Stored'), 400: json(ErrorBody, 'Invalid credential'), 404: unknownServer, 503: json(ErrorBody, '`no_secret_store`') } }),
  deleteCredential: defineRoute({ method: 'delete', path: '/v1/mcp/{blueprint}/{server}/refresh-token', role: 'admin', tag: 'mcp', summary: 'Remove the stored credential',
    responses: { 200: json(OAuthState, 'Removed'), 404: json(ErrorBody, 'Nothing stored, or unknown Blueprint or server') } }),
  exchange: defineRoute({ method: 'post', path: '/v1/mcp/{blueprint}/{server}/oauth/exchange', role: 'admin', tag: 'mcp', summary: 'Exchange an authorization code (PKCE)', body: exchangeBody,
    responses: { 200: json(OAuthState, 'Exchanged and stored'), 400: json(ErrorBody, 'Invalid request'), 404: unknownServer, 502: json(ErrorBody, '`exchange_failed`') } }),
};

export function mountMcpOAuthRoutes(app: Hono<AppEnv>, deps: McpOAuthRouteDependencies): void {
  const failure = (error: unknown): HttpError => {
    if (error instanceof OAuthError) return HttpError.of(error.status, error.code, error.message);
    deps.log.error('svc_server::mcp_oauth', 'MCP OAuth request failed', { error: (error as Error).message });
    return HttpError.of(500, 'store_error', 'the request failed inside the server; see the server log');
  };
  /** Runs a mutating request; its audit record (blueprint, server) is written by `adminAudit`. */
  const mutate = async (c: Context<AppEnv>, params: { blueprint: string; server: string }, work: () => unknown | Promise<unknown>) => {
    noteAdminAudit(c, params);
    try {
      return c.json((await work()) as object, 200);
    } catch (error) {
      throw failure(error);
    }
  };

  serve(app, mcpOAuthRoutes.status, (c, { params: { blueprint } }) => {
    try {
      return c.json(deps.oauth.authStatus(blueprint));
    } catch (error) {
      throw failure(error);
    }
  });

  serve(app, mcpOAuthRoutes.config, async (c, { params: { blueprint, server } }) => {
    try {
      return c.json(await deps.oauth.authConfig(blueprint, server, c.req.query('redirect_uri') || undefined));
    } catch (error) {
      throw failure(error);
    }
  });

  serve(app, mcpOAuthRoutes.setCredential, adminAudit(deps.audit, 'oauth_refresh_token_set'), (c, { params, body }) =>
    mutate(c, params, () => deps.oauth.setCredential(params.blueprint, params.server, body)),
  );

  serve(app, mcpOAuthRoutes.deleteCredential, adminAudit(deps.audit, 'oauth_refresh_token_deleted'), (c, { params }) => mutate(c, params, () => deps.oauth.deleteCredential(params.blueprint, params.server)));

  serve(app, mcpOAuthRoutes.exchange, adminAudit(deps.audit, 'oauth_code_exchanged'), (c, { params, body }) =>
    mutate(c, params, () => deps.oauth.exchange(params.blueprint, params.server, body)),
  );
}
