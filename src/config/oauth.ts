// `mcp_oauth.providers`: host to match, client id, where the client secret comes from
// (`${env.VAR}` or `${secrets.KEY}`) and scopes; two providers for one host stop startup.
import ipaddr from 'ipaddr.js';
import { invalid } from './errors';
import { asList, asMap, asString, checkKeys, type ConfigFile } from './file';
import { fileKeys } from './schema';
import type { OAuthProvider } from './settings';
import { fileLookup } from './sources';

/** `match` is a host compared without port: `auth.example.com` (a port given is dropped). */
function providerHost(raw: string, where: string): string {
  const text = raw.trim().toLowerCase();
  const host = /^\[([0-9a-f:.]+)\](?::[0-9]{1,5})?$/.exec(text)?.[1] ?? /^([a-z0-9.-]+)(?::[0-9]{1,5})?$/.exec(text)?.[1];
  if (host === undefined || host === '' || (text.startsWith('[') && !ipaddr.IPv6.isValid(host))) {
    throw invalid(`config \`${where}\`: expected the host of an authorization server (e.g. \`github.com\`), got \`${raw}\``);
  }
  return host;
}

export function parseOAuthProviders(file: ConfigFile | null): OAuthProvider[] {
  const value = fileLookup(file, 'mcp_oauth.providers');
  if (value === undefined) return [];
  const providers: OAuthProvider[] = [];
  const seen = new Set<string>();
  asList(value, 'mcp_oauth.providers').forEach((item, i) => {
    const where = `mcp_oauth.providers[${i}]`;
    const fields = asMap(item, where);
    checkKeys(fields, fileKeys.provider, where);
    if (!fields.has('match')) throw invalid(`config \`${where}\`: \`match\` is required (the authorization server's host)`);
    if (!fields.has('client_id')) throw invalid(`config \`${where}\`: \`client_id\` is required`);
    const match = providerHost(asString(fields.get('match')!, `${where}.match`), `${where}.match`);
    const clientId = asString(fields.get('client_id')!, `${where}.client_id`);
    if (clientId.trim() === '') throw invalid(`config \`${where}.client_id\`: expected a non-empty client id`);
    if (seen.has(match)) throw invalid(`config \`${where}\`: another provider already matches \`${match}\``);
    seen.add(match);
    const clientSecret = fields.has('client_secret') ? asString(fields.get('client_secret')!, `${where}.client_secret`) : undefined;
    if (clientSecret !== undefined && clientSecret.startsWith('${') && !/^\$\{(env|secrets)\.[^}]+\}$/.test(clientSecret)) {
      throw invalid(`config \`${where}.client_secret\`: expected a literal, \`\${env.VAR}\` or \`\${secrets.KEY}\``);
    }
    const scopes = fields.has('scopes') ? asList(fields.get('scopes')!, `${where}.scopes`).map((s, j) => asString(s, `${where}.scopes[${j}]`)) : [];
    providers.push({ match, clientId, ...(clientSecret !== undefined ? { clientSecret } : {}), scopes });
  });
  return providers;
}
