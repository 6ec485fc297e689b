// The Package machinery the local Package commands (svc build, install, docs) use, in one
// module that those commands import on demand: the store, the builder and the settings
// parser pull in esbuild, tar, git and zod, which `svc --help` or `svc server status`
// should not load.
import { PackageError } from '../packages';
import { CliError } from './errors';

export { installFromRepository, PackageStore } from '../packages';
export { checkLocal, initProject, installBuilt, localStoreRoot, newPackage, publishLocal } from '../packages/local';
export { ConfigError, parseRepositoryName, parseRunSettings } from '../config';
export { TYPECHECK_MODES } from '../blueprints';

/** A PackageError as the CLI reports it (build diagnostics are in the message). */
export function packageFailure(error: unknown): never {
  if (error instanceof PackageError) throw new CliError(`${error.code}: ${error.message}`);
  throw error;
}
