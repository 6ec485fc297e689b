// A real OAuth authorization server stand-in on loopback HTTPS under a public-looking name
// (test CA, `network.hosts`): RFC 8414 metadata, RFC 7591
// registration, and a token endpoint for the authorization-code (PKCE) and refresh-token
// grants that rotates refresh tokens. Every token request is recorded.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { testCa } from './stand-in';
import { certificateFor } from './tls';

export interface OAuthStandIn {
  issuer: string;
  hosts: string[];
  /** The access token the protected MCP server accepts right now. */
  currentAccess: string | null;
  /** Form fields of every token request, in order. */
  tokenRequests: Array<Record<string, string>>;
  registrations: Array<Record<string, unknown>>;
  /** Query parameters of every /authorize visit (the browser's sign-in). */
  authorizations: Array<Record<string, string>>;
  /** `invalid_grant`: refresh requests are refused that way. */
  mode: 'normal' | 'invalid_grant';
  /** The server forgets the current access token (the next use is refused). */
  revokeAccess(): void;
  close(): Promise<void>;
}

export async function startOAuthStandIn(options: { host: string; code: string; verifier: string }): Promise<OAuthStandIn> {
  const { certFile, keyFile } = certificateFor(testCa(), [options.host], `oauth-${options.host}`);
  let serial = 0;
  /** Codes issued by /authorize and the PKCE challenge each must be redeemed with. */
  const issued = new Map<string, string>();
  let validRefresh = new Set<string>();
  const standIn: OAuthStandIn = {
    issuer: '',
    hosts: [options.host],
    currentAccess: null,
    tokenRequests: [],
    registrations: [],
    authorizations: [],
    mode: 'normal',
    revokeAccess() {
      standIn.currentAccess = null;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const mint = () => {
    serial++;
    standIn.currentAccess = `access-${serial}-${Math.random().toString(36).slice(2)}`;
    const refresh = `refresh-${serial}-${Math.random().toString(36).slice(2)}`;
    validRefresh = new Set([refresh]);
    return { access_token: standIn.currentAccess, refresh_token: refresh, token_type: 'Bearer', expires_in: 3600 };
  };
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && url === '/.well-known/oauth-authorization-server') {
      return json(200, { issuer: standIn.issuer, authorization_endpoint: `${standIn.issuer}/authorize`, token_endpoint: `${standIn.issuer}/token`, registration_endpoint: `${standIn.issuer}/register` });
    }
    if (req.method === 'GET' && url === '/authorize') {
      // The sign-in a browser would do: consent is implied; back to the client's redirect.
      const query = Object.fromEntries(new URL(req.url ?? '/', standIn.issuer).searchParams);
      standIn.authorizations.push(query);
      const code = `authcode-${issued.size + 1}`;
      issued.set(code, query.code_challenge);
      const back = new URL(query.redirect_uri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', query.state);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (req.method === 'POST' && url === '/register') {
      const body = JSON.parse(text) as Record<string, unknown>;
      standIn.registrations.push(body);
      return json(201, { client_id: 'registered-client', client_id_issued_at: 1 });
    }
    if (req.method === 'POST' && url === '/token') {
      const fields = Object.fromEntries(new URLSearchParams(text));
      standIn.tokenRequests.push(fields);
      if (fields.grant_type === 'authorization_code') {
        const challenge = issued.get(fields.code);
        const pkceOk = challenge !== undefined && createHash('sha256').update(fields.code_verifier ?? '').digest('base64url') === challenge;
        if (!pkceOk && (fields.code !== options.code || fields.code_verifier !== options.verifier)) return json(400, { error: 'invalid_grant', error_description: 'the code or verifier is wrong' });
        return json(200, mint());
      }
      if (fields.grant_type === 'refresh_token') {
        if (standIn.mode === 'invalid_grant' || !validRefresh.has(fields.refresh_token)) return json(400, { error: 'invalid_grant' });
        return json(200, mint());
      }
      return json(400, { error: 'unsupported_grant_type' });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.issuer = `https://${options.host}:${(server.address() as AddressInfo).port}`;
  return standIn;
}
