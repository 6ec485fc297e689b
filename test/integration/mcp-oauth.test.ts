// OAuth for upstream MCP servers against a
// real token endpoint stand-in and a real SDK MCP server that checks bearer tokens: auth
// status and config (discovery, dynamic registration), code exchange, refresh with
// rotation, invalid_grant to a catchable McpAuthExpiredError, every admin endpoint with
// its error codes and audit records, and no token in any output or log line.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { startServer, tempDir, type TestServer } from '../harness';
import { startMcpUpstream, upstreamServerOptions, type McpUpstream } from '../support/mcp-upstream';
import { startOAuthStandIn, type OAuthStandIn } from '../support/oauth-server';
import { serverEnv, svcBin, svcInProcess } from '../support/cli';
import { testCa } from '../support/stand-in';

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** What the operator's browser does: visit the sign-in URL (the stand-in, by its name, on loopback) and follow the redirect. */
async function signIn(url: URL): Promise<{ status: number; text: string }> {
  const location = await new Promise<string>((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port: url.port, path: url.pathname + url.search, servername: url.hostname, headers: { host: url.host }, ca: fs.readFileSync(testCa().certFile) }, (res) => {
      res.resume();
      resolve(String(res.headers.location));
    });
    req.on('error', reject);
  });
  return new Promise((resolve, reject) => {
    http.get(location, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}

const CODE = `code-${randomBytes(8).toString('hex')}`;
const VERIFIER = `verifier-${randomBytes(24).toString('hex')}`;
const REDIRECT = 'http://127.0.0.1:8765/callback';

describe('MCP OAuth', () => {
  let server: TestServer;
  let auth: OAuthStandIn;
  let secure: McpUpstream;
  let teamAuth: OAuthStandIn;
  let team: McpUpstream;
  let gathering = Infinity;
  const gathered: Array<() => void> = [];
  const PROVIDER_SECRET = `provider-secret-${randomBytes(8).toString('hex')}`;

  before(async () => {
    auth = await startOAuthStandIn({ host: 'auth.secure-example.com', code: CODE, verifier: VERIFIER });
    secure = await startMcpUpstream({
      host: 'mcp.secure-example.com',
      tools: [
        { name: 'whoami', call: () => ({ content: [{ type: 'text', text: 'authorised' }] }) },
        // Answers, then the access token is revoked (the next requests get 401).
        { name: 'revoke', call: () => (setImmediate(() => auth.revokeAccess()), { content: [{ type: 'text', text: 'revoking' }] }) },
        // Answers once `gathering` calls wait at once.
        { name: 'gather', call: () => new Promise((resolve) => {
          gathered.push(() => resolve({ content: [{ type: 'text', text: 'gathered' }] }));
          if (gathered.length >= gathering) for (const r of gathered.splice(0)) r();
        }) },
      ],
      requireAuthorization: () => `Bearer ${auth.currentAccess ?? 'none'}`,
      documents: { '/.well-known/oauth-protected-resource/mcp': { resource: 'x', authorization_servers: [auth.issuer], scopes_supported: ['read', 'write'] } },
    });
    teamAuth = await startOAuthStandIn({ host: 'login.team-example.com', code: CODE, verifier: VERIFIER });
    team = await startMcpUpstream({
      host: 'mcp.team-example.com',
      tools: [{ name: 'hello', call: () => ({ content: [{ type: 'text', text: 'team says hi' }] }) }],
      requireAuthorization: () => `Bearer ${teamAuth.currentAccess ?? 'none'}`,
      documents: { '/.well-known/oauth-protected-resource/mcp': { resource: 'y', authorization_servers: [teamAuth.issuer] } },
    });
    const network = upstreamServerOptions(auth, secure, teamAuth, team);
    server = await startServer({
      runners: 1,
      args: network.args,
      env: { ...network.env, SVC_SECRET_KEY: randomBytes(32).toString('base64'), PROVIDER_SECRET },
      config: { mcp_oauth: { providers: [{ match: 'login.team-example.com', client_id: 'provider-client', client_secret: '${env.PROVIDER_SECRET}', scopes: ['team:read'] }] } },
    });
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
  team:
    url: ${team.url}
    auth: {type: oauth2}
permissions:
  main:
    - {capability: mcp.secure, action: allow}
    - {capability: mcp.team, action: allow}
`;
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.equal(registered.status, 200, registered.text);
  });
  after(async () => {
    await server?.stop();
    for (const s of [secure, team]) await s?.close();
    for (const a of [auth, teamAuth]) await a?.close();
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
        { name: 'team', kind: 'oauth', authenticated: false },
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
    assert.deepEqual(exchanged.json, { state: 'pending', unauthenticated: ['team'] });
    const codeRequest = auth.tokenRequests.at(-1)!;
    assert.deepEqual(codeRequest, { grant_type: 'authorization_code', code: CODE, redirect_uri: REDIRECT, client_id: 'registered-client', code_verifier: VERIFIER });
    const okAudit = server.audit({ type: 'admin', event: 'oauth_code_exchanged' }).at(-1)!;
    assert.deepEqual([Number(okAudit.status), okAudit.outcome], [200, 'ok']);

    const reply = await run(WHOAMI);
    assert.equal(reply.json.result, 'authorised', JSON.stringify(reply.json));
    // The stored credential is the refresh token: the access token used was minted from it.
    assert.equal(auth.tokenRequests.at(-1)!.grant_type, 'refresh_token');
    const status = await server.request('GET', '/v1/mcp/oauthbp/auth-status');
    assert.equal(status.json.state, 'pending');
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

  test('@mcp/<server>/async: concurrent calls refused together share one refresh and one new session, and are retried together', async () => {
    gathering = 6;
    const before = auth.tokenRequests.length;
    const requestsBefore = secure.requests.length;
    const reply = await run(`import s from "@mcp/secure/async";
    export async function main() {
      await s.revoke();
      return (await Promise.all(Array.from({ length: 6 }, () => s.gather()))).join(",");
    }`);
    assert.equal(reply.json.error, null, JSON.stringify(reply.json));
    assert.equal(reply.json.result, Array(6).fill('gathered').join(','));
    assert.equal(auth.tokenRequests.slice(before).filter((r) => r.grant_type === 'refresh_token').length, 1);
    const fresh = `Bearer ${auth.currentAccess}`;
    const retried = secure.requests.slice(requestsBefore).filter((r) => r.authorization === fresh && r.rpc.includes('tools/call'));
    assert.equal(retried.length, 6);
    assert.equal(new Set(retried.map((r) => r.sessionId)).size, 1);
  });

  test('invalid_grant after the retries throws a catchable McpAuthExpiredError; the credential is kept', async () => {
    auth.mode = 'invalid_grant';
    auth.revokeAccess();
    try {
      const reply = await run(WHOAMI);
      assert.equal(reply.json.error, null, JSON.stringify(reply.json));
      assert.match(reply.json.result, /^McpAuthExpiredError\|@mcp\/secure\.whoami: .*OAuth login failed.*authenticate/);
      const status = await server.request('GET', '/v1/mcp/oauthbp/auth-status');
      assert.equal(status.json.servers.find((s: { name: string }) => s.name === 'secure').authenticated, true);
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
    assert.deepEqual([stored.status, stored.json], [200, { state: 'pending', unauthenticated: ['team'] }]);
    // The stored access token is used as is.
    auth.currentAccess = staticToken;
    assert.equal((await run(WHOAMI)).json.result, 'authorised');

    const removed = await server.request('DELETE', '/v1/mcp/oauthbp/secure/refresh-token');
    assert.deepEqual([removed.status, removed.json], [200, { state: 'pending', unauthenticated: ['secure', 'team'] }]);
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

  test('a provider registration supplies the client id, scopes and client secret for its host', async () => {
    const config = await server.request('GET', `/v1/mcp/oauthbp/team/auth-config?redirect_uri=${encodeURIComponent(REDIRECT)}`);
    assert.equal(config.status, 200, config.text);
    assert.deepEqual(config.json, { url: team.url, client_id: 'provider-client', authorization_endpoint: `${teamAuth.issuer}/authorize`, token_endpoint: `${teamAuth.issuer}/token`, scopes: ['team:read'] });
    assert.equal(teamAuth.registrations.length, 0, 'no dynamic registration when a provider matches');
    assert.ok(!config.text.includes(PROVIDER_SECRET));
    const exchanged = await server.request('POST', '/v1/mcp/oauthbp/team/oauth/exchange', { body: { code: CODE, redirect_uri: REDIRECT, code_verifier: VERIFIER } });
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.deepEqual(teamAuth.tokenRequests.at(-1), { grant_type: 'authorization_code', code: CODE, redirect_uri: REDIRECT, client_id: 'provider-client', code_verifier: VERIFIER, client_secret: PROVIDER_SECRET });
    const reply = await run('import t from "@mcp/team";\nexport function main() { return t.hello(); }');
    assert.equal(reply.json.result, 'team says hi', JSON.stringify(reply.json));
    const refresh = teamAuth.tokenRequests.at(-1)!;
    assert.deepEqual([refresh.grant_type, refresh.client_id, refresh.client_secret, refresh.scope], ['refresh_token', 'provider-client', PROVIDER_SECRET, 'team:read']);
    assert.ok(!(server.lines().join('\n') + server.stderr()).includes(PROVIDER_SECRET));
  });

  test('svc mcp authenticate signs in with PKCE through the loopback redirect; auth-status and deauthenticate use the admin endpoints', async () => {
    const port = await freePort();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: server.home, ...serverEnv(server), SVC_OAUTH_REDIRECT_PORT: String(port) };
    const child = spawn(svcBin, ['mcp', 'authenticate', 'oauthbp', 'secure', '--no-browser'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    // 'close': the exit status once all its output has been read (stdout is asserted below).
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const url = await new Promise<URL>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        const found = /https:\/\/\S+\/authorize\S+/.exec(stderr);
        if (found) resolve(new URL(found[0]));
      });
      child.once('exit', () => reject(new Error(`svc exited early: ${stderr}`)));
    });
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('redirect_uri'), `http://127.0.0.1:${port}/callback`);
    assert.equal(url.searchParams.get('client_id'), 'registered-client');
    assert.equal(url.searchParams.get('scope'), 'read write');
    const page = await signIn(url);
    assert.equal(page.status, 200);
    assert.equal(await exited, 0, stderr);
    // The provider test before this one logged in `team`: with `secure` the Blueprint is active.
    assert.match(stdout, /Authenticated 'secure' of Blueprint 'oauthbp' \(state: active\)/);
    const exchange = auth.tokenRequests.filter((r) => r.grant_type === 'authorization_code').at(-1)!;
    assert.equal(exchange.code, 'authcode-1');
    assert.equal(exchange.redirect_uri, `http://127.0.0.1:${port}/callback`);
    assert.equal((await run(WHOAMI)).json.result, 'authorised');

    // The admin calls need no process of their own: the CLI in-process.
    const status = await svcInProcess(['mcp', 'auth-status', 'oauthbp'], { env: serverEnv(server) });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /Blueprint 'oauthbp': active/);
    assert.match(status.stdout, /secure +oauth +authenticated/);
    const removed = await svcInProcess(['mcp', 'deauthenticate', 'oauthbp', 'secure'], { env: serverEnv(server) });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /now pending/);
    const again = await svcInProcess(['mcp', 'deauthenticate', 'oauthbp', 'secure'], { env: serverEnv(server) });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no OAuth credential is stored/);
  });
});

// File edits and admin calls: the CLI in-process, no bin/svc process per command.
test('svc mcp provider add, list and remove keep the CLI providers file; a secret value is refused on the command line', async () => {
  const home = tempDir('svc-cli-providers-');
  const env = { SVC_HOME: home };
  const added = await svcInProcess(['mcp', 'provider', 'add', 'GitHub.com', '--client-id', 'Iv1.abc', '--client-secret', '${env.GH_SECRET}', '--scope', 'repo', '--scope', 'read:org'], { env });
  assert.equal(added.code, 0, added.stderr);
  assert.equal(fs.readFileSync(`${home}/mcp_oauth.yaml`, 'utf8'), 'providers:\n  - match: github.com\n    client_id: Iv1.abc\n    client_secret: ${env.GH_SECRET}\n    scopes:\n      - repo\n      - read:org\n');
  const literal = await svcInProcess(['mcp', 'provider', 'add', 'auth.example.com', '--client-id', 'x', '--client-secret', 'hunter2'], { env });
  assert.equal(literal.code, 2);
  assert.match(literal.stderr, /--client-secret: expected a reference/);
  const listed = await svcInProcess(['mcp', 'provider', 'list'], { env });
  assert.match(listed.stdout, /github\.com +Iv1\.abc +set +repo read:org/);
  assert.ok(!listed.stdout.includes('GH_SECRET'));
  assert.equal((await svcInProcess(['mcp', 'provider', 'remove', 'github.com'], { env })).code, 0);
  const missing = await svcInProcess(['mcp', 'provider', 'remove', 'github.com'], { env });
  assert.equal(missing.code, 1);
  assert.match((await svcInProcess(['mcp', 'provider', 'list'], { env })).stdout, /No OAuth providers registered/);
});

test('without a secret store every MCP OAuth endpoint answers 503 no_secret_store', async () => {
  const server = await startServer({ runners: 1 });
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
