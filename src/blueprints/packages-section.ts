// The `packages` section: a list of distinct names without versions (the schema's), each
// name shaped `@scope/name` and not a built-in or MCP module (stage 3, invalid_packages).
import { fail } from './readers';

const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

export function checkPackageName(name: string): void {
  const bad: (why: string) => never = (why) => fail('invalid_packages', `package '${name}': ${why}`, ['packages'], null);
  if (name.startsWith('svc:')) bad('standard-library modules need no declaration; remove it from packages');
  if (name.startsWith('@mcp/')) bad('MCP servers are declared under `mcp:`, not listed as packages');
  const match = /^@([^/]+)\/([^/]+)$/.exec(name);
  if (!match) bad('a package name looks like `@scope/name`');
  if (!SCOPE.test(match[1])) bad('the scope is 1-39 letters, digits and single inner hyphens');
  if (!/^[A-Za-z0-9._-]+$/.test(match[2]) || match[2] === '.' || match[2] === '..') bad('the name uses letters, digits, `.`, `_` and `-`');
}
