// Binding a Blueprint's declared variables and harness secrets to a session. Pure checks:
// the first problem found is reported with the offending name, the checks always in the same order,
// and nothing is bound on failure.
import type { BindingDeclarations, FilledVfs, GitDeclaration, VfsDeclaration } from '../blueprints';
import { fillFileArea, fillGit } from './fill';

export type BindingResult<T> = { ok: true; value: T } | { ok: false; error: string };

const byteOrder = (a: string, b: string) => (Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** Checks supplied variables; returns the bound values (defaults applied, empty = absent). */
export function bindVariables(declarations: BindingDeclarations, supplied: Record<string, string> = {}): BindingResult<Record<string, string>> {
  const undeclared = Object.keys(supplied).filter((name) => !declarations.variables.has(name)).sort(byteOrder);
  if (undeclared.length > 0) return { ok: false, error: `invalid variables: variable '${undeclared[0]}' is not declared in the blueprint` };
  const bound: Record<string, string> = {};
  for (const name of [...declarations.variables.keys()].sort(byteOrder)) {
    const declaration = declarations.variables.get(name)!;
    const value = supplied[name];
    if (value !== undefined && value !== '') bound[name] = value;
    else if (declaration.required) return { ok: false, error: `invalid variables: required variable '${name}' was not supplied` };
    else if (declaration.default !== undefined) bound[name] = declaration.default;
  }
  return { ok: true, value: bound };
}

/** Checks supplied harness secrets; returns the values to hold in memory. */
export function bindHarnessSecrets(declarations: BindingDeclarations, supplied: Record<string, string> = {}): BindingResult<Record<string, string>> {
  for (const name of Object.keys(supplied).sort(byteOrder)) {
    const declaration = declarations.secrets.get(name);
    if (!declaration) return { ok: false, error: `invalid secrets: secret '${name}' is not declared` };
    if (declaration.source !== 'harness') return { ok: false, error: `invalid secrets: secret '${name}' is not declared with a harness source` };
  }
  const bound: Record<string, string> = {};
  for (const [name, declaration] of [...declarations.secrets.entries()].sort(([a], [b]) => byteOrder(a, b))) {
    if (declaration.source !== 'harness') continue;
    const value = supplied[name];
    if (value !== undefined && value !== '') bound[name] = value;
    else if (declaration.required) return { ok: false, error: `invalid secrets: required harness secret '${name}' is missing or empty` };
  }
  return { ok: true, value: bound };
}

/** Required harness secrets that are not held (after a restart, until rebind). */
export function missingRequiredSecrets(declarations: BindingDeclarations, held: Record<string, string>): string[] {
  const missing: string[] = [];
  for (const [name, declaration] of declarations.secrets) {
    if (declaration.source === 'harness' && declaration.required && !held[name]) missing.push(name);
  }
  return missing.sort(byteOrder);
}

/** What a Blueprint offers to binding: declarations plus the templates variables fill. */
export interface BindableBlueprint {
  declarations: BindingDeclarations;
  vfs: VfsDeclaration;
  git: GitDeclaration | null;
}

export interface SessionBinding {
  variables: Record<string, string>;
  secrets: Record<string, string>;
  fileArea: FilledVfs;
  git: GitDeclaration | null;
}

/**
 * Steps 2–4 of the binding order: variables, then the `vfs`
 * and `git` templates they fill, then harness secrets. The first failure wins; its
 * message starts with `invalid variables:`, `invalid vfs config:`, `invalid git config:`
 * or `invalid secrets:`.
 */
export function bindBlueprint(blueprint: BindableBlueprint, variables?: Record<string, string>, secrets?: Record<string, string>): BindingResult<SessionBinding> {
  const boundVariables = bindVariables(blueprint.declarations, variables);
  if (!boundVariables.ok) return boundVariables;
  const fileArea = fillFileArea(blueprint.vfs, boundVariables.value);
  if (!fileArea.ok) return fileArea;
  const git = fillGit(blueprint.git, boundVariables.value);
  if (!git.ok) return git;
  const boundSecrets = bindHarnessSecrets(blueprint.declarations, secrets);
  if (!boundSecrets.ok) return boundSecrets;
  return { ok: true, value: { variables: boundVariables.value, secrets: boundSecrets.value, fileArea: fileArea.value, git: git.value } };
}
