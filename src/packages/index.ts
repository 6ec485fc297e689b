// Public API of the packages capability: manifest, build, store and install.
export { PackageError, packageErrorStatus, type PackageErrorCode } from './errors';
export { packageNameProblem, scopeOf } from './names';
export { parseManifest, MANIFEST_FILE, type Manifest, type PackageEntry, type DependencySpec } from './manifest';
export { PackageStore, readArtifactDirectory, type StoredPackage } from './store';
export { parseCapabilities, renderCapabilities, type CapabilityFile, type ProvidedCapability, type RequiredCapability } from './capabilities';
export { SCHEMA_VERSION, type Artifact, type Metadata, type GithubSource } from './artifact';
export { PackageService, type ListedPackage, type RemoveResult } from './service';
export type { InstallRequest, InstallResult, InstalledEntry } from './install/install';
export type { RepositoryName } from './install/install';
export { packageRequirements } from './requirements';
export { PackageRuntime, closureDeclarations, preparePackages, resolveClosure, storeLookup, type LoadablePackage, type PackageLookup, type PackageStamp, type Preparation, type PreparedPackages } from './runtime';
export { installFromRepository } from './install/install';
export { ambientModule } from './build';
export { embedPackageCode, prepareTapePackages, stampedDigests, MAX_TAPE_PACKAGE_BYTES, type DigestMemo, type RecordedPackage, type TapePackage } from './tape-code';
