// OAuth endpoint discovery for an MCP server: protected-resource
// metadata (RFC 9728), then the issuer's authorization-server metadata (RFC 8414, with the
// OpenID configuration as the fallback), each path-aware first, then at the origin.
import type { Dispatcher } from 'undici';
import { oauthRequest } from './http';

export interface ServerMetadata {
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
}

export class DiscoveryFailed extends Error {}

function wellKnown(base: string, name: string): string[] {
  const url = new URL(base);
  const path = url.pathname.replace(/\/$/, '');
  const urls = path && path !== '/' ? [`${url.origin}/.well-known/${name}${path}`] : [];
  urls.push(`${url.origin}/.well-known/${name}`);
  return urls;
}

async function firstJson(dispatcher: Dispatcher, urls: string[]): Promise<Record<string, unknown> | null> {
  for (const url of urls) {
    try {
      const answer = await oauthRequest(dispatcher, url);
      if (answer.status === 200 && answer.body) return answer.body;
    } catch {
      // try the next location
    }
  }
  return null;
}

const strings = (value: unknown): string[] | undefined => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined);

export async function discoverMetadata(dispatcher: Dispatcher, serverUrl: string): Promise<ServerMetadata> {
  const resource = await firstJson(dispatcher, wellKnown(serverUrl, 'oauth-protected-resource'));
  const issuer = strings(resource?.authorization_servers)?.[0];
  // Without protected-resource metadata the MCP server's origin is taken as the issuer.
  const base = issuer ?? new URL(serverUrl).origin;
  const metadata = await firstJson(dispatcher, [...wellKnown(base, 'oauth-authorization-server'), ...wellKnown(base, 'openid-configuration')]);
  if (!metadata) throw new DiscoveryFailed(`no OAuth authorization-server metadata found for ${base}`);
  const authorization = metadata.authorization_endpoint;
  const token = metadata.token_endpoint;
  if (typeof authorization !== 'string' || typeof token !== 'string') throw new DiscoveryFailed(`the authorization-server metadata of ${base} lacks authorization_endpoint or token_endpoint`);
  return {
    authorization_endpoint: authorization,
    token_endpoint: token,
    ...(typeof metadata.registration_endpoint === 'string' ? { registration_endpoint: metadata.registration_endpoint } : {}),
    ...(strings(resource?.scopes_supported) ?? strings(metadata.scopes_supported) ? { scopes_supported: strings(resource?.scopes_supported) ?? strings(metadata.scopes_supported) } : {}),
  };
}
