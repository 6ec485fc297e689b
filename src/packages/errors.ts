// Typed errors of the packages capability. `code` is the install/remove error of
// of the install and remove endpoints (or a build-time class); the HTTP layer maps codes to statuses.
export type PackageErrorCode =
  | 'invalid_url'
  | 'github_access'
  | 'invalid_dependency'
  | 'invalid_manifest'
  | 'no_manifest'
  | 'compile_failed'
  | 'build_failed'
  | 'scope_mismatch'
  | 'warnings_denied'
  | 'dependency_conflict'
  | 'already_installed'
  | 'resolve_failed'
  | 'download_failed'
  | 'dependency_fetch_failed'
  | 'github_rate_limited'
  | 'github_token_unavailable'
  | 'store_error'
  | 'internal_error'
  | 'invalid_name'
  | 'not_found'
  | 'not_managed'
  | 'unloadable';

export class PackageError extends Error {
  constructor(
    readonly code: PackageErrorCode,
    message: string,
    readonly warnings: string[] = [],
  ) {
    super(message);
    this.name = 'PackageError';
  }
}

/** HTTP status of each code. */
export const packageErrorStatus: Record<PackageErrorCode, 400 | 404 | 409 | 500 | 502 | 503> = {
  invalid_url: 400,
  github_access: 400,
  invalid_dependency: 400,
  invalid_manifest: 400,
  no_manifest: 400,
  compile_failed: 400,
  build_failed: 400,
  scope_mismatch: 400,
  warnings_denied: 400,
  invalid_name: 400,
  not_found: 404,
  dependency_conflict: 409,
  already_installed: 409,
  not_managed: 409,
  resolve_failed: 502,
  download_failed: 502,
  dependency_fetch_failed: 502,
  github_rate_limited: 503,
  github_token_unavailable: 500,
  store_error: 500,
  internal_error: 500,
  unloadable: 500,
};
