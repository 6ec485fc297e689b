// The packages capability as the server uses it: the owned store with the CLI's store as
// read-only fallback, serialised installs, removal, listing, and the change listeners that
// evict prepared-package caches after every install or removal (success or failure).
import fs from 'node:fs';
import path from 'node:path';
import type { RegistryPackage } from '../discovery';
import type { CapabilityFile } from './capabilities';
import { PackageError } from './errors';
import { PackageInstaller, type InstallerSettings } from './install/service';
import type { InstallRequest, InstallResult } from './install/install';
import { packageNameProblem } from './names';
import { PackageStore, readArtifactFile, type StoredPackage } from './store';

export interface RemoveResult {
  name: string;
  version: string | null;
  digest: string | null;
  still_available_from?: string;
}

export interface ListedPackage {
  name: string;
  version: string;
  description: string;
  root: string;
  managed: boolean;
  digest: string | null;
}

export class PackageService {
  readonly store: PackageStore;
  private readonly installer: PackageInstaller;
  private readonly listeners: Array<() => void> = [];

  constructor(
    settings: InstallerSettings,
    private readonly onBroken: (name: string, error: Error) => void = () => {},
  ) {
    this.store = new PackageStore(settings.owned, settings.fallback);
    this.installer = new PackageInstaller(settings, () => this.changed());
  }

  /** Called after every install or removal (prepared caches are evicted there). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  install(request: InstallRequest): Promise<InstallResult> {
    return this.installer.install(request);
  }

  list(): ListedPackage[] {
    return this.store.list(this.onBroken).map((p) => ({
      name: p.name,
      version: p.metadata.package_version,
      description: p.metadata.description,
      root: p.root,
      managed: p.managed,
      digest: p.metadata.source?.github.digest ?? null,
    }));
  }

  /** Each loadable Package's capabilities manifest (GET /v1/capabilities). */
  capabilities(): Array<{ name: string; capabilities: CapabilityFile }> {
    return this.store.list(this.onBroken).map((p) => ({ name: p.name, capabilities: p.capabilities }));
  }

  /** A loadable Package, or null when absent or broken (broken ones are logged). */
  loadable(name: string): StoredPackage | null {
    try {
      return this.store.find(name);
    } catch (error) {
      this.onBroken(name, error as Error);
      return null;
    }
  }

  /** What discovery shows of a loadable Package (readme and declarations read now), or null. */
  describe(name: string): RegistryPackage | null {
    const found = this.loadable(name);
    if (!found) return null;
    try {
      return {
        name,
        version: found.metadata.package_version,
        description: found.metadata.description ?? '',
        keywords: found.metadata.keywords ?? [],
        values: found.metadata.exports.values ?? [],
        types: found.metadata.exports.types ?? [],
        readme: readArtifactFile(found, 'docs/readme.md'),
        declarations: readArtifactFile(found, 'declarations.d.ts'),
      };
    } catch (error) {
      this.onBroken(name, error as Error);
      return null;
    }
  }

  remove(name: string): RemoveResult {
    const problem = packageNameProblem(name);
    if (problem) throw new PackageError('invalid_name', `'${name}' is not a package name: ${problem}`);
    const ownedDir = path.join(this.store.owned, ...name.split('/'));
    try {
      if (!fs.existsSync(ownedDir)) {
        const inFallback = this.store.fallback !== null && fs.existsSync(path.join(this.store.fallback, ...name.split('/')));
        if (inFallback) throw new PackageError('not_managed', `package '${name}' is only in the read-only fallback store ${this.store.fallback}; remove it there with the CLI`);
        throw new PackageError('not_found', `package '${name}' is not installed`);
      }
      let version: string | null = null;
      let digest: string | null = null;
      try {
        const owned = this.store.findOwned(name);
        version = owned?.metadata.package_version ?? null;
        digest = owned?.metadata.source?.github.digest ?? null;
      } catch {
        // A broken copy is removed all the same.
      }
      try {
        this.store.remove(name);
      } catch (error) {
        throw new PackageError('internal_error', `could not remove ${name}: ${(error as Error).message}`);
      }
      let stillAvailable: string | undefined;
      try {
        const fallbackCopy = this.store.find(name);
        if (fallbackCopy && !fallbackCopy.managed) stillAvailable = fallbackCopy.root;
      } catch {
        stillAvailable = this.store.fallback ?? undefined;
      }
      return { name, version, digest, ...(stillAvailable ? { still_available_from: stillAvailable } : {}) };
    } finally {
      this.changed();
    }
  }
}
