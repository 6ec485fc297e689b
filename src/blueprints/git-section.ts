// The `git` section: the commit identity and the remote user name (stage 2), each value
// free of control characters and delimiters, with only declared `${vars.NAME}` (stage 3).
import type { GitDeclaration, VariableDeclaration } from './model';
import { asMap, checkKeys, fail, get, text, type Path } from './readers';
import { fieldNames, GitIdentitySchema, GitSchema } from './schema';
import type { TreeNode } from './yaml-tree';

export function parseGit(node: TreeNode): GitDeclaration {
  const map = asMap(node, ['git'])!;
  checkKeys(map, fieldNames(GitSchema), ['git']);
  const identity = get(map, 'identity');
  if (!identity) fail('parse_error', 'git: missing field `identity`', ['git'], node);
  const identityMap = asMap(identity, ['git', 'identity'])!;
  checkKeys(identityMap, fieldNames(GitIdentitySchema), ['git', 'identity']);
  const name = get(identityMap, 'name');
  const email = get(identityMap, 'email');
  if (!name) fail('parse_error', 'git.identity: missing field `name`', ['git', 'identity'], identity);
  if (!email) fail('parse_error', 'git.identity: missing field `email`', ['git', 'identity'], identity);
  const git: GitDeclaration = { identity: { name: text(name, ['git', 'identity', 'name']), email: text(email, ['git', 'identity', 'email']) } };
  const username = get(map, 'username');
  if (username) git.username = text(username, ['git', 'username']);
  return git;
}

export function checkGit(git: GitDeclaration, variables: Map<string, VariableDeclaration>, node: TreeNode): void {
  const values: Array<[Path, string, 'identity' | 'username']> = [
    [['git', 'identity', 'name'], git.identity.name, 'identity'],
    [['git', 'identity', 'email'], git.identity.email, 'identity'],
    ...(git.username !== undefined ? [[['git', 'username'], git.username, 'username'] as [Path, string, 'username']] : []),
  ];
  for (const [path, value, kind] of values) {
    const trimmed = value.trim();
    const forbidden = kind === 'identity' ? /[<>]/ : /:/;
    if (trimmed === '' || /[\u0000-\u001f\u007f]/.test(trimmed) || forbidden.test(trimmed)) fail('invalid_git', `${path.join('.')}: must be nonempty and contain no control characters or identity delimiters`, path, node);
    let rest = value;
    while (rest.includes('${')) {
      const start = rest.indexOf('${');
      const end = rest.indexOf('}', start);
      if (end === -1) fail('invalid_git', `${path.join('.')}: unterminated variable reference`, path, node);
      const inner = rest.slice(start + 2, end);
      if (!inner.startsWith('vars.')) fail('invalid_git', `${path.join('.')}: only \${vars.NAME} references are supported`, path, node);
      if (!variables.has(inner.slice(5))) fail('invalid_git', `${path.join('.')}: references undeclared variable '\${${inner}}'`, path, node);
      rest = rest.slice(end + 1);
    }
  }
}
