// The `auth_proxy` section: per-host rules adding auth, headers or query parameters to
// outbound requests (stage 2 shapes), their hosts and secret references (stage 3).
import type { AuthProxyRule, SecretDeclaration } from './model';
import { asMap, bool, checkKeys, fail, get, stringMap, text, type Path } from './readers';
import { checkSecretReferences } from './references';
import { AuthProxyRuleSchema, BasicAuthSchema, fieldNames, ProxyAuthSchema } from './schema';
import type { TreeNode } from './yaml-tree';

export function parseAuthProxy(node: TreeNode): AuthProxyRule[] {
  if (node.kind !== 'seq') fail('parse_error', 'auth_proxy: expected a list of rules', ['auth_proxy'], node);
  return node.items.map((item, i) => parseAuthProxyRule(item, ['auth_proxy', i]));
}

function parseAuthProxyRule(item: TreeNode, path: Path): AuthProxyRule {
  const map = asMap(item, path) ?? fail('parse_error', 'auth_proxy: a rule must be a mapping', path, item);
  checkKeys(map, fieldNames(AuthProxyRuleSchema), path);
  const host = get(map, 'host');
  if (!host) fail('parse_error', 'auth_proxy: missing field `host`', path, item);
  const rule: AuthProxyRule = { host: text(host, [...path, 'host']).toLowerCase() };
  const insecure = get(map, 'allow_insecure_http');
  if (insecure) rule.allow_insecure_http = bool(insecure, [...path, 'allow_insecure_http']);
  const auth = get(map, 'auth');
  if (auth) rule.auth = parseProxyAuth(auth, [...path, 'auth']);
  const headers = stringMap(get(map, 'headers'), [...path, 'headers']);
  if (headers && Object.keys(headers).length > 0) rule.headers = headers;
  const query = stringMap(get(map, 'query'), [...path, 'query']);
  if (query && Object.keys(query).length > 0) rule.query = query;
  return rule;
}

function parseProxyAuth(auth: TreeNode, path: Path): NonNullable<AuthProxyRule['auth']> {
  const authMap = asMap(auth, path)!;
  checkKeys(authMap, fieldNames(ProxyAuthSchema), path);
  const bearer = get(authMap, 'bearer');
  const basic = get(authMap, 'basic');
  if ((bearer ? 1 : 0) + (basic ? 1 : 0) !== 1) fail('invalid_auth_proxy', 'auth must set exactly one of `bearer` or `basic`', path, auth);
  if (bearer) return { bearer: text(bearer, [...path, 'bearer']) };
  const basicMap = asMap(basic!, [...path, 'basic'])!;
  checkKeys(basicMap, fieldNames(BasicAuthSchema), [...path, 'basic']);
  const username = get(basicMap, 'username');
  const password = get(basicMap, 'password');
  if (!username || !password) fail('parse_error', 'auth.basic needs `username` and `password`', [...path, 'basic'], basic);
  return { basic: { username: text(username, [...path, 'basic', 'username']), password: text(password, [...path, 'basic', 'password']) } };
}

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
