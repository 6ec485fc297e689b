// The `auth_proxy` section: per-host rules adding auth, headers or query parameters to
// outbound requests: their shapes are the schema's (schema.ts); their hosts and secret
// references are checked here (stage 3).
import type { AuthProxyRule, SecretDeclaration } from './model';
import { fail } from './readers';
import { checkSecretReferences } from './references';

export function checkAuthProxyRule(rule: AuthProxyRule, index: number, secrets: ReadonlyMap<string, SecretDeclaration>): void {
  const path = ['auth_proxy', index];
  const where = `auth_proxy rule ${index} (${rule.host})`;
  if (!/^[a-z0-9.-]+$|^\[?[0-9a-f:.]+\]?$/.test(rule.host)) fail('invalid_auth_proxy', `${where}: host must be a bare host name or IP (no scheme, port, path or whitespace)`, [...path, 'host'], null);
  if (!rule.auth && !rule.headers && !rule.query) fail('invalid_auth_proxy', `${where}: a rule must set at least one of \`auth\`, \`headers\`, \`query\``, path, null);
  const authorizationHeader = Object.keys(rule.headers ?? {}).find((h) => h.toLowerCase() === 'authorization');
  if (rule.auth && authorizationHeader) fail('invalid_auth_proxy', `${where}: \`auth\` and an ${authorizationHeader} header cannot be combined; keep one of them`, [...path, 'headers', authorizationHeader], null);
  if (rule.auth) {
    const [named, at] = 'bearer' in rule.auth ? [rule.auth.bearer, ['auth', 'bearer']] : [rule.auth.basic.password, ['auth', 'basic', 'password']];
    if (!secrets.has(named)) fail('invalid_auth_proxy', `${where}: auth names undeclared secret '${named}'; declare it under \`secrets:\``, [...path, ...at], null);
  }
  for (const part of ['headers', 'query'] as const) {
    for (const [key, value] of Object.entries(rule[part] ?? {})) checkSecretReferences(value, `${where} ${part} '${key}'`, 'invalid_auth_proxy', [...path, part, key], secrets);
  }
}
