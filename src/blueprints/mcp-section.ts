// The `mcp` section: MCP servers by name with transport, URL, headers or OAuth (their
// shapes are the schema's); names, URLs, secret references and the `mcp.<server>` capabilities of the permissions
// (stage 3, invalid_mcp).
import type { PermissionPolicy } from '../policy';
import type { McpServerDeclaration, SecretDeclaration } from './model';
import { fail, NAME } from './readers';
import { checkSecretReferences } from './references';

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
