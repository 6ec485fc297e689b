// Wire shapes of the svc HTTP API (the server's GET /v1/openapi.json names the same ones).

export interface ExecuteError {
  /** compile_error, runtime_error, permission_denied, timeout, fuel_exhausted, memory_exhausted, stack_exhausted, package_resolution, blueprint_not_found, invalid_request */
  kind: string;
  message: string;
  caller?: string;
  capability?: string;
  /** permission_denied only: policy, invariant or read_only. */
  source?: string;
  diagnostics?: Array<{ severity: string; line: number; column: number; message: string; notes?: Array<{ line: number; column: number; message: string }> }>;
}

/** Every program outcome, failures included (HTTP 200). */
export interface ExecuteResult {
  execution_id: string;
  session_id: string;
  result: string | null;
  console: string[];
  error: ExecuteError | null;
  discovery_warnings?: string[];
}

export interface LastRunRecord {
  result: string | null;
  console: string[];
  error: ExecuteError | null;
}

export interface Prompt {
  name: string;
  prompt: string;
  tools: { search: string; docs: string; builtins: string; builtins_list: string; builtins_docs: string; last_run: string };
}

export interface SearchEntry {
  name: string;
  description: string;
  source: 'host' | 'registry' | 'mcp';
}

export interface PackageSearchResults {
  results: SearchEntry[];
  available_packages?: SearchEntry[];
  builtins?: string;
  available_packages_omitted?: number;
}

/** JSON for modules and built-ins; Markdown text for installed and `@mcp/` Packages. */
export type PackageDocs =
  | { format: 'json'; name: string; source: string; description: string; declarations: string }
  | { format: 'markdown'; text: string };

export interface BuiltinsList {
  namespaces: string[];
  types: string[];
  /** Global functions (fetch, timers, queueMicrotask, ...). */
  functions: string[];
}

export interface BuiltinsDocs {
  results: Array<{ name: string; declarations: string } | { name: string; error: 'unknown_builtin' | 'not_a_builtin'; message: string; did_you_mean?: string }>;
}

export interface SessionRequest {
  blueprint: string;
  variables?: Record<string, string>;
  secrets?: Record<string, string>;
}

export interface OneOffRequest extends SessionRequest {
  code: string;
}

export interface BlueprintSummary {
  name: string;
  hash: string;
  vfs_mode: string;
  idle_timeout_secs: number | null;
  packages: string[];
  secrets: Array<{ name: string; source: 'store' | 'harness'; store_key?: string }>;
  variables: string[];
  mcp_servers: string[];
  auth_proxy_hosts: string[];
  default_action: 'allow' | 'deny' | 'ask-human';
  caller_count: number;
  rule_count: number;
  capability_count: number;
}

export interface Status {
  status: 'running';
  bind_addr: string;
  pid: number;
  active_sessions: number;
  blueprints: string[];
  /** Model and embedding tokens spent and reserved against the server budgets. */
  token_budgets?: Record<string, { spent: number; reserved: number; budget: number }>;
}

export interface PackageRef {
  name: string;
  version: string;
  digest: string;
}

export interface PackageInstallRequest {
  url: string;
  ref?: string;
  package?: string;
  upgrade?: boolean;
  deny_warnings?: boolean;
}

export interface PackageInstalled {
  sha: string;
  installed: PackageRef[];
  up_to_date: PackageRef[];
  warnings: string[];
}

export interface OAuthState {
  state: 'active' | 'pending';
  unauthenticated?: string[];
}

export interface RefreshTokenRequest {
  refresh_token?: string;
  access_token?: string;
  client_id?: string;
  token_endpoint?: string;
  scopes?: string[];
}

export interface OAuthExchangeRequest {
  code: string;
  redirect_uri: string;
  code_verifier: string;
  client_id?: string;
}
