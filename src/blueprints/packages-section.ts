// The `packages` section: a YAML list of distinct names without versions (stage 2), each
// name shaped `@scope/name` and not a built-in or MCP module (stage 3, invalid_packages).
import { fail, text } from './readers';
import type { TreeNode } from './yaml-tree';

const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

export function parsePackages(node: TreeNode): string[] {
  if (node.kind === 'map') fail('parse_error', 'packages: versions are not supported; list package names only (a YAML list)', ['packages'], node);
  if (node.kind !== 'seq') fail('parse_error', 'packages: expected a list of package names', ['packages'], node);
  const packages: string[] = [];
  node.items.forEach((item, i) => {
    const packageName = text(item, ['packages', i]);
    if (packages.includes(packageName)) fail('parse_error', `duplicate package \`${packageName}\` in packages`, ['packages'], item);
    packages.push(packageName);
  });
  return packages;
}

export function checkPackageName(name: string, node: TreeNode | null): void {
  const bad: (why: string) => never = (why) => fail('invalid_packages', `package '${name}': ${why}`, ['packages'], node);
  if (name.startsWith('svc:')) bad('standard-library modules need no declaration; remove it from packages');
  if (name.startsWith('@mcp/')) bad('MCP servers are declared under `mcp:`, not listed as packages');
  const match = /^@([^/]+)\/([^/]+)$/.exec(name);
  if (!match) bad('a package name looks like `@scope/name`');
  if (!SCOPE.test(match[1])) bad('the scope is 1-39 letters, digits and single inner hyphens');
  if (!/^[A-Za-z0-9._-]+$/.test(match[2]) || match[2] === '.' || match[2] === '..') bad('the name uses letters, digits, `.`, `_` and `-`');
}
