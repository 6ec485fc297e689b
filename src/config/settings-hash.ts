// `settings_hash`: SHA-256 of the canonical JSON of the
// effective settings without credentials. Paths are replaced by the SHA-256 of their
// bytes so the hash can be shared without revealing the layout.
import { createHash } from 'node:crypto';
import type { Settings } from './settings';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hashedPath = (value: string | null) => (value === null ? null : sha256(value));

/** JSON with object keys sorted by byte order at every level. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function computeSettingsHash(settings: Settings, boundAddr: string): string {
  const paths = settings.paths;
  const canonical = {
    addr: boundAddr,
    tls: settings.tls !== null,
    auth: {
      allow_unauthenticated: settings.allowUnauthenticated,
      tokens: settings.tokens.map((t) => ({ name: t.name, role: t.role })).sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))),
    },
    mcp_allowed_hosts: [...settings.mcpAllowedHosts].sort(),
    mcp_oauth: settings.mcpOAuthProviders.map((p) => ({ match: p.match, client_id: p.clientId, scopes: p.scopes, confidential: p.clientSecret !== undefined })),
    paths: {
      database_path: hashedPath(paths.databasePath),
      blueprint_dir: hashedPath(paths.blueprintDir),
      session_store_dir: hashedPath(paths.sessionStoreDir),
      vfs_session_dir: hashedPath(paths.vfsSessionDir),
      vfs_ephemeral_dir: hashedPath(paths.vfsEphemeralDir),
      package_store_dir: hashedPath(paths.packageStoreDir),
      package_fallback_dir: hashedPath(paths.packageFallbackDir),
      volume_dir: hashedPath(paths.volumeDir),
      secret_store_dir: hashedPath(settings.secretStore.dir),
      log_file: hashedPath(settings.logging.file),
      audit_file: hashedPath(settings.logging.audit.file),
      github_token_file: hashedPath(settings.githubTokenFile),
    },
    secret_store: { enabled: settings.secretStore.key !== null },
    volumes: Object.fromEntries(
      // A local-path volume's path is a path like the others: hashed, never shown.
      settings.volumes.map((v) => [v.name, { kind: v.kind, ...(v.path !== undefined ? { path: hashedPath(v.directory) } : {}), access: v.access, size_limit: v.sizeLimit }]),
    ),
    network: {
      allow_ip: [...settings.network.allowIp].sort(),
      allow_localhost: settings.network.allowLocalhost,
      allow_private: settings.network.allowPrivate,
      // Our extension: present only when set, so settings without it hash as they did before it existed.
      ...(Object.keys(settings.network.hosts).length > 0 ? { hosts: settings.network.hosts } : {}),
    },
    limits: settings.limits,
    deny_warnings: settings.denyWarnings,
    github_api_url: settings.githubApiUrl,
    // Only when set, so hashes of servers without one stay as they were.
    ...(settings.officialRepository !== null ? { official_repository: `${settings.officialRepository.owner}/${settings.officialRepository.repo}` } : {}),
    telemetry: settings.telemetry,
    telemetry_include_source: settings.telemetryIncludeSource,
    // Only when set, so hashes of servers without one stay as they were.
    ...(settings.telemetryEndpoint !== null ? { telemetry_endpoint: settings.telemetryEndpoint } : {}),
    audit: { enabled: settings.logging.audit.enabled, allows: settings.logging.audit.allows },
    shutdown_grace: settings.shutdownGraceSeconds,
  };
  return sha256(canonicalJson(canonical));
}
