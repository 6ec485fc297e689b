// `svc mcp …`: OAuth logins for a Blueprint's upstream MCP servers.
// `authenticate` runs the authorization-code flow with PKCE (S256) on the operator's
// machine: the server supplies the auth config, the browser signs in, a loopback listener
// takes the code, and the server exchanges it. `deauthenticate` and `auth-status` call the
// admin endpoints; `provider add|list|remove` edit the CLI's own providers file.
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Command } from 'commander';
import { refusalWithHint, ServerClient, serverCommand, type ServerOptions } from '../client';
import { CliError, UsageError } from '../errors';
import { alignColumns, subcommand } from '../help';
import { envValue, say, warn, type CliIo } from '../io';
import type { CliContext } from '../context';

const DEFAULT_REDIRECT_PORT = 8765;
const LOGIN_TIMEOUT_MS = 5 * 60_000;

const OAUTH_HINTS: Record<string, string> = {
  no_secret_store: 'start the server with a secret store key (SVC_SECRET_KEY): OAuth tokens are kept there',
  not_oauth: 'only servers declared with `auth: {type: oauth2}` take a login',
  missing_client_id: 'register a provider in the server config (mcp_oauth.providers) or set auth.client_id in the Blueprint',
  discovery_failed: 'pin auth.authorization_endpoint and auth.token_endpoint in the Blueprint if the server publishes no metadata',
  not_found: 'nothing to remove: no login is stored for this server',
};

const base64url = (bytes: Buffer) => bytes.toString('base64url');

function redirectPort(io: CliIo): number {
  const raw = envValue(io, 'SVC_OAUTH_REDIRECT_PORT');
  if (raw === undefined) return DEFAULT_REDIRECT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || port < 1 || port > 65535) throw new UsageError(`$SVC_OAUTH_REDIRECT_PORT: expected a port from 1 to 65535, got \`${raw}\``);
  return port;
}

/**
 * Waits on the loopback redirect for one callback carrying `state`; answers the browser.
 * `listening` settles once the port is bound: the sign-in URL is shown only then, so a fast
 * browser (or a test) never finds nothing listening.
 */
function awaitCallback(port: number, state: string): { answer: Promise<string>; listening: Promise<void> } {
  let bound!: () => void;
  const listening = new Promise<void>((resolve) => (bound = resolve));
  const answer = new Promise<string>((resolve, reject) => {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      const finish = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(text);
      const error = url.searchParams.get('error');
      const code = url.searchParams.get('code');
      if (url.searchParams.get('state') !== state) {
        finish(400, 'The login answer does not belong to this login (state mismatch). Return to the terminal.');
        done(new CliError('the login answer carried the wrong state; start `svc mcp authenticate` again'));
      } else if (error || !code) {
        finish(400, 'The login failed. Return to the terminal.');
        done(new CliError(`the authorization server refused the login: ${error ?? 'no code in the answer'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`));
      } else {
        finish(200, 'Login complete: you can close this window and return to the terminal.');
        done(null, code);
      }
    });
    const timer = setTimeout(() => done(new CliError(`no login answer arrived within ${LOGIN_TIMEOUT_MS / 60_000} minutes`)), LOGIN_TIMEOUT_MS);
    let settled = false;
    function done(error: Error | null, code?: string) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      server.close();
      server.closeAllConnections?.();
      if (error) reject(error);
      else resolve(code!);
    }
    server.once('error', (error: NodeJS.ErrnoException) =>
      done(new CliError(`cannot listen on 127.0.0.1:${port} for the login answer (${error.code ?? error.message})`, 1, ['choose another port with SVC_OAUTH_REDIRECT_PORT'])),
    );
    server.listen(port, '127.0.0.1', () => bound());
  });
  return { answer, listening: Promise.race([listening, answer.then(() => undefined)]) };
}

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is printed; the operator can open it by hand.
  }
}

/** The CLI's providers file: $SVC_HOME/mcp_oauth.yaml (default ~/.svc/mcp_oauth.yaml). */
function providersFile(io: CliIo): string {
  const home = envValue(io, 'SVC_HOME') ?? (envValue(io, 'HOME') ? path.join(envValue(io, 'HOME')!, '.svc') : null);
  if (!home) throw new UsageError('cannot find the providers file: set SVC_HOME or HOME');
  return path.join(home, 'mcp_oauth.yaml');
}

interface ProviderEntry {
  match: string;
  client_id: string;
  client_secret?: string;
  scopes?: string[];
}

/** The YAML parser loads for the provider verbs only. */
const yaml = async () => (await import('yaml')).default;

async function readProviders(file: string): Promise<ProviderEntry[]> {
  if (!fs.existsSync(file)) return [];
  const YAML = await yaml();
  let doc: unknown;
  try {
    doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
  const providers = (doc as { providers?: unknown } | null)?.providers ?? [];
  if (!Array.isArray(providers)) throw new CliError(`${file}: \`providers\` must be a list`);
  return providers as ProviderEntry[];
}

async function writeProviders(file: string, providers: ProviderEntry[]): Promise<void> {
  const YAML = await yaml();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(temporary, YAML.stringify({ providers }), { mode: 0o600 });
  fs.renameSync(temporary, file);
}

function providerHost(raw: string): string {
  const host = raw.trim().toLowerCase().replace(/:\d+$/, '');
  if (!/^[a-z0-9.-]+$/.test(host) || host === '') throw new UsageError(`<match>: expected the host of an authorization server (e.g. github.com), got \`${raw}\``);
  return host;
}

export function registerMcpCommands(root: Command, context: CliContext): void {
  const { io } = context;
  const mcp = subcommand(root, 'mcp', "OAuth logins for a Blueprint's MCP servers, and OAuth provider registrations", ['svc mcp authenticate support notion', 'svc mcp auth-status support']);

  serverCommand(mcp, 'authenticate', 'sign in to an `auth: oauth2` MCP server in the browser and store the login on the server (PKCE; answer on http://127.0.0.1:8765/callback, port from SVC_OAUTH_REDIRECT_PORT)', ['svc mcp authenticate support notion'])
    .argument('<blueprint>', 'Blueprint name')
    .argument('<server>', 'MCP server name in its `mcp:` block')
    .option('--no-browser', 'print the sign-in URL without opening a browser')
    .action(async (blueprint: string, server: string, options: ServerOptions & { browser: boolean }) => {
      const client = ServerClient.from(options, io);
      const redirectUri = `http://127.0.0.1:${redirectPort(io)}/callback`;
      const config = await client.request('GET', '/v1/mcp/{blueprint}/{server}/auth-config', { params: { path: { blueprint, server }, query: { redirect_uri: redirectUri } } });
      if (config.status !== 200) throw refusalWithHint(config, OAUTH_HINTS);
      const { client_id: clientId, authorization_endpoint: authorizationEndpoint, scopes } = config.json as { client_id?: string; authorization_endpoint?: string; scopes?: string[] };
      if (!clientId || !authorizationEndpoint) throw new CliError('the server gave no client id or authorization endpoint for this login', 1, [OAUTH_HINTS.missing_client_id]);
      const verifier = base64url(randomBytes(32));
      const challenge = base64url(createHash('sha256').update(verifier).digest());
      const state = base64url(randomBytes(16));
      const url = new URL(authorizationEndpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('code_challenge', challenge);
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('state', state);
      if (scopes?.length) url.searchParams.set('scope', scopes.join(' '));
      const { answer, listening } = awaitCallback(Number(new URL(redirectUri).port), state);
      await listening;
      warn(io, `Open this URL to sign in to '${server}':\n  ${url.toString()}`);
      if (options.browser) openBrowser(url.toString());
      const code = await answer;
      const exchanged = await client.request('POST', '/v1/mcp/{blueprint}/{server}/oauth/exchange', { params: { path: { blueprint, server } }, body: { code, redirect_uri: redirectUri, code_verifier: verifier, client_id: clientId } });
      if (exchanged.status !== 200) throw refusalWithHint(exchanged, OAUTH_HINTS);
      say(io, `Authenticated '${server}' of Blueprint '${blueprint}' (state: ${exchanged.json.state}${exchanged.json.unauthenticated?.length ? `; still without a login: ${exchanged.json.unauthenticated.join(', ')}` : ''})`);
    });

  serverCommand(mcp, 'deauthenticate', "remove the stored login of an MCP server", ['svc mcp deauthenticate support notion'])
    .argument('<blueprint>', 'Blueprint name')
    .argument('<server>', 'MCP server name')
    .action(async (blueprint: string, server: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('DELETE', '/v1/mcp/{blueprint}/{server}/refresh-token', { params: { path: { blueprint, server } } });
      if (reply.status !== 200) throw refusalWithHint(reply, OAUTH_HINTS);
      say(io, `Removed the login of '${server}' (Blueprint '${blueprint}' is now ${reply.json.state})`);
    });

  serverCommand(mcp, 'auth-status', "show which MCP servers of a Blueprint have a login", ['svc mcp auth-status support'])
    .argument('<blueprint>', 'Blueprint name')
    .action(async (blueprint: string, options: ServerOptions) => {
      const reply = await ServerClient.from(options, io).request('GET', '/v1/mcp/{blueprint}/auth-status', { params: { path: { blueprint } } });
      if (reply.status !== 200) throw refusalWithHint(reply, OAUTH_HINTS);
      const body = reply.json as { blueprint: string; state: string; servers: Array<{ name: string; kind: string; authenticated?: boolean }> };
      say(io, `Blueprint '${body.blueprint}': ${body.state}`);
      const rows = body.servers.map((s) => [s.name, s.kind, s.kind === 'oauth' ? (s.authenticated ? 'authenticated' : 'not authenticated') : '-']);
      for (const line of alignColumns([['SERVER', 'KIND', 'LOGIN'], ...rows])) say(io, line);
    });

  const provider = subcommand(mcp, 'provider', 'OAuth client registrations kept by this CLI ($SVC_HOME/mcp_oauth.yaml)', ['svc mcp provider add github.com --client-id Iv1.abc123']);

  subcommand(provider, 'add', 'register (or replace) the OAuth client for an authorization server host', ["svc mcp provider add github.com --client-id Iv1.abc123 --client-secret '${env.GITHUB_CLIENT_SECRET}' --scope repo"])
    .argument('<match>', 'host of the authorization server, e.g. github.com')
    .requiredOption('--client-id <id>', 'client id registered with that server')
    .option('--client-secret <reference>', 'where the client secret comes from: ${env.VAR} or ${secrets.KEY} (never the value itself)')
    .option('--scope <scope>', 'scope to request (repeatable)', (value: string, all: string[] = []) => [...all, value])
    .action(async (match: string, options: { clientId: string; clientSecret?: string; scope?: string[] }) => {
      const host = providerHost(match);
      if (options.clientId.trim() === '') throw new UsageError('--client-id: expected a non-empty client id');
      if (options.clientSecret !== undefined && !/^\$\{(env|secrets)\.[^}]+\}$/.test(options.clientSecret)) {
        throw new UsageError('--client-secret: expected a reference, ${env.VAR} or ${secrets.KEY}; a secret value never goes on the command line');
      }
      const file = providersFile(io);
      const providers = (await readProviders(file)).filter((p) => p.match !== host);
      providers.push({ match: host, client_id: options.clientId, ...(options.clientSecret ? { client_secret: options.clientSecret } : {}), ...(options.scope?.length ? { scopes: options.scope } : {}) });
      providers.sort((a, b) => (a.match < b.match ? -1 : a.match > b.match ? 1 : 0));
      await writeProviders(file, providers);
      say(io, `Registered the OAuth client for ${host}`);
    });

  subcommand(provider, 'list', 'list the registered OAuth clients (secrets are never shown)', ['svc mcp provider list']).action(async () => {
    const providers = await readProviders(providersFile(io));
    if (providers.length === 0) return say(io, 'No OAuth providers registered (add one with `svc mcp provider add`)');
    for (const line of alignColumns([['MATCH', 'CLIENT ID', 'SECRET', 'SCOPES'], ...providers.map((p) => [p.match, p.client_id, p.client_secret ? 'set' : '-', p.scopes?.join(' ') || '-'])])) say(io, line);
  });

  subcommand(provider, 'remove', 'remove the registration for a host', ['svc mcp provider remove github.com'])
    .argument('<match>', 'host of the authorization server')
    .action(async (match: string) => {
      const host = providerHost(match);
      const file = providersFile(io);
      const providers = await readProviders(file);
      if (!providers.some((p) => p.match === host)) throw new CliError(`no OAuth provider is registered for ${host}`);
      await writeProviders(file, providers.filter((p) => p.match !== host));
      say(io, `Removed the OAuth client for ${host}`);
    });

}
