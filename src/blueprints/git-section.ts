// The `git` section (its shape is the schema's): the commit identity and the remote user
// name, each free of control characters and delimiters, with only declared `${vars.NAME}` (stage 3).
import type { GitDeclaration, VariableDeclaration } from './model';
import { fail, type Path } from './readers';

export function checkGit(git: GitDeclaration, variables: ReadonlyMap<string, VariableDeclaration>): void {
  const values: Array<[Path, string, 'identity' | 'username']> = [
    [['git', 'identity', 'name'], git.identity.name, 'identity'],
    [['git', 'identity', 'email'], git.identity.email, 'identity'],
    ...(git.username !== undefined ? [[['git', 'username'], git.username, 'username'] as [Path, string, 'username']] : []),
  ];
  for (const [path, value, kind] of values) {
    const trimmed = value.trim();
    const forbidden = kind === 'identity' ? /[<>]/ : /:/;
    if (trimmed === '' || /[\u0000-\u001f\u007f]/.test(trimmed) || forbidden.test(trimmed)) fail('invalid_git', `${path.join('.')}: must be nonempty and contain no control characters or identity delimiters`, path, null);
    let rest = value;
    while (rest.includes('${')) {
      const start = rest.indexOf('${');
      const end = rest.indexOf('}', start);
      if (end === -1) fail('invalid_git', `${path.join('.')}: unterminated variable reference`, path, null);
      const inner = rest.slice(start + 2, end);
      if (!inner.startsWith('vars.')) fail('invalid_git', `${path.join('.')}: only \${vars.NAME} references are supported`, path, null);
      if (!variables.has(inner.slice(5))) fail('invalid_git', `${path.join('.')}: references undeclared variable '\${${inner}}'`, path, null);
      rest = rest.slice(end + 1);
    }
  }
}
