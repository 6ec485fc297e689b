// Filling a Blueprint's `vfs` path templates and `git` values with a session's variables.
// The filled file area is fixed for the session's life and written into its record;
// errors name the field and the variable.
import type { FilledVfs, GitDeclaration, MountDeclaration, VfsDeclaration } from '../blueprints';

export type FillResult<T> = { ok: true; value: T } | { ok: false; error: string };

const MAX_PATH_BYTES = 4096;
const WHOLE_COMPONENT_REFERENCE = /^\$\{vars\.([^{}]+)\}$/;
const COMPONENT_RULE = "each path component must be nonempty and contain no separator, NUL, '.' or '..' component";

class FillError extends Error {}

function checkComponent(component: string, where: string): void {
  if (component === '' || component === '.' || component === '..' || /[/\\\0]/.test(component)) {
    throw new FillError(`${where}: ${COMPONENT_RULE}`);
  }
}

/** Fills one path template; each `${vars.NAME}` is a whole component, replaced once. */
export function fillPathTemplate(template: string, variables: Readonly<Record<string, string>>, where: string): string {
  const absolute = template.startsWith('/');
  if (absolute && template === '/') return '/';
  const body = absolute ? template.slice(1) : template;
  const filled = body.split('/').map((component) => {
    if (!component.includes('${')) {
      checkComponent(component, where);
      return component;
    }
    const reference = WHOLE_COMPONENT_REFERENCE.exec(component);
    if (!reference) throw new FillError(`${where}: use \${vars.NAME} as a whole path component`);
    const value = variables[reference[1]];
    if (value === undefined) throw new FillError(`${where}: variable '\${vars.${reference[1]}}' has no value`);
    checkComponent(value, `${where}: the value of variable '${reference[1]}'`);
    return value;
  });
  const path = (absolute ? '/' : '') + filled.join('/');
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) throw new FillError(`${where}: resolved path exceeds ${MAX_PATH_BYTES} bytes`);
  return path;
}

/** Fills `cwd`, `subPath` and every mount `subPath`. */
export function fillFileArea(vfs: VfsDeclaration, variables: Readonly<Record<string, string>>): FillResult<FilledVfs> {
  try {
    const mounts: Record<string, MountDeclaration> = {};
    const area: FilledVfs = { mode: vfs.mode, cwd: vfs.cwd === undefined ? '/' : fillPathTemplate(vfs.cwd, variables, 'vfs.cwd'), mounts };
    if (vfs.size_limit !== undefined) area.size_limit = vfs.size_limit;
    if (vfs.volume !== undefined) area.volume = vfs.volume;
    if (vfs.subPath !== undefined) area.subPath = fillPathTemplate(vfs.subPath, variables, 'vfs.subPath');
    if (vfs.access !== undefined) area.access = vfs.access;
    for (const [guestPath, mount] of Object.entries(vfs.mounts ?? {})) {
      const filled: MountDeclaration = { volume: mount.volume };
      if (mount.subPath !== undefined) filled.subPath = fillPathTemplate(mount.subPath, variables, `vfs.mounts.${guestPath}.subPath`);
      if (mount.access !== undefined) filled.access = mount.access;
      mounts[guestPath] = filled;
    }
    return { ok: true, value: area };
  } catch (error) {
    if (error instanceof FillError) return { ok: false, error: `invalid vfs config: ${error.message}` };
    throw error;
  }
}

const ANY_REFERENCE = /\$\{([^}]*)\}/g;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Expands `${vars.NAME}` anywhere in a git value, once, without expanding the results again. */
function expandGitValue(text: string, variables: Readonly<Record<string, string>>, where: string): string {
  const open = text.lastIndexOf('${');
  if (open !== -1 && !text.includes('}', open)) throw new FillError(`${where}: unterminated variable reference`);
  return text.replace(ANY_REFERENCE, (_match, inner: string) => {
    if (!inner.startsWith('vars.') || inner.length === 'vars.'.length) throw new FillError(`${where}: only \${vars.NAME} references are supported`);
    const name = inner.slice('vars.'.length);
    const value = variables[name];
    if (value === undefined) throw new FillError(`${where}: variable '\${vars.${name}}' has no value`);
    return value;
  });
}

function checkGitValue(value: string, where: string, forbidden: RegExp): string {
  const trimmed = value.trim();
  if (trimmed === '' || CONTROL_CHARACTERS.test(trimmed) || forbidden.test(trimmed)) {
    throw new FillError(`${where}: must be nonempty and contain no control characters or identity delimiters`);
  }
  return trimmed;
}

/** Fills and re-validates the `git` identity and username. */
export function fillGit(git: GitDeclaration | null, variables: Readonly<Record<string, string>>): FillResult<GitDeclaration | null> {
  if (!git) return { ok: true, value: null };
  try {
    const name = checkGitValue(expandGitValue(git.identity.name, variables, 'git.identity.name'), 'git.identity.name', /[<>]/);
    const email = checkGitValue(expandGitValue(git.identity.email, variables, 'git.identity.email'), 'git.identity.email', /[<>]/);
    const filled: GitDeclaration = { identity: { name, email } };
    if (git.username !== undefined) filled.username = checkGitValue(expandGitValue(git.username, variables, 'git.username'), 'git.username', /:/);
    return { ok: true, value: filled };
  } catch (error) {
    if (error instanceof FillError) return { ok: false, error: `invalid git config: ${error.message}` };
    throw error;
  }
}
