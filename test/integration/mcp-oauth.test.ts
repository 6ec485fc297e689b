// OAuth for upstream MCP servers (mcp-and-packages A.15, server-operations §4.6) against a
// real token endpoint stand-in and a real SDK MCP server that checks bearer tokens: auth
// status and config (discovery, dynamic registration), code exchange, refresh with
// rotation, invalid_grant to a catchable McpAuthExpiredError, every admin endpoint with
// its error codes and audit records, and no token in any output or log line.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startServer, type TestServer } from '../harness';
import { startMcpUpstream, upstreamServerOptions, type McpUpstream } from '../support/mcp-upstream';
import { startOAuthStandIn, type OAuthStandIn } from '../support/oauth-server';

const CODE = `code-${randomBytes(8).toString('hex')}`;
const VERIFIER = `verifier-${randomBytes(24).toString('hex')}`;
const REDIRECT = 'http://127.0.0.1:8765/callback';

describe('MCP OAuth', () => {
  let server: TestServer;
  let auth: OAuthStandIn;
  let secure: McpUpstream;

  before(async () => {
    auth = await startOAuthStandIn({ host: 'auth.secure-example.com', code: CODE, verifier: VERIFIER });
    secure = await startMcpUpstream({
      host: 'mcp.secure-example.com',
      tools: [{ name: 'whoami', call: () => ({ content: [{ type: 'text', text: 'authorised' }] }) }],
      requireAuthorization: () => `Bearer ${auth.currentAccess ?? 'none'}`,
      documents: { '/.well-known/oauth-protected-resource/mcp': { resource: 'x', authorization_servers: [auth.issuer], scopes_supported: ['read', 'write'] } },
    });
    const network = upstreamServerOptions(auth, secure);
    server = await startServer({ args: network.args, env: { ...network.env, SVC_SECRET_KEY: randomBytes(32).toString('base64') } });
    const yaml = `name: oauthbp
vfs: none
mcp:
  secure:
    url: ${secure.url}
    auth: {type: oauth2}
  plain:
    url: https://localhost:1/mcp
    headers: {X-Team: blue}
  bare:
    url: https://localhost:2/mcp
permissions:
  main:
    - {capability: mcp.secure, action: allow}
`;
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.equal(registered.status, 200, registered.text);
  });
  after(async () => {
    await server?.stop();
    await secure?.close();
    await auth?.close();
  });

  const run = (code: string) => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'oauthbp', code } });
  const WHOAMI = 'import s from "@mcp/secure";\nexport function main() { try { return s.whoami(); } catch (e) { return e.name + "|" + e.message; } }';

  test('before a login: pending state, and the server is unavailable with a hint to authenticate', async () => {
    const status = await server.request('GET', '/v1/mcp/oauthbp/auth-status');
    assert.equal(status.status, 200);
    assert.deepEqual(status.json, {
      blueprint: 'oauthbp',
      state: 'pending',
      servers: [
        { name: 'bare', kind: 'none' },
        { name: 'plain', kind: 'static' },
        { name: 'secure', kind: 'oauth', authenticated: false },
      ],
    });
    const reply = await run(WHOAMI);
    assert.equal(reply.json.error.kind, 'compile_error');
    assert.deepEqual(reply.json.discovery_warnings, ['@mcp/secure: unavailable: not authenticated: run `svc mcp authenticate oauthbp secure`']);
    assert.equal((await server.request('GET', '/v1/mcp/oauthbp/auth-status', { token: server.userToken })).status, 403);
  });

  test('auth-config discovers the endpoints (RFC 9728 then RFC 8414) and registers a client dynamically', async () => {
    const config = await server.request('GET', `/v1/mcp/oauthbp/secure/auth-config?redirect_uri=${encodeURIComponent(REDIRECT)}`);
    assert.equal(config.status, 200, config.text);
    assert.deepEqual(config.json, {
      url: secure.url,
      client_id: 'registered-client',
      authorization_endpoint: `${auth.issuer}/authorize`,
      token_endpoint: `${auth.issuer}/token`,
      scopes: ['read', 'write'],
    });
    assert.deepEqual(auth.registrations.at(-1), {
      client_name: 'svc',
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      response_types: ['code'],
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: [REDIRECT],
    });
    const notOauth = await server.request('GET', '/v1/mcp/oauthbp/plain/auth-config');
    assert.deepEqual([notOauth.status, notOauth.json.error], [400, 'not_oauth']);
    const unknownServer = await server.request('GET', '/v1/mcp/oauthbp/nope/auth-config');
    assert.deepEqual([unknownServer.status, unknownServer.json.error], [404, 'unknown_mcp_server']);
    assert.match(unknownServer.json.message, /blueprint 'oauthbp' declares no mcp server 'nope'/);
    const unknownBlueprint = await server.request('GET', '/v1/mcp/nobp/secure/auth-config');
    assert.deepEqual([unknownBlueprint.status, unknownBlueprint.json.error], [404, 'unknown_blueprint']);
  });

  test('a wrong code is 502 exchange_failed; the right one stores the login and the server becomes usable', async () => {
    const wrong = await server.request('POST', '/v1/mcp/oauthbp/secure/oauth/exchange', { body: { code: 'bad', redirect_uri: REDIRECT, code_verifier: VERIFIER, client_id: 'registered-client' } });
    assert.deepEqual([wrong.status, wrong.json.error], [502, 'exchange_failed']);
    assert.match(wrong.json.message, /invalid_grant/);
    const failedAudit = server.audit({ type: 'admin', event: 'oauth_code_exchanged' }).at(-1)!;
    assert.deepEqual([Number(failedAudit.status), failedAudit.outcome, failedAudit.blueprint, failedAudit.server], [502, 'error', 'oauthbp', 'secure']);

    const exchanged = await server.request('POST', '/v1/mcp/oauthbp/secure/oauth/exchange', { body: { code: CODE, redirect_uri: REDIRECT, code_verifier: VERIFIER, client_id: 'registered-client' } });
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.deepEqual(exchanged.json, { state: 'active' });
    const codeRequest = auth.tokenRequests.at(-1)!;
    assert.deepEqual(codeRequest, { grant_type: 'authorization_code', code: CODE, redirect_uri: REDIRECT, client_id: 'registered-client', code_verifier: VERIFIER });
    const okAudit = server.audit({ type: 'admin', event: 'oauth_code_exchanged' }).at(-1)!;
    assert.deepEqual([Number(okAudit.status), okAudit.outcome], [200, 'ok']);

    const reply = await run(WHOAMI);
    assert.equal(reply.json.result, 'authorised', JSON.stringify(reply.json));
    // The stored credential is the refresh token: the access token used was minted from it.
    assert.equal(auth.tokenRequests.at(-1)!.grant_type, 'refresh_token');
    const status = await server.request('GET', '/v1/mcp/oauthbp/auth-status');
    assert.equal(status.json.state, 'active');
    assert.deepEqual(status.json.servers.find((s: { name: string }) => s.name === 'secure'), { name: 'secure', kind: 'oauth', authenticated: true });
  });

  test('a refused token forces one refresh with the rotated refresh token, and the call is retried', async () => {
    const before = auth.tokenRequests.length;
    const usedRefresh = auth.tokenRequests.at(-1)!.refresh_token;
    auth.revokeAccess();
    const reply = await run(WHOAMI);
    assert.equal(reply.json.result, 'authorised', JSON.stringify(reply.json));
    const refreshes = auth.tokenRequests.slice(before).filter((r) => r.grant_type === 'refresh_token');
    assert.ok(refreshes.length >= 1);
    // Rotation was written back: the refresh token now used is the one the last answer issued.
    assert.notEqual(refreshes.at(-1)!.refresh_token, usedRefresh);
    assert.equal(refreshes.at(-1)!.client_id, 'registered-client');
  });

  test('invalid_grant after the retries throws a catchable McpAuthExpiredError; the credential is kept', async () => {
    auth.mode = 'invalid_grant';
    auth.revokeAccess();
    try {
      const reply = await run(WHOAMI);
      assert.equal(reply.json.error, null, JSON.stringify(reply.json));
      assert.match(reply.json.result, /^McpAuthExpiredError\|@mcp\/secure\.whoami: .*OAuth login failed.*authenticate/);
      const status = await server.request('GET', '/v1/mcp/oauthbp/auth-status');
      assert.equal(status.json.state, 'active');
    } finally {
      auth.mode = 'normal';
    }
  });

  test('refresh-token POST and DELETE: validation errors, storing an access token, removal, 404 when nothing is stored; audit records', async () => {
    const both = await server.request('POST', '/v1/mcp/oauthbp/secure/refresh-token', { body: { refresh_token: 'a', access_token: 'b' } });
    assert.deepEqual([both.status, both.json.error], [400, 'invalid_credential']);
    assert.match(both.json.message, /exactly one of refresh_token or access_token/);
    const neither = await server.request('POST', '/v1/mcp/oauthbp/secure/refresh-token', { body: {} });
    assert.deepEqual([neither.status, neither.json.error], [400, 'invalid_credential']);
    const noEndpoint = await server.request('POST', '/v1/mcp/oauthbp/secure/refresh-token', { body: { refresh_token: 'r' } });
    assert.deepEqual([noEndpoint.status, noEndpoint.json.error], [400, 'missing_token_endpoint']);
    const notOauth = await server.request('POST', '/v1/mcp/oauthbp/plain/refresh-token', { body: { access_token: 'x' } });
    assert.deepEqual([notOauth.status, notOauth.json.error], [400, 'not_oauth']);
    const unknownField = await server.request('POST', '/v1/mcp/oauthbp/secure/refresh-token', { body: { access_token: 'x', token: 'y' } });
    assert.equal(unknownField.status, 422);

    const staticToken = `static-${randomBytes(8).toString('hex')}`;
    const stored = await server.request('POST', '/v1/mcp/oauthbp/secure/refresh-token', { body: { access_token: staticToken } });
    assert.deepEqual([stored.status, stored.json], [200, { state: 'active' }]);
    // The stored access token is used as is.
    auth.currentAccess = staticToken;
    assert.equal((await run(WHOAMI)).json.result, 'authorised');

    const removed = await server.request('DELETE', '/v1/mcp/oauthbp/secure/refresh-token');
    assert.deepEqual([removed.status, removed.json], [200, { state: 'pending', unauthenticated: ['secure'] }]);
    const again = await server.request('DELETE', '/v1/mcp/oauthbp/secure/refresh-token');
    assert.deepEqual([again.status, again.json.error], [404, 'not_found']);
    // Removing the login evicts the cached catalogue: the server is unavailable again.
    const reply = await run(WHOAMI);
    assert.match(reply.json.discovery_warnings[0], /not authenticated/);

    const set = server.audit({ type: 'admin', event: 'oauth_refresh_token_set' });
    assert.deepEqual(set.map((r) => Number(r.status)), [400, 400, 400, 400, 200]);
    assert.ok(set.every((r) => r.blueprint === 'oauthbp'));
    const deleted = server.audit({ type: 'admin', event: 'oauth_refresh_token_deleted' });
    assert.deepEqual(deleted.map((r) => [Number(r.status), r.server]), [[200, 'secure'], [404, 'secure']]);
    const everything = server.lines().join('\n') + server.stderr();
    assert.ok(!everything.includes(staticToken));
    assert.ok(!everything.includes(CODE) && !everything.includes(VERIFIER));
    assert.ok(!/access-\d+-|refresh-\d+-/.test(everything));
  });
});

test('without a secret store every MCP OAuth endpoint answers 503 no_secret_store', async () => {
  const server = await startServer();
  try {
    assert.equal((await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: o\nvfs: none\nmcp:\n  s:\n    url: https://example.com/mcp\n    auth: {type: oauth2}\n' } })).status, 200);
    for (const [method, route, body] of [
      ['GET', '/v1/mcp/o/auth-status', undefined],
      ['GET', '/v1/mcp/o/s/auth-config', undefined],
      ['POST', '/v1/mcp/o/s/refresh-token', { access_token: 'x' }],
      ['DELETE', '/v1/mcp/o/s/refresh-token', undefined],
      ['POST', '/v1/mcp/o/s/oauth/exchange', { code: 'c', redirect_uri: REDIRECT, code_verifier: 'v' }],
    ] as Array<[string, string, unknown]>) {
      const reply = await server.request(method, route, body === undefined ? {} : { body });
      assert.equal(reply.status, 503, `${method} ${route}`);
      assert.equal(reply.json.error, 'no_secret_store');
      assert.match(reply.json.message, /OAuth tokens have nowhere to be kept/);
    }
  } finally {
    await server.stop();
  }
});
