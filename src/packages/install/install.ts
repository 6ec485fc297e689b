// Installing Packages from a repository on the code host: resolve,
// download, digest, extract, read svc.toml, fetch repository dependencies, build, apply the
// scope rule, decide per Package (install / up_to_date / already_installed / upgrade), write.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GithubSource } from '../artifact';
import { deniedWarningsMessage, type BuiltDependency } from '../build';
import { PackageError } from '../errors';
import type { Manifest } from '../manifest';
import { CURATED_SCOPE, packageNameProblem, scopeOf } from '../names';
import { buildOrder, buildProject, readManifest, storedDependency, type BuiltPackage } from '../project';
import type { PackageStore } from '../store';
import { CodeHost } from './codehost';
import { parseRepositorySpec } from './spec';
import { ArchiveError, extractTarGz } from './tar';

/** A repository on the code host. */
export interface RepositoryName {
  owner: string;
  repo: string;
}

/**
 * The scope rule: a Package's scope is its repository's owner; the reserved
 * scope `svc` is published only by the official repository (setting `official_repository`),
 * which is otherwise bound by the same rule. Returns why `name` may not come from `source`, or null.
 */
export function scopeProblem(name: string, source: RepositoryName, official: RepositoryName | null): string | null {
  const scope = scopeOf(name).toLowerCase();
  const isOfficial = official !== null && source.owner.toLowerCase() === official.owner.toLowerCase() && source.repo.toLowerCase() === official.repo.toLowerCase();
  if (scope === CURATED_SCOPE) {
    if (isOfficial) return null;
    const which = official === null ? 'no official repository is configured (setting official_repository)' : `the official repository is ${official.owner}/${official.repo}`;
    return `${name}: the scope @${CURATED_SCOPE} is reserved for the official svc repository; ${source.owner}/${source.repo} may not publish it (${which})`;
  }
  if (scope === source.owner.toLowerCase()) return null;
  return `${name}: the scope @${scopeOf(name)} differs from the repository owner '${source.owner}'; rename the Package to @${source.owner.toLowerCase()}/… or publish it from a repository of '${scopeOf(name)}'`;
}

export interface InstallRequest {
  url: string;
  ref?: string | null;
  package?: string | null;
  upgrade?: boolean;
  denyWarnings?: boolean;
}

export interface InstallSettings {
  apiUrl: string;
  tokenFile: string | null;
  /** A token value (CLI installs); never logged. */
  token?: string | null;
  /** SVC_DENY_WARNINGS / deny_warnings: forces the deny policy whatever the request says. */
  denyWarnings: boolean;
  svcVersion: string;
  /** Owned store (written) with its read-only fallback. */
  store: PackageStore;
  /** The repository that may publish `@svc/…` (setting `official_repository`), or null. */
  officialRepository: RepositoryName | null;
}

export interface InstalledEntry {
  name: string;
  version: string;
  digest: string;
}

export interface InstallResult {
  sha: string;
  installed: InstalledEntry[];
  up_to_date: InstalledEntry[];
  warnings: string[];
}

interface FetchedRepository {
  owner: string;
  repo: string;
  sha: string;
  digest: string;
  root: string;
  manifest: Manifest;
}

/** Runs one install. The caller serialises installs. */
export async function installFromRepository(request: InstallRequest, settings: InstallSettings): Promise<InstallResult> {
  const spec = parseRepositorySpec(request.url);
  const select = request.package ?? undefined;
  if (select !== undefined) {
    const problem = packageNameProblem(select);
    if (problem) throw new PackageError('invalid_url', `package '${select}': ${problem}`);
  }
  const host = new CodeHost({ apiUrl: settings.apiUrl, tokenFile: settings.tokenFile, token: settings.token, userAgent: `svc/${settings.svcVersion}` });
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-install-'));
  const warnings: string[] = [];
  try {
    const ref = request.ref ?? spec.ref;
    const sha = await host.resolve(spec.owner, spec.repo, ref);
    const main = await fetchRepository(host, spec.owner, spec.repo, sha, workspace, false);

    // Repository dependencies, recursively, each at its pinned commit; one commit per Package.
    const pinned = new Map<string, { sha: string; repository: string }>();
    const built = new Map<string, { dependency: BuiltDependency; package: BuiltPackage; source: GithubSource }>();
    const buildRepository = async (repository: FetchedRepository, selectName: string | undefined, chain: string[]): Promise<BuiltPackage[]> => {
      const key = `${repository.owner}/${repository.repo}@${repository.sha}`.toLowerCase();
      if (chain.includes(key)) throw new PackageError('invalid_dependency', `dependency cycle: ${[...chain, key].join(' -> ')}`);
      const needed = new Set(buildOrder(repository.manifest, selectName).flatMap((entry) => entry.dependencies));
      for (const [name, dependencySpec] of repository.manifest.dependencies) {
        if (!needed.has(name) || repository.manifest.packages.some((p) => p.name === name) || dependencySpec.kind !== 'github') continue;
        const target = parseDependencySpec(name, dependencySpec.github);
        const previous = pinned.get(name);
        if (previous && previous.sha !== dependencySpec.rev) {
          throw new PackageError('dependency_conflict', `${name} is required at two commits: ${previous.sha} (${previous.repository}) and ${dependencySpec.rev} (${target.owner}/${target.repo})`);
        }
        if (previous) continue;
        pinned.set(name, { sha: dependencySpec.rev, repository: `${target.owner}/${target.repo}` });
        const fetched = await fetchRepository(host, target.owner, target.repo, dependencySpec.rev, workspace, true);
        if (!fetched.manifest.packages.some((p) => p.name === name)) {
          throw new PackageError('invalid_dependency', `${target.owner}/${target.repo}@${dependencySpec.rev} has no package ${name} in its svc.toml`);
        }
        await buildRepository(fetched, name, [...chain, key]);
      }
      const source: GithubSource = { owner: repository.owner, repo: repository.repo, sha: repository.sha, digest: repository.digest };
      const result = buildProject({
        root: repository.root,
        manifest: repository.manifest,
        select: selectName,
        svcVersion: settings.svcVersion,
        source,
        external: (name, dependencySpec) => (dependencySpec.kind === 'github' ? (built.get(name)?.dependency ?? null) : storedDependency(settings.store, name)),
      });
      for (const item of result.packages) {
        if (!built.has(item.entry.name)) built.set(item.entry.name, { dependency: { version: item.entry.version, declarations: item.artifact.declarations, capabilities: item.artifact.capabilities }, package: item, source });
      }
      warnings.push(...result.warnings);
      return result.packages;
    };
    await buildRepository(main, select, []);

    // Scope rule, for every built Package (dependencies included), with no exception.
    for (const { package: item, source } of built.values()) {
      const problem = scopeProblem(item.entry.name, source, settings.officialRepository);
      if (problem !== null) throw new PackageError('scope_mismatch', problem, warnings);
    }

    if ((settings.denyWarnings || request.denyWarnings) && warnings.length > 0) {
      throw new PackageError('warnings_denied', deniedWarningsMessage(warnings), warnings);
    }

    // Per Package: absent → install; same commit → up_to_date; another source → already_installed unless upgrade.
    const installed: InstalledEntry[] = [];
    const upToDate: InstalledEntry[] = [];
    const toWrite: BuiltPackage[] = [];
    for (const { package: item, source } of built.values()) {
      const name = item.entry.name;
      let existing;
      try {
        existing = settings.store.findOwned(name);
      } catch {
        existing = null; // a broken owned copy is replaced
      }
      const entry = { name, version: item.entry.version, digest: source.digest };
      if (!existing) {
        toWrite.push(item);
        installed.push(entry);
        continue;
      }
      const from = existing.metadata.source?.github;
      if (from && from.sha === source.sha && from.owner.toLowerCase() === source.owner.toLowerCase() && from.repo.toLowerCase() === source.repo.toLowerCase()) {
        upToDate.push({ name, version: existing.metadata.package_version, digest: from.digest });
        continue;
      }
      if (!request.upgrade) {
        const was = from ? `${from.owner}/${from.repo}@${from.sha}` : 'a local build';
        throw new PackageError('already_installed', `${name} already installed at a different commit (${was}); retry with upgrade to replace it with ${source.sha}`, warnings);
      }
      toWrite.push(item);
      installed.push(entry);
    }
    for (const item of toWrite) settings.store.write(item.artifact);
    return { sha, installed, up_to_date: upToDate, warnings };
  } catch (error) {
    if (error instanceof PackageError && error.warnings.length === 0 && warnings.length > 0) throw new PackageError(error.code, error.message, warnings);
    throw error;
  } finally {
    await host.close();
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

function parseDependencySpec(name: string, github: string): { owner: string; repo: string } {
  try {
    const spec = parseRepositorySpec(github);
    if (spec.ref !== null) throw new PackageError('invalid_dependency', `dependency ${name}: put the commit in \`rev\`, not in \`github\``);
    return spec;
  } catch (error) {
    if (error instanceof PackageError && error.code === 'invalid_url') throw new PackageError('invalid_dependency', `dependency ${name}: ${error.message}`);
    throw error;
  }
}

async function fetchRepository(host: CodeHost, owner: string, repo: string, sha: string, workspace: string, dependency: boolean): Promise<FetchedRepository> {
  const failure = dependency ? 'dependency_fetch_failed' : 'download_failed';
  let download;
  try {
    download = await host.download(owner, repo, sha, failure);
  } catch (error) {
    // A dependency the code host refuses is a dependency failure, not the requested repository's.
    if (dependency && error instanceof PackageError && error.code === 'github_access') throw new PackageError('dependency_fetch_failed', error.message);
    throw error;
  }
  const root = path.join(workspace, `${owner}-${repo}-${sha}`.toLowerCase());
  try {
    await extractTarGz(download.archive, root);
  } catch (error) {
    if (error instanceof ArchiveError) throw new PackageError(failure, `${owner}/${repo}@${sha}: ${error.message}`);
    throw error;
  }
  // The project is at the root, or (for a repository that is mainly something else, like
  // svc's own, whose curated Packages live in packages/) in `packages/`.
  const project = !fs.existsSync(path.join(root, 'svc.toml')) && fs.existsSync(path.join(root, 'packages', 'svc.toml')) ? path.join(root, 'packages') : root;
  let manifest: Manifest;
  try {
    manifest = readManifest(project);
  } catch (error) {
    if (error instanceof PackageError && error.code === 'no_manifest') {
      throw new PackageError(dependency ? 'invalid_dependency' : 'no_manifest', `${owner}/${repo}@${sha} has no svc.toml at its root (nor in packages/)`);
    }
    if (dependency && error instanceof PackageError) throw new PackageError('invalid_dependency', `${owner}/${repo}@${sha}: ${error.message}`);
    throw error;
  }
  return { owner, repo, sha, digest: download.digest, root: project, manifest };
}
