// The effective server settings: parsed once at startup from flags, SVC_* variables, the
// config file, HOST/PORT and defaults, then frozen. Nothing outside src/config reads
// process.env; every other module receives this object.

export type Role = 'admin' | 'user';

/** A configured API token. Only the SHA-256 digest of the value is kept. */
export interface TokenEntry {
  name: string;
  role: Role;
  /** SHA-256 digest of the token value (32 bytes). */
  digest: Buffer;
}

export interface VolumeDeclaration {
  name: string;
  kind: 'managed-local' | 'local-path';
  /** Absolute host directory: `<volume_dir>/<name>` for managed-local, `path` for local-path. */
  directory: string;
  /** Only for local-path: the declared path. */
  path?: string;
  access: 'read_write' | 'read_only';
  /** Bytes, or 'unlimited'. */
  sizeLimit: number | 'unlimited';
}

export interface OAuthProvider {
  match: string;
  clientId: string;
  /** Literal, `${env.VAR}` or `${secrets.KEY}`; resolved when used. */
  clientSecret?: string;
  scopes: string[];
}

export interface Limits {
  max_execution_memory: number; // megabytes
  max_execution_time: number; // seconds, 0 = none
  /** CPU seconds of one run, built-ins and the runtime's own work included; 0 = only what its fuel buys (svc extension). */
  max_execution_cpu: number;
  max_execution_fuel: number; // count
  max_execution_stack: number; // kibibytes
  max_ephemeral_vfs_size: number; // megabytes, for ephemeral areas without their own size_limit
  /** Megabytes of a per_session area without its own size_limit, 0 = none (svc extension). */
  max_session_vfs_size: number;
  /** Megabytes of all per_session areas of one token's sessions, 0 = none (svc extension). */
  max_token_disk: number;
  max_session_state_memory: number; // megabytes
  /** Megabytes of svc:session state one token's sessions hold together (svc extension; default max_session_state_memory). */
  max_session_state_memory_per_token: number;
  max_last_run_memory: number; // megabytes, per token
  /** Sessions one token may have open at once (svc extension). */
  max_sessions_per_token: number;
  /** Idempotency records one session keeps (svc extension). */
  max_idempotency_records: number;
  max_idempotency_session_size: number; // megabytes of recorded answers per session
  max_idempotency_size: number; // megabytes of recorded answers server-wide
  /** Megabytes of recorded answers one token's sessions keep (svc extension; default max_idempotency_size). */
  max_idempotency_token_size: number;
  /** KiB past which a program is type-checked on the second checker thread (svc extension). */
  typecheck_large_program: number;
  compile_cache_size: number; // megabytes, server-wide
  /** Megabytes of SQLite's page cache for the server's database (svc extension). */
  database_cache_size: number;
  /** Seconds a type check may take before the program runs unchecked (svc extension). */
  typecheck_budget: number;
  typecheck_warm_after: number;
  /** MiB of V8 heap per type-checker thread; past three quarters after a full collection the thread is replaced (svc extension). */
  typecheck_thread_memory: number;
  compile_thread_memory: number;
  /** Compiles after which the compile threads are replaced (0 = never; svc extension). */
  compile_thread_recycle: number;
  network_thread_memory: number;
  max_llm_tokens: number;
  /** Model tokens one token's runs spend together (svc extension; default max_llm_tokens). */
  max_llm_tokens_per_token: number;
  max_execution_llm_tokens: number;
  max_llm_concurrency: number;
  max_embedding_tokens: number;
  /** Embedding tokens one token's runs spend together (svc extension; default max_embedding_tokens). */
  max_embedding_tokens_per_token: number;
  max_execution_embedding_tokens: number;
  max_execution_embedding_requests: number;
  max_embedding_concurrency: number;
  /** Megabytes of journal one run keeps; 0 = runs are not journalled (svc extension). */
  max_run_journal_size: number;
  /** Asynchronous host calls one run may have in flight (svc extension). */
  max_host_calls_in_flight: number;
  /** Host calls of all runs being answered at once; more wait (svc extension). */
  max_server_host_calls_in_flight: number;
  /** Host calls of one token's runs being answered at once; more wait (svc extension; default the server-wide one). */
  max_host_calls_in_flight_per_token: number;
}

export type AllowsMode = 'summary' | 'all' | 'none';

export interface Settings {
  /** Base of default paths ($SVC_HOME or ~/.svc). */
  home: string;
  configFile: string | null;
  bind: string;
  port: number;
  tls: { certFile: string; keyFile: string; cert: Buffer; key: Buffer } | null;
  tokens: TokenEntry[];
  allowUnauthenticated: boolean;
  /** Extra Host header values for /mcp (lower-cased `host` or `host:port`). */
  mcpAllowedHosts: string[];
  mcpOAuthProviders: OAuthProvider[];
  githubTokenFile: string | null;
  /** Code host API base for Package installs (GitHub or GitHub Enterprise Server), no trailing slash. */
  githubApiUrl: string;
  /** `official_repository`: the one repository whose Packages may use the reserved scope `svc` (its owner's scope too, like any repository); null = none. */
  officialRepository: { owner: string; repo: string } | null;
  paths: {
    databasePath: string; // may be ':memory:'
    blueprintDir: string;
    sessionStoreDir: string;
    vfsSessionDir: string;
    vfsEphemeralDir: string;
    vfsEphemeralDirExplicit: boolean;
    packageStoreDir: string;
    packageFallbackDir: string;
    volumeDir: string;
    /** V8 code caches of code the server loads (the type checker's compiler); an svc extension. */
    codeCacheDir: string;
  };
  secretStore: {
    dir: string;
    /** The 32-byte store key, or null when the store is off. */
    key: Buffer | null;
  };
  volumes: VolumeDeclaration[];
  network: {
    /** Canonical CIDR strings, e.g. `127.0.0.1/32`. */
    allowIp: string[];
    allowLocalhost: boolean;
    allowPrivate: boolean;
    /** Names of the variables that added outbound grants (for the audit `egress_grants`). */
    grantsFromEnvironment: string[];
    /** `network.hosts`: lower-cased host name → IP address, consulted before DNS (like /etc/hosts). */
    hosts: Readonly<Record<string, string>>;
  };
  limits: Limits;
  /** Refuse every Package install with a warning: --deny-warnings, SVC_DENY_WARNINGS=1 or file deny_warnings. */
  denyWarnings: boolean;
  telemetry: boolean;
  telemetryIncludeSource: boolean;
  /** Where telemetry reports go (https URL), or null: then nothing is sent even when on. Key `telemetry_endpoint`, flag `--telemetry-endpoint`, SVC_TELEMETRY_ENDPOINT (svc extension). */
  telemetryEndpoint: string | null;
  logging: {
    /** null = standard output. */
    file: string | null;
    /** RUST_LOG value (null = default `info`). */
    filter: string | null;
    audit: {
      enabled: boolean;
      /** null = the log's output. */
      file: string | null;
      allows: AllowsMode;
    };
  };
  shutdownGraceSeconds: number;
  /** Client connections (svc extension): `max_connections`, `max_connections_per_address`, `max_unauthenticated_connections`, `header_timeout` (seconds). */
  connections: { total: number; perAddress: number; unauthenticated: number; headerTimeoutSeconds: number };
  /** Seconds between idle-session sweeps, default 30: our extension. Key `session_reap_interval`, flag `--session-reap-interval`, SVC_SESSION_REAP_INTERVAL. */
  sessionReapIntervalSeconds: number;
  /** Run records (GET /v1/runs): `run_retention` (ms, default 24h) and `max_run_store_size` (bytes, default 256 MiB). */
  runs: { retentionMs: number; maxBytes: number };
  /** Runner child processes, 1-64, default 2: an svc extension beyond the common settings. Key `runner_pool_size`, flag `--runner-pool-size`, SVC_RUNNER_POOL_SIZE. */
  runnerPoolSize: number;
  /** Seconds of runner silence judged stuck (svc extension), key `runner_heartbeat_timeout`; null: the runner pool's default (3 s). */
  runnerHeartbeatTimeoutSeconds: number | null;
  /** Resident MB past which a runner drains and is replaced (svc extension), key `runner_memory_recycle`; 0: never. */
  runnerMemoryRecycleMb: number;
  /** Nice value of the runners' threads and sessions, 0-19 (svc extension), key `runner_nice`; 0: the server's own priority. */
  runnerNice: number;
  /** Isolates a runner keeps prepared once it has run, 0-64 (svc extension), key `runner_shelf_floor`; null: the runner's default (32, sandbox/runner/shelf.ts). Spares beyond the recent demand come on top. */
  runnerShelfFloor: number | null;
  /** Admission of runs (svc extension): ceilings on runs in flight, their memory limits and the queue; runs one runner hosts. */
  admission: {
    runsInFlight: number;
    runsMemoryMb: number;
    queuedRuns: number;
    /** Runs one token may have in flight (`max_runs_in_flight_per_token`; default runsInFlight). */
    runsInFlightPerToken: number;
    /** Runs one token may have queued (`max_queued_runs_per_token`; default queuedRuns). */
    queuedRunsPerToken: number;
    /** Runs parked at once while they wait for people (`max_runs_parked`; default 4096); they hold no run slot. */
    runsParked: number;
    runsPerRunner: number;
    /** Runs executing code at once, server-wide, shared fairly across tokens (`max_computing_runs`; null: the pool's default, one per core, at least 2). */
    computingRuns: number | null;
  };
}
