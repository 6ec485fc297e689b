// The `mcp` section: MCP servers by name with transport, URL, headers or OAuth (stage 2);
// names, URLs, secret references and the `mcp.<server>` capabilities of the permissions
// (stage 3, invalid_mcp).
import type { PermissionPolicy } from '../policy';
import type { McpServerDeclaration, SecretDeclaration } from './model';
import { asMap, checkKeys, fail, get, NAME, stringMap, text, type Path } from './readers';
import { checkSecretReferences } from './references';
import { fieldNames, MCP_TRANSPORTS, McpAuthSchema, McpServerSchema } from './schema';
import type { TreeNode } from './yaml-tree';

export function parseMcp(node: TreeNode): Record<string, McpServerDeclaration> {
  const mcp: Record<string, McpServerDeclaration> = {};
  for (const entry of asMap(node, ['mcp'])?.entries ?? []) mcp[entry.key] = parseMcpServer(entry.key, entry.value, ['mcp', entry.key]);
  return mcp;
}

function parseMcpServer(name: string, node: TreeNode, path: Path): McpServerDeclaration {
  const map = asMap(node, path) ?? fail('parse_error', `mcp server '${name}': missing field \`url\``, path, node);
  checkKeys(map, fieldNames(McpServerSchema), path);
  const transportNode = get(map, 'transport');
  const transport = transportNode ? text(transportNode, [...path, 'transport']) : 'streamable_http';
  if (transport === 'stdio') fail('parse_error', "stdio transport is not supported; use 'streamable_http'", [...path, 'transport'], transportNode);
  if (!(MCP_TRANSPORTS as readonly string[]).includes(transport)) fail('parse_error', `unknown transport '${transport}', expected one of ${MCP_TRANSPORTS.map((t) => `\`${t}\``).join(', ')}`, [...path, 'transport'], transportNode);
  const url = get(map, 'url');
  if (!url) fail('parse_error', `mcp server '${name}': missing field \`url\``, path, node);
  const server: McpServerDeclaration = { url: text(url, [...path, 'url']) };
  const headers = stringMap(get(map, 'headers'), [...path, 'headers']);
  if (headers && Object.keys(headers).length > 0) server.headers = headers;
  const auth = get(map, 'auth');
  if (auth) server.auth = parseMcpAuth(auth, [...path, 'auth']);
  return server;
}

function parseMcpAuth(auth: TreeNode, path: Path): NonNullable<McpServerDeclaration['auth']> {
  const authMap = asMap(auth, path)!;
  checkKeys(authMap, fieldNames(McpAuthSchema), path);
  const type = get(authMap, 'type');
  if (!type) fail('parse_error', 'mcp auth: missing field `type` (only `oauth2` is supported)', path, auth);
  const typeText = text(type, [...path, 'type']);
  if (typeText !== 'oauth2') fail('parse_error', `unknown variant \`${typeText}\`, expected \`oauth2\``, [...path, 'type'], type);
  const out: NonNullable<McpServerDeclaration['auth']> = { type: 'oauth2' };
  for (const key of ['client_id', 'authorization_endpoint', 'token_endpoint'] as const) {
    const value = get(authMap, key);
    if (value) out[key] = text(value, [...path, key]);
  }
  const scopes = get(authMap, 'scopes');
  if (scopes) out.scopes = scopes.kind === 'seq' ? scopes.items.map((s, j) => text(s, [...path, 'scopes', j])) : fail('parse_error', 'mcp auth.scopes must be a list of strings', [...path, 'scopes'], scopes);
  return out;
}

export function checkMcp(mcp: Record<string, McpServerDeclaration>, secrets: ReadonlyMap<string, SecretDeclaration>, policy: PermissionPolicy, allowInsecure: boolean): void {
  for (const [server, declaration] of Object.entries(mcp)) checkMcpServer(server, declaration, secrets, allowInsecure);
  for (const [caller, rules] of policy.callers) {
    rules.forEach((rule, index) => {
      if (!rule.capability.startsWith('mcp.')) return;
      const rest = rule.capability.slice(4);
      const path = ['permissions', caller, index, 'capability'];
      if (rest.includes('/')) {
        const [server, tool] = [rest.slice(0, rest.indexOf('/')), rest.slice(rest.indexOf('/') + 1)];
        fail('invalid_mcp', `permissions for '${caller}': capability '${rule.capability}' is not supported; use capability \`mcp.${server}\` with a filter such as \`tool == "${tool}"\``, path, null);
      }
      if (!Object.hasOwn(mcp, rest)) fail('invalid_mcp', `permissions for '${caller}': capability '${rule.capability}' names MCP server '${rest}', which is not declared under \`mcp:\``, path, null);
    });
  }
}

function checkMcpServer(server: string, declaration: McpServerDeclaration, secrets: ReadonlyMap<string, SecretDeclaration>, allowInsecure: boolean): void {
  const path = ['mcp', server];
  if (!NAME.test(server)) fail('invalid_mcp', `server name '${server}' contains characters outside [A-Za-z0-9_-]`, path, null);
  if (!mcpUrlAccepted(declaration.url, allowInsecure)) {
    fail('invalid_mcp', `server '${server}': url '${declaration.url}' must be an absolute https:// URL${allowInsecure ? ' or http:// URL' : ' (http:// only with allow_insecure_http: true)'}`, [...path, 'url'], null);
  }
  if (declaration.headers && declaration.auth) fail('invalid_mcp', `server '${server}': \`headers\` and \`auth\` are mutually exclusive`, path, null);
  for (const [key, value] of Object.entries(declaration.headers ?? {})) checkSecretReferences(value, `server '${server}' header '${key}'`, 'invalid_mcp', [...path, 'headers', key], secrets);
  const auth = declaration.auth;
  if (!auth) return;
  for (const key of ['client_id', 'authorization_endpoint', 'token_endpoint'] as const) {
    const value = auth[key];
    if (value !== undefined) checkSecretReferences(value, `server '${server}' auth.${key}`, 'invalid_mcp', [...path, 'auth', key], secrets);
  }
  (auth.scopes ?? []).forEach((scope, i) => checkSecretReferences(scope, `server '${server}' auth.scopes[${i}]`, 'invalid_mcp', [...path, 'auth', 'scopes', i], secrets));
}

function mcpUrlAccepted(value: string, allowInsecure: boolean): boolean {
  try {
    const url = new URL(value);
    return url.hostname !== '' && (url.protocol === 'https:' || (url.protocol === 'http:' && allowInsecure));
  } catch {
    return false;
  }
}
