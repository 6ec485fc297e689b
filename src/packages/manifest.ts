// `svc.toml`: one or more `[[package]]` tables and optional
// `[dependencies]`. Unknown keys are ignored; every error names the key and the fix.
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { PackageError } from './errors';
import { packageNameProblem, RESERVED_SCOPE, scopeOf } from './names';

export const MANIFEST_FILE = 'svc.toml';

export interface PackageEntry {
  name: string;
  version: string;
  description: string;
  keywords: string[];
  /** Directory of the Package relative to the project root ('' = the root). */
  path: string;
  /** Names of siblings or keys of [dependencies]. */
  dependencies: string[];
}

export type DependencySpec = { kind: 'store'; version: string } | { kind: 'github'; github: string; rev: string };

export interface Manifest {
  packages: PackageEntry[];
  dependencies: Map<string, DependencySpec>;
}

const bad = (message: string): never => {
  throw new PackageError('invalid_manifest', `${MANIFEST_FILE}: ${message}`);
};

function text(table: Record<string, unknown>, key: string, where: string, required: boolean): string | undefined {
  const value = table[key];
  if (value === undefined) {
    if (required) bad(`${where}: \`${key}\` is required`);
    return undefined;
  }
  if (typeof value !== 'string') bad(`${where}: \`${key}\` must be a string`);
  return value as string;
}

function stringList(table: Record<string, unknown>, key: string, where: string): string[] {
  const value = table[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) bad(`${where}: \`${key}\` must be a list of strings`);
  return value as string[];
}

/** `path` is relative and stays inside the project. */
function packagePath(raw: string | undefined, where: string): string {
  if (raw === undefined) return '';
  if (raw === '' || path.isAbsolute(raw) || raw.includes('\\')) bad(`${where}: \`path\` must be a relative path inside the project, got \`${raw}\``);
  const normal = path.posix.normalize(raw);
  if (normal === '..' || normal.startsWith('../')) bad(`${where}: \`path\` may not leave the project, got \`${raw}\``);
  return normal === '.' ? '' : normal.replace(/\/$/, '');
}

export function parseManifest(source: string): Manifest {
  let document: Record<string, unknown>;
  try {
    document = parseToml(source) as Record<string, unknown>;
  } catch (error) {
    return bad(`not valid TOML: ${(error as Error).message.split('\n')[0]}`);
  }
  const rawPackages = document.package;
  if (!Array.isArray(rawPackages) || rawPackages.length === 0) bad('add at least one `[[package]]` table with `name`, `version` and `description`');
  const list = rawPackages as unknown[];
  const packages: PackageEntry[] = [];
  for (let index = 0; index < list.length; index++) {
    const table = list[index];
    if (table === null || typeof table !== 'object' || Array.isArray(table)) bad(`package ${index + 1}: \`[[package]]\` must be a table`);
    const entry = table as Record<string, unknown>;
    const name = text(entry, 'name', `package ${index + 1}`, true)!;
    const where = `package \`${name}\``;
    const nameProblem = packageNameProblem(name);
    if (nameProblem) bad(`${where}: \`name\`: ${nameProblem}`);
    if (scopeOf(name).toLowerCase() === RESERVED_SCOPE) bad(`${where}: \`name\`: the scope \`${RESERVED_SCOPE}\` is reserved for MCP servers; choose another scope`);
    if (packages.some((p) => p.name === name)) bad(`${where}: \`name\` appears twice; each [[package]] needs its own name`);
    const version = text(entry, 'version', where, true)!;
    if (version.trim() === '') bad(`${where}: \`version\` may not be blank`);
    const description = text(entry, 'description', where, true)!;
    if (description.trim() === '') bad(`${where}: \`description\` may not be blank; say in one line what the Package does`);
    const rawPath = text(entry, 'path', where, false);
    if (rawPath === undefined && list.length > 1) bad(`${where}: \`path\` is required when there is more than one [[package]]`);
    packages.push({ name, version, description, keywords: stringList(entry, 'keywords', where), path: packagePath(rawPath, where), dependencies: stringList(entry, 'dependencies', where) });
  }
  const dependencies = parseDependencies(document.dependencies);
  for (const entry of packages) {
    for (const dependency of entry.dependencies) {
      if (dependency === entry.name) bad(`package \`${entry.name}\`: \`dependencies\` lists the package itself`);
      if (!packages.some((p) => p.name === dependency) && !dependencies.has(dependency)) {
        bad(`package \`${entry.name}\`: dependency \`${dependency}\` is neither a [[package]] of this file nor a key of [dependencies]; add it to [dependencies]`);
      }
    }
  }
  return { packages, dependencies };
}

function parseDependencies(raw: unknown): Map<string, DependencySpec> {
  const out = new Map<string, DependencySpec>();
  if (raw === undefined) return out;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) bad('`[dependencies]` must be a table of `"@scope/name" = "<version>"` or `{ github = "...", rev = "<sha>" }`');
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const where = `dependencies.\`${name}\``;
    const nameProblem = packageNameProblem(name);
    if (nameProblem) bad(`${where}: ${nameProblem}`);
    if (typeof value === 'string') {
      if (value.trim() === '') bad(`${where}: the version may not be blank`);
      out.set(name, { kind: 'store', version: value });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) bad(`${where}: expected a version string or \`{ github = "github.com/owner/repo", rev = "<40-hex commit>" }\``);
    const table = value as Record<string, unknown>;
    const github = text(table, 'github', where, true)!;
    const rev = text(table, 'rev', where, true)!;
    if (!/^[0-9a-f]{40}$/i.test(rev)) bad(`${where}: \`rev\` must be the full 40-character commit id (branches and tags are not accepted), got \`${rev}\``);
    out.set(name, { kind: 'github', github, rev: rev.toLowerCase() });
  }
  return out;
}
