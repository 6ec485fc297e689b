// The parsed Blueprint: everything later capabilities read, typed. The one owner of the
// declaration model: sessions bind and fill it, vfs builds file areas from it.
import type { PermissionPolicy } from '../policy';
import type { TypecheckMode } from '../../sandbox';

/** The file-area modes a Blueprint's `vfs` may name. */
export const VFS_MODES = ['none', 'ephemeral', 'per_session', 'named'] as const;
/** How a named volume may be mounted. */
export const VOLUME_ACCESS = ['read_only', 'read_write'] as const;
export type VfsMode = (typeof VFS_MODES)[number];
export type VolumeAccess = (typeof VOLUME_ACCESS)[number];

export interface MountDeclaration {
  volume: string;
  subPath?: string;
  access?: VolumeAccess;
}

export interface VfsDeclaration {
  mode: VfsMode;
  size_limit?: number;
  volume?: string;
  subPath?: string;
  access?: VolumeAccess;
  cwd?: string;
  mounts?: Record<string, MountDeclaration>;
}

/** The `vfs` section with its path templates filled by a session's variables; fixed for the session's life. */
export interface FilledVfs {
  mode: VfsMode;
  cwd: string;
  size_limit?: number;
  volume?: string;
  subPath?: string;
  access?: VolumeAccess;
  /** Always written by a session's fill; a run built by hand may leave it out. */
  mounts?: Record<string, MountDeclaration>;
}

export interface VariableDeclaration {
  required: boolean;
  default?: string;
}

export type SecretDeclaration = { source: 'store'; key: string } | { source: 'harness'; required: boolean };

/** What a session binds: the declared variables and secrets. */
export interface BindingDeclarations {
  variables: ReadonlyMap<string, VariableDeclaration>;
  secrets: ReadonlyMap<string, SecretDeclaration>;
}

export interface AuthProxyRule {
  host: string;
  allow_insecure_http?: boolean;
  auth?: { bearer: string } | { basic: { username: string; password: string } };
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface GitDeclaration {
  identity: { name: string; email: string };
  username?: string;
}

export interface McpServerDeclaration {
  url: string;
  headers?: Record<string, string>;
  auth?: { type: 'oauth2'; client_id?: string; authorization_endpoint?: string; token_endpoint?: string; scopes?: string[] };
}

export interface LlmDeclaration {
  providers?: Record<string, { type: string; base_url?: string; api_key?: string; supports_structured_outputs?: boolean }>;
  models?: Record<string, { provider: string; context_window?: number; output_reserve?: number; description?: string }>;
  embedding_models?: Record<string, { provider: string; dimensions: number; max_input_bytes?: number; max_input_tokens?: number; description?: string }>;
}

/** `approval_timeout`: how long an `ask-human` approval waits for an answer (default 24 h, at most 30 days). */
export const DEFAULT_APPROVAL_TIMEOUT_SECS = 86_400;
export const MAX_APPROVAL_TIMEOUT_SECS = 30 * 86_400;

export type { TypecheckMode };

export interface Blueprint {
  name: string;
  allowInsecureHttp: boolean;
  idleTimeoutSecs: number;
  vfs: VfsDeclaration;
  declarations: BindingDeclarations;
  packages: string[];
  authProxy: AuthProxyRule[];
  git: GitDeclaration | null;
  policy: PermissionPolicy;
  mcp: Record<string, McpServerDeclaration>;
  llm: LlmDeclaration;
  /** Whether programs are type-checked before they run (default `on`). */
  typecheck: TypecheckMode;
  /** How long an `ask-human` approval waits for an answer before it expires (default 24 h). */
  approvalTimeoutSecs: number;
  /** SHA-256 of the canonical JSON. */
  hash: string;
  /** The submitted text, byte for byte. */
  yaml: string;
}
