// The table of scalar settings: file key, flag, variable and value type. Parsing,
// precedence and help text are all driven by this one table.
export type ScalarKind = 'ip' | 'port' | 'path' | 'name' | 'count' | 'megabytes' | 'kibibytes' | 'seconds' | 'whole' | 'endpoint' | 'url' | 'repository' | 'duration' | 'size';

export interface ScalarSetting {
  key: string; // dotted file key
  flag: string; // without the leading --
  env: string;
  kind: ScalarKind;
  help: string;
  min?: number;
  max?: number;
  /** Wording for range messages ("max execution memory"). */
  label?: string;
}

const limit = (key: string, kind: ScalarKind, help: string, extra: Partial<ScalarSetting> = {}): ScalarSetting => ({
  key,
  flag: key.replaceAll('_', '-'),
  env: `SVC_${key.toUpperCase()}`,
  kind,
  help,
  min: 1,
  label: key.replaceAll('_', ' '),
  ...extra,
});

export const scalarSettings: readonly ScalarSetting[] = [
  { key: 'bind', flag: 'bind', env: 'SVC_BIND', kind: 'ip', help: 'listen address (default 127.0.0.1)' },
  { key: 'port', flag: 'port', env: 'SVC_PORT', kind: 'port', help: 'TCP port (default 8128; 0 = any free port)' },
  { key: 'tls.cert_file', flag: 'tls-cert-file', env: 'SVC_TLS_CERT_FILE', kind: 'path', help: 'PEM certificate chain (with --tls-key-file: HTTPS)' },
  { key: 'tls.key_file', flag: 'tls-key-file', env: 'SVC_TLS_KEY_FILE', kind: 'path', help: 'PEM private key matching the certificate' },
  { key: 'database_path', flag: 'database-path', env: 'SVC_DATABASE_PATH', kind: 'path', help: 'SQLite database (default $SVC_HOME/server/db/svc.db)' },
  { key: 'blueprint_dir', flag: 'blueprint-dir', env: 'SVC_BLUEPRINT_DIR', kind: 'path', help: 'obsolete: one-time Blueprint import source' },
  { key: 'session_store_dir', flag: 'session-store-dir', env: 'SVC_SESSION_STORE_DIR', kind: 'path', help: 'session records' },
  { key: 'vfs_session_dir', flag: 'vfs-session-dir', env: 'SVC_VFS_SESSION_DIR', kind: 'path', help: 'files of per_session file areas' },
  { key: 'vfs_ephemeral_dir', flag: 'vfs-ephemeral-dir', env: 'SVC_VFS_EPHEMERAL_DIR', kind: 'path', help: 'per-run scratch directories (default: OS temp dir)' },
  { key: 'package_store_dir', flag: 'package-store-dir', env: 'SVC_PACKAGE_STORE_DIR', kind: 'path', help: 'installed Packages' },
  { key: 'github_api_url', flag: 'github-api-url', env: 'SVC_GITHUB_API_URL', kind: 'url', help: 'code host API for Package installs (default https://api.github.com; GitHub Enterprise: https://<host>/api/v3)' },
  { key: 'official_repository', flag: 'official-repository', env: 'SVC_OFFICIAL_REPOSITORY', kind: 'repository', help: 'owner/repo on the code host whose Packages may use the reserved scope @svc (default: none, so no install may publish @svc/…)' },
  { key: 'volume_dir', flag: 'volume-dir', env: 'SVC_VOLUME_DIR', kind: 'path', help: 'root of managed-local volumes' },
  { key: 'code_cache_dir', flag: 'code-cache-dir', env: 'SVC_CODE_CACHE_DIR', kind: 'path', help: 'compiled-code cache of the type checker, written after its first check and read by the next start (default $SVC_HOME/server/cache; svc extension)' },
  { key: 'secret_store.dir', flag: 'secret-store-dir', env: 'SVC_SECRET_STORE_DIR', kind: 'path', help: 'sealed secret store' },
  { key: 'secret_store.key_file', flag: 'secret-store-key-file', env: 'SVC_SECRET_STORE_KEY_FILE', kind: 'path', help: 'file holding the store key (base64 of 32 bytes)' },
  { key: 'secret_store.key_env', flag: 'secret-store-key-env', env: 'SVC_SECRET_STORE_KEY_ENV', kind: 'name', help: 'variable holding the store key (default SVC_SECRET_KEY)' },
  limit('max_execution_memory', 'megabytes', 'megabytes one run may hold live (default 50)', { label: 'max execution memory', unitLabel: 'MB' } as Partial<ScalarSetting>),
  limit('max_execution_time', 'seconds', 'wall seconds of one run, 0 = no limit (default 0)', { min: 0 }),
  limit('max_execution_fuel', 'count', 'fuel of one run (default 1T)'),
  limit('max_execution_stack', 'kibibytes', 'stack of one run in KiB, 1-16384 (default 512)', { max: 16384 }),
  limit('max_ephemeral_vfs_size', 'megabytes', 'megabytes an ephemeral file area may hold when its Blueprint sets no vfs size_limit (default 64)'),
  limit('max_session_vfs_size', 'megabytes', 'megabytes a per_session file area may hold when its Blueprint sets no vfs size_limit, 0 = no limit (default 10240; svc extension)', { min: 0 }),
  limit('max_token_disk', 'megabytes', 'megabytes the per_session file areas of one token\'s sessions may hold together, 0 = no limit (default 51200; svc extension)', { min: 0 }),
  limit('max_session_state_memory', 'megabytes', 'megabytes of all sessions\' svc:session state (default 1024)'),
  limit('max_session_state_memory_per_token', 'megabytes', 'megabytes of svc:session state one token\'s sessions may hold together (default: max_session_state_memory; whatever it is, a token holding less than its fair share of max_session_state_memory may store up to that share even when the server-wide budget is full; svc extension)'),
  limit('max_last_run_memory', 'megabytes', 'megabytes of last-run records each token keeps for reading back, for its one-off runs and again for its open sessions, its oldest dropped first (default 64)'),
  limit('max_sessions_per_token', 'whole', 'sessions (REST and MCP) one token may have open at once; past it opening one answers 429 (default 64; svc extension)', { max: 1_000_000 }),
  limit('max_idempotency_records', 'whole', 'Idempotency-Key records one session keeps; past it the oldest go and a retry with their key runs again (default 1000; svc extension)', { max: 1_000_000 }),
  limit('max_idempotency_session_size', 'megabytes', 'megabytes of recorded Idempotency-Key answers one session keeps, oldest dropped first (default 64; svc extension)'),
  limit('max_idempotency_token_size', 'megabytes', 'megabytes of recorded Idempotency-Key answers one token\'s sessions keep together, oldest dropped first (default: max_idempotency_size; past max_idempotency_size the answers that go are those of a token holding more than its fair share, so one token never pushes out another\'s within its share; svc extension)'),
  limit('typecheck_large_program', 'kibibytes', 'programs larger than this many KiB are type-checked on a second checker thread of their own, so their checks (seconds each) never delay smaller programs (default 64; svc extension)', { max: 2048 }),
  limit('compile_cache_size', 'megabytes', 'megabytes of compiled programs (code, source map, source) the server keeps to skip compiling a program sent again, least recently used dropped first; 0 keeps none (default 64; svc extension)', { min: 0, max: 65536 }),
  limit('typecheck_warm_after', 'seconds', 'seconds after the server listens, or after a Blueprint is applied, before it loads the type checker in the background if no program has yet, so the first typed run finds it warm; 0 = at once (default 0; svc extension)', { min: 0, max: 3600 }),
  limit('typecheck_thread_memory', 'megabytes', 'megabytes of V8 heap each type-checker thread may use; the large-program thread twice that; a thread whose heap after a full collection passes three quarters of it is replaced by a new one, warmed with the same Blueprints\' declarations before it takes over (default 512; svc extension)', { min: 64, max: 16384 }),
  limit('network_thread_memory', 'megabytes', 'megabytes of V8 heap of the network thread that sends programs\' outbound HTTP (fetch, svc:http); past it the thread is replaced and the requests it had in flight fail with an error saying so (default 256; svc extension)', { min: 32, max: 16384 }),
  limit('typecheck_budget', 'seconds', 'seconds a program\'s type check may take; past it the checker thread is replaced and the program runs unchecked, with a warning (default 10; svc extension)', { max: 300 }),
  limit('max_idempotency_size', 'megabytes', 'megabytes of recorded Idempotency-Key answers of all sessions together, oldest dropped first (default 1024; svc extension)'),
  limit('max_llm_tokens', 'count', 'model tokens across all runs (default 20M)'),
  limit('max_llm_tokens_per_token', 'count', 'model tokens one token\'s runs may spend together, for the server\'s life (default: max_llm_tokens; svc extension)'),
  limit('max_execution_llm_tokens', 'count', 'model tokens of one run (default 1M)'),
  limit('max_llm_concurrency', 'whole', 'prompts of one batch in flight (default 4)'),
  limit('max_embedding_tokens', 'count', 'embedding tokens across all runs (default 50M)'),
  limit('max_embedding_tokens_per_token', 'count', 'embedding tokens one token\'s runs may spend together, for the server\'s life (default: max_embedding_tokens; svc extension)'),
  limit('max_execution_embedding_tokens', 'count', 'embedding tokens of one run (default 2M)'),
  limit('max_execution_embedding_requests', 'count', 'embedding requests of one run (default 1K)'),
  limit('max_embedding_concurrency', 'whole', 'embedding requests of one call in flight (default 4)'),
  limit('max_run_journal_size', 'megabytes', 'megabytes of journal one run keeps (what entered the program, for tapes, replay and fork); a run past it goes on but cannot be replayed; 0 = runs are not journalled (default 4; svc extension)', { min: 0 }),
  limit('max_host_calls_in_flight', 'whole', 'asynchronous host calls (fetch, <module>/async) one run may have in flight (default 64; svc extension)', { max: 4096 }),
  limit('max_server_host_calls_in_flight', 'whole', 'host calls of all runs being answered at once; more wait for a slot (they do not fail), and a token below its fair share starts past it, up to twice it (default 4096; svc extension)', { max: 1_000_000 }),
  limit('max_host_calls_in_flight_per_token', 'whole', 'host calls of one token\'s runs being answered at once; more wait for a slot (default: max_server_host_calls_in_flight; svc extension)', { max: 1_000_000 }),
  { key: 'max_connections', flag: 'max-connections', env: 'SVC_MAX_CONNECTIONS', kind: 'whole', help: 'client connections open at once; past it a new one closes the oldest not yet authenticated, or is refused (default 4096; svc extension)', min: 1, max: 1000000, label: 'max connections' },
  { key: 'max_connections_per_address', flag: 'max-connections-per-address', env: 'SVC_MAX_CONNECTIONS_PER_ADDRESS', kind: 'whole', help: 'client connections one client address may hold; raise it behind a reverse proxy (default 1024; svc extension)', min: 1, max: 1000000, label: 'max connections per address' },
  { key: 'max_unauthenticated_connections', flag: 'max-unauthenticated-connections', env: 'SVC_MAX_UNAUTHENTICATED_CONNECTIONS', kind: 'whole', help: 'connections none of whose requests has shown a valid token yet; past it the oldest of them is closed (default 256; svc extension)', min: 1, max: 1000000, label: 'max unauthenticated connections' },
  { key: 'header_timeout', flag: 'header-timeout', env: 'SVC_HEADER_TIMEOUT', kind: 'seconds', help: 'seconds a connection may take to send a request\'s headers, and a new one its first request, 1-300 (default 60; svc extension)', min: 1, max: 300, label: 'header timeout' },
  { key: 'logging.file', flag: 'log-file', env: 'SVC_LOG_FILE', kind: 'path', help: 'append the server log to this file (default stdout)' },
  { key: 'shutdown_grace', flag: 'shutdown-grace', env: 'SVC_SHUTDOWN_GRACE', kind: 'seconds', help: 'seconds to drain after a stop (default 5)', min: 0, label: 'shutdown grace' },
  { key: 'run_retention', flag: 'run-retention', env: 'SVC_RUN_RETENTION', kind: 'duration', help: 'how long a finished run\'s record (GET /v1/runs/{id}) is kept, e.g. 24h, 90m, 7d (default 24h)', label: 'run retention' },
  { key: 'max_run_store_size', flag: 'max-run-store-size', env: 'SVC_MAX_RUN_STORE_SIZE', kind: 'size', help: 'bytes of run records kept together, e.g. 256MB; past it the oldest finished records go, first those of a token holding more than its fair share (default 256MB)', label: 'max run store size' },
  { key: 'session_reap_interval', flag: 'session-reap-interval', env: 'SVC_SESSION_REAP_INTERVAL', kind: 'seconds', help: 'seconds between sweeps that end sessions idle past their idle_timeout (default 30; svc extension)', min: 1, label: 'session reap interval' },
  { key: 'telemetry_endpoint', flag: 'telemetry-endpoint', env: 'SVC_TELEMETRY_ENDPOINT', kind: 'endpoint', help: 'HTTPS URL that receives telemetry reports when telemetry is on (svc extension)' },
  { key: 'runner_pool_size', flag: 'runner-pool-size', env: 'SVC_RUNNER_POOL_SIZE', kind: 'whole', help: 'runner child processes that run programs, 1-64 (default 2; svc extension)', min: 1, max: 64, label: 'runner pool size' },
  { key: 'runner_heartbeat_timeout', flag: 'runner-heartbeat-timeout', env: 'SVC_RUNNER_HEARTBEAT_TIMEOUT', kind: 'seconds', help: 'seconds without a heartbeat after which a runner inside guest code counts as stuck and is replaced (one running none gets ten times as long), 1-300 (default 3; svc extension)', min: 1, max: 300, label: 'runner heartbeat timeout' },
  { key: 'runs_per_runner', flag: 'runs-per-runner', env: 'SVC_RUNS_PER_RUNNER', kind: 'whole', help: 'runs one runner process hosts at once; a runner crash ends at most these; 1 = one run per process (default: runs in flight / runners; svc extension)', min: 1, max: 4096, label: 'runs per runner' },
  { key: 'max_runs_in_flight', flag: 'max-runs-in-flight', env: 'SVC_MAX_RUNS_IN_FLIGHT', kind: 'whole', help: 'runs in flight at once, server-wide; more queue (default: max_runs_memory / max_execution_memory, at most 1024; svc extension)', min: 1, max: 100000, label: 'max runs in flight' },
  { key: 'max_runs_memory', flag: 'max-runs-memory', env: 'SVC_MAX_RUNS_MEMORY', kind: 'megabytes', help: 'sum of the memory limits of the runs in flight, MB (default: half the machine\'s memory; svc extension)', min: 1, label: 'max runs memory' },
  { key: 'max_computing_runs', flag: 'max-computing-runs', env: 'SVC_MAX_COMPUTING_RUNS', kind: 'whole', help: 'runs executing code at once, server-wide (runs waiting on the host or a timer take none); shared fairly across tokens, and a token below its share may start past it, up to twice it (default: 8 per core, at least 16; lower it towards one per core where tenants run runaway loops; svc extension)', min: 1, max: 4096, label: 'max computing runs' },
  { key: 'max_runs_in_flight_per_token', flag: 'max-runs-in-flight-per-token', env: 'SVC_MAX_RUNS_IN_FLIGHT_PER_TOKEN', kind: 'whole', help: 'runs one token may have in flight at once; more of its runs queue while other tokens\' go (default: max_runs_in_flight; whatever it is, a token below its fair share of max_runs_in_flight starts even when the server is full, up to twice it; svc extension)', min: 1, max: 100000, label: 'max runs in flight per token' },
  { key: 'max_queued_runs_per_token', flag: 'max-queued-runs-per-token', env: 'SVC_MAX_QUEUED_RUNS_PER_TOKEN', kind: 'whole', help: 'runs one token may have waiting for admission; past it its run fails at once naming the limit (default: max_queued_runs; a token below its fair share of max_queued_runs may queue past it, up to twice it; svc extension)', min: 1, max: 1000000, label: 'max queued runs per token' },
  { key: 'max_runs_parked', flag: 'max-runs-parked', env: 'SVC_MAX_RUNS_PARKED', kind: 'whole', help: 'runs parked at once while they wait for a person\'s approval (no isolate, no run slot: they count against neither max_runs_in_flight nor max_runs_in_flight_per_token); past it a waiting run keeps its isolate and run slot; a token below its fair share may park past it, up to twice it (default 4096; svc extension)', min: 1, max: 1000000, label: 'max runs parked' },
  { key: 'max_queued_runs', flag: 'max-queued-runs', env: 'SVC_MAX_QUEUED_RUNS', kind: 'whole', help: 'runs waiting for admission; past it a run fails at once naming the limit (default 1024; svc extension)', min: 0, max: 1000000, label: 'max queued runs' },
];

export const booleanFlags = ['allow-unauthenticated', 'allow-localhost', 'allow-private', 'deny-warnings', 'health-check', 'help', 'version'] as const;
export const repeatableFlags = ['allow-ip', 'mcp-allowed-host', 'add-host'] as const;

export const limitDefaults = {
  max_execution_memory: 50,
  max_execution_time: 0,
  max_execution_fuel: 1_000_000_000_000,
  max_execution_stack: 512,
  max_ephemeral_vfs_size: 64,
  max_session_vfs_size: 10240,
  max_token_disk: 51200,
  max_session_state_memory: 1024,
  max_last_run_memory: 64,
  max_session_state_memory_per_token: 1024,
  max_sessions_per_token: 64,
  max_idempotency_records: 1_000,
  max_idempotency_session_size: 64,
  max_idempotency_size: 1_024,
  max_idempotency_token_size: 1_024,
  typecheck_large_program: 64,
  compile_cache_size: 64, // COMPILE_CACHE_MEGABYTES
  typecheck_budget: 10,
  typecheck_thread_memory: 512,
  network_thread_memory: 256,
  typecheck_warm_after: 0,
  max_llm_tokens: 20_000_000,
  max_llm_tokens_per_token: 20_000_000,
  max_execution_llm_tokens: 1_000_000,
  max_llm_concurrency: 4,
  max_embedding_tokens: 50_000_000,
  max_embedding_tokens_per_token: 50_000_000,
  max_execution_embedding_tokens: 2_000_000,
  max_execution_embedding_requests: 1_000,
  max_embedding_concurrency: 4,
  max_run_journal_size: 4,
  max_host_calls_in_flight: 64,
  max_server_host_calls_in_flight: 4096,
  max_host_calls_in_flight_per_token: 4096,
} as const;

/** Accepted keys per mapping of the config file. */
export const fileKeys = {
  top: [
    ...new Set([
      ...scalarSettings.map((s) => s.key.split('.')[0]),
      'api_tokens',
      'allow_unauthenticated',
      'mcp_allowed_hosts',
      'mcp_oauth',
      'github_token_file',
      'deny_warnings',
      'volumes',
      'network',
      'telemetry',
      'telemetry_include_source',
      'logging',
    ]),
  ],
  tls: ['cert_file', 'key_file'],
  secret_store: ['dir', 'key_file', 'key_env'],
  network: ['allow_ip', 'allow_localhost', 'allow_private', 'hosts'],
  logging: ['file', 'audit'],
  'logging.audit': ['enabled', 'file', 'allows'],
  mcp_oauth: ['providers'],
  provider: ['match', 'client_id', 'client_secret', 'scopes'],
  token: ['name', 'role', 'token_file'],
  volume: ['kind', 'path', 'access', 'size_limit'],
} as const;
