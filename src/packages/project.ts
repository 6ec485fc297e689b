// A Package project (svc.toml and its Packages): building every Package, or one with its
// sibling closure, in dependency order. Shared by the CLI verbs and the server's install.
import fs from 'node:fs';
import path from 'node:path';
import type { Artifact, GithubSource } from './artifact';
import { buildPackage, renderDiagnostic, type BuildDiagnostic, type BuiltDependency } from './build';
import { renderCapabilities } from './capabilities';
import { PackageError } from './errors';
import { MANIFEST_FILE, parseManifest, type DependencySpec, type Manifest, type PackageEntry } from './manifest';
import { readArtifactFile, type PackageStore } from './store';

export interface BuiltPackage {
  entry: PackageEntry;
  artifact: Artifact;
  warnings: BuildDiagnostic[];
}

export interface ProjectBuild {
  root: string;
  manifest: Manifest;
  /** In dependency order. */
  packages: BuiltPackage[];
  /** Rendered warnings of every built Package. */
  warnings: string[];
}

/** The directory holding the nearest svc.toml at or above `start`, or null. */
export function findProjectRoot(start: string): string | null {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, MANIFEST_FILE))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

export function readManifest(root: string): Manifest {
  const file = path.join(root, MANIFEST_FILE);
  if (!fs.existsSync(file)) throw new PackageError('no_manifest', `no ${MANIFEST_FILE} at the root of ${root}`);
  return parseManifest(fs.readFileSync(file, 'utf8'));
}

/** The selected Packages (default all) with their sibling closure, dependencies first. */
export function buildOrder(manifest: Manifest, select?: string): PackageEntry[] {
  const byName = new Map(manifest.packages.map((p) => [p.name, p]));
  if (select !== undefined && !byName.has(select)) {
    throw new PackageError('invalid_manifest', `${MANIFEST_FILE} has no package ${select}; it declares ${[...byName.keys()].join(', ')}`);
  }
  const order: PackageEntry[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (entry: PackageEntry, chain: string[]) => {
    if (state.get(entry.name) === 'done') return;
    if (state.get(entry.name) === 'visiting') throw new PackageError('invalid_manifest', `${MANIFEST_FILE}: dependency cycle ${[...chain, entry.name].join(' -> ')}`);
    state.set(entry.name, 'visiting');
    for (const dependency of entry.dependencies) {
      const sibling = byName.get(dependency);
      if (sibling) visit(sibling, [...chain, entry.name]);
    }
    state.set(entry.name, 'done');
    order.push(entry);
  };
  for (const entry of select ? [byName.get(select)!] : manifest.packages) visit(entry, []);
  return order;
}

/** A stored Package as a build dependency. */
export function storedDependency(store: PackageStore, name: string): (BuiltDependency & { name: string }) | null {
  const found = store.find(name);
  if (!found) return null;
  return { name, version: found.metadata.package_version, declarations: readArtifactFile(found, 'declarations.d.ts'), capabilities: found.capabilities };
}

export interface BuildProjectOptions {
  root: string;
  manifest: Manifest;
  select?: string;
  svcVersion: string;
  source?: GithubSource;
  /** A non-sibling dependency, already available (installed, or fetched and built); null when missing. */
  external: (name: string, spec: DependencySpec) => BuiltDependency | null;
}

export function buildProject(options: BuildProjectOptions): ProjectBuild {
  const { root, manifest } = options;
  const built = new Map<string, BuiltDependency>();
  const packages: BuiltPackage[] = [];
  for (const entry of buildOrder(manifest, options.select)) {
    const dependencies = new Map<string, BuiltDependency>();
    for (const name of entry.dependencies) {
      // A sibling wins over a [dependencies] entry of the same name.
      const sibling = built.get(name);
      if (sibling) {
        dependencies.set(name, sibling);
        continue;
      }
      const spec = manifest.dependencies.get(name)!;
      const external = options.external(name, spec);
      if (!external) {
        const how = spec.kind === 'store' ? `install ${name} ${spec.version} first` : `it could not be fetched from ${spec.github}`;
        throw new PackageError('invalid_dependency', `${entry.name} depends on ${name}, which is not available: ${how}`);
      }
      if (spec.kind === 'store' && external.version !== spec.version) {
        throw new PackageError('invalid_dependency', `${entry.name} needs ${name} ${spec.version} exactly, but ${external.version} is installed`);
      }
      dependencies.set(name, external);
    }
    const directory = path.join(root, entry.path);
    const outcome = buildPackage({ directory, entry, dependencies, svcVersion: options.svcVersion, source: options.source });
    built.set(entry.name, { version: entry.version, declarations: outcome.artifact.declarations, capabilities: outcome.artifact.capabilities });
    packages.push({ entry, artifact: outcome.artifact, warnings: outcome.warnings });
  }
  return { root, manifest, packages, warnings: packages.flatMap((p) => p.warnings.map(renderDiagnostic)) };
}

/** Rewrites each built Package's capabilities.yaml in its project directory. */
export function writeDerivedFiles(build: ProjectBuild): void {
  for (const { entry, artifact } of build.packages) {
    fs.writeFileSync(path.join(build.root, entry.path, 'capabilities.yaml'), renderCapabilities(artifact.capabilities));
  }
}
