// The Package store: `<root>/@scope/leaf/` per Package, one version
// per name. The server owns one root and reads the CLI's root as a read-only fallback;
// an owned copy that exists but is broken is an error, never a silent fall-through.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ARTIFACT_FILES, SCHEMA_VERSION, type Artifact, type ArtifactFile, type Metadata } from './artifact';
import { parseCapabilities, renderCapabilities, type CapabilityFile } from './capabilities';
import { PackageError } from './errors';
import { packageNameProblem } from './names';

/** A Package read from a store (lib.js is read on demand by the runtime). */
export interface StoredPackage {
  name: string;
  root: string;
  directory: string;
  managed: boolean;
  metadata: Metadata;
  capabilities: CapabilityFile;
}

const directoryOf = (root: string, name: string) => path.join(root, ...name.split('/'));

function unloadableError(name: string, directory: string, why: string): PackageError {
  return new PackageError('unloadable', `package '${name}' at ${directory} cannot be loaded: ${why}; reinstall it`);
}

/** Reads and checks an artifact directory; throws PackageError('unloadable') naming the fault. */
export function readArtifactDirectory(directory: string, name: string): { metadata: Metadata; capabilities: CapabilityFile } {
  const unloadable = (why: string): never => {
    throw unloadableError(name, directory, why);
  };
  for (const file of ARTIFACT_FILES) if (!fs.existsSync(path.join(directory, file))) unloadable(`${file} is missing`);
  let metadata: Metadata;
  try {
    metadata = JSON.parse(fs.readFileSync(path.join(directory, 'metadata.json'), 'utf8')) as Metadata;
  } catch (error) {
    return unloadable(`metadata.json is not valid JSON (${(error as Error).message})`);
  }
  if (metadata.schema_version !== SCHEMA_VERSION) {
    unloadable(`it was built with artifact schema ${String(metadata.schema_version)} and this server reads schema ${SCHEMA_VERSION}; reinstall it with this server version`);
  }
  if (metadata.package_name !== name) unloadable(`metadata.json names '${String(metadata.package_name)}'`);
  if (typeof metadata.package_version !== 'string' || !Array.isArray(metadata.dependencies) || !metadata.exports) unloadable('metadata.json is incomplete');
  let capabilities: CapabilityFile;
  try {
    capabilities = parseCapabilities(fs.readFileSync(path.join(directory, 'capabilities.yaml'), 'utf8'));
  } catch (error) {
    return unloadable((error as Error).message);
  }
  return { metadata, capabilities };
}

/** One file of a stored Package's artifact, read now; PackageError('unloadable') when it cannot be. */
export function readArtifactFile(found: StoredPackage, file: ArtifactFile): string {
  try {
    return fs.readFileSync(path.join(found.directory, file), 'utf8');
  } catch (error) {
    throw unloadableError(found.name, found.directory, (error as Error).message);
  }
}

export class PackageStore {
  /**
   * @param owned the root this process writes (created on first write)
   * @param fallback a root read after the owned one, never written (null: none)
   */
  constructor(
    readonly owned: string,
    readonly fallback: string | null = null,
  ) {}

  get roots(): string[] {
    return this.fallback ? [this.owned, this.fallback] : [this.owned];
  }

  /** The Package from the owned store, else the fallback; null when in neither. Throws PackageError('unloadable'). */
  find(name: string): StoredPackage | null {
    if (packageNameProblem(name) !== null) return null;
    for (const root of this.roots) {
      const directory = directoryOf(root, name);
      if (!fs.existsSync(directory)) continue;
      const { metadata, capabilities } = readArtifactDirectory(directory, name);
      return { name, root, directory, managed: root === this.owned, metadata, capabilities };
    }
    return null;
  }

  /**
   * Identity of the files a find(name) would read now: the root it comes from and the
   * inode, size and change times of metadata.json and lib.js (a store write renames a new
   * directory into place, so every publish or install changes it). Stats only, no reads.
   */
  stamp(name: string): string {
    if (packageNameProblem(name) !== null) return '';
    for (const root of this.roots) {
      const directory = directoryOf(root, name);
      const metadata = fs.statSync(path.join(directory, 'metadata.json'), { bigint: true, throwIfNoEntry: false });
      if (!metadata && !fs.existsSync(directory)) continue;
      const lib = fs.statSync(path.join(directory, 'lib.js'), { bigint: true, throwIfNoEntry: false });
      const of = (stat: fs.BigIntStats | undefined) => (stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : '-');
      return `${directory}|${of(metadata)}|${of(lib)}`;
    }
    return '';
  }

  /** Only the owned copy (for install decisions and removal). */
  findOwned(name: string): StoredPackage | null {
    if (packageNameProblem(name) !== null) return null;
    const directory = directoryOf(this.owned, name);
    if (!fs.existsSync(directory)) return null;
    const { metadata, capabilities } = readArtifactDirectory(directory, name);
    return { name, root: this.owned, directory, managed: true, metadata, capabilities };
  }

  /** Every loadable Package (owned first, shadowing the fallback); broken ones are reported, not listed. */
  list(onBroken: (name: string, error: Error) => void = () => {}): StoredPackage[] {
    const seen = new Map<string, StoredPackage>();
    for (const root of this.roots) {
      for (const name of namesIn(root)) {
        if (seen.has(name)) continue;
        const directory = directoryOf(root, name);
        try {
          const { metadata, capabilities } = readArtifactDirectory(directory, name);
          seen.set(name, { name, root, directory, managed: root === this.owned, metadata, capabilities });
        } catch (error) {
          onBroken(name, error as Error);
          // A broken owned copy still hides the fallback one.
          seen.set(name, null as unknown as StoredPackage);
        }
      }
    }
    return [...seen.values()].filter(Boolean).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Writes the artifact into the owned store atomically, replacing an existing copy. */
  write(artifact: Artifact): string {
    const name = artifact.metadata.package_name;
    const target = directoryOf(this.owned, name);
    const staging = path.join(this.owned, `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      fs.mkdirSync(path.join(staging, 'docs'), { recursive: true });
      fs.writeFileSync(path.join(staging, 'metadata.json'), `${JSON.stringify(artifact.metadata, null, 2)}\n`);
      fs.writeFileSync(path.join(staging, 'lib.js'), artifact.lib);
      fs.writeFileSync(path.join(staging, 'lib.js.map'), artifact.map);
      fs.writeFileSync(path.join(staging, 'declarations.d.ts'), artifact.declarations);
      fs.writeFileSync(path.join(staging, 'capabilities.yaml'), renderCapabilities(artifact.capabilities));
      fs.writeFileSync(path.join(staging, 'docs', 'readme.md'), artifact.readme);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (fs.existsSync(target)) {
        // An upgrade moves the old copy aside first and deletes it after.
        const aside = path.join(this.owned, `.old-${randomBytes(8).toString('hex')}`);
        fs.renameSync(target, aside);
        fs.renameSync(staging, target);
        fs.rmSync(aside, { recursive: true, force: true });
      } else fs.renameSync(staging, target);
      return target;
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw new PackageError('store_error', `could not write ${name} into the package store: ${(error as Error).message}`);
    }
  }

  /** Removes the owned copy (the caller has checked it exists). */
  remove(name: string): void {
    const target = directoryOf(this.owned, name);
    const aside = path.join(this.owned, `.old-${randomBytes(8).toString('hex')}`);
    fs.renameSync(target, aside);
    fs.rmSync(aside, { recursive: true, force: true });
    const scopeDir = path.dirname(target);
    if (fs.readdirSync(scopeDir).length === 0) fs.rmdirSync(scopeDir);
  }
}

/** `@scope/leaf` names present in a root (directories only, valid names only). */
function namesIn(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  const names: string[] = [];
  for (const scope of fs.readdirSync(root, { withFileTypes: true })) {
    if (!scope.isDirectory() || !scope.name.startsWith('@')) continue;
    for (const leaf of fs.readdirSync(path.join(root, scope.name), { withFileTypes: true })) {
      const name = `${scope.name}/${leaf.name}`;
      if (leaf.isDirectory() && packageNameProblem(name) === null) names.push(name);
    }
  }
  return names.sort();
}
