// Turns the command line, environment and config file into what the process should do:
// serve (with frozen Settings), probe (--health-check), or print help/version. Everything
// is validated here, before anything is written to disk; the only file touched is the
// server log, opened for appending to prove it can be.
import os from 'node:os';
import path from 'node:path';
import { healthCheckTarget, resolveBindAndPort } from './address';
import { parseFlags, type ParsedFlags } from './argv';
import { invalid } from './errors';
import { asMap, asString, readConfigFile, type ConfigFile } from './file';
import { helpText } from './help';
import { allowsMode, auditFileWarnings, checkLogFile } from './logging';
import { canonicalCidr, canonicalMcpHost, hostEntry, hostMapping } from './network';
import { parseOAuthProviders } from './oauth';
import { limitDefaults, scalarSettings } from './schema';
import type { Limits, Settings, TokenEntry } from './settings';
import { effectiveEnv, fileBoolean, fileLookup, fileStringList, Resolver, splitRepeated, validateFileKeys } from './sources';
import { readStoreKey } from './store-key';
import { loadTls } from './tls';
import { buildTokens, checkGithubTokenFile, parseTokenSources } from './tokens';
import type { Command, CommandInput, StartupWarning } from './types';
import { parseBooleanVariable, parseList } from './values';
import { checkVolumeOverlaps, parseVolumes } from './volumes';

export type { Command, CommandInput, HealthCheckTarget, StartupWarning } from './types';

/** Everything the settings are computed from, after the command line and file are read. */
interface Sources {
  input: CommandInput;
  flags: ParsedFlags;
  env: Map<string, string>;
  file: ConfigFile | null;
  resolver: Resolver;
}

export function parseCommand(input: CommandInput): Command {
  const flags = parseFlags(input.argv);
  if (flags.booleans.has('help')) return { kind: 'help', text: helpText() };
  if (flags.booleans.has('version')) return { kind: 'version', text: `svc-server ${input.version}` };

  const env = effectiveEnv(input.env);
  const configArg = flags.values.get('config') ?? env.get('SVC_CONFIG');
  const file = configArg !== undefined ? readConfigFile(path.resolve(input.cwd, configArg)) : null;
  if (file) validateFileKeys(file);
  const resolver = new Resolver(flags, env, file, input.cwd);
  if (flags.booleans.has('health-check')) return { kind: 'health-check', target: healthCheckTarget(resolver, env) };
  resolver.resolveAll();
  const warnings: StartupWarning[] = [];
  const settings = buildSettings({ input, flags, env, file, resolver }, warnings);
  // Last: the log file is the one thing preflight may create.
  if (settings.logging.file !== null) checkLogFile(settings.logging.file);
  return { kind: 'serve', settings: deepFreeze(settings), warnings };
}

function buildSettings(sources: Sources, warnings: StartupWarning[]): Settings {
  const { file, resolver, env } = sources;
  const home = homeDirectory(sources, warnings);
  const paths = defaultedPaths(sources, home);
  const { secretStoreDir, ...serverPaths } = paths;
  const logging = loggingSettings(sources, warnings);
  const volumes = parseVolumes(file?.root.get('volumes'), paths.volumeDir);
  checkVolumeOverlaps(volumes, serverDirectories(paths, logging, file));
  const telemetry = telemetrySetting(sources, 'telemetry', 'SVC_TELEMETRY');
  const limits = parseLimits(resolver);
  return {
    home,
    configFile: file ? path.resolve(file.path) : null,
    ...resolveBindAndPort(resolver, env),
    tls: loadTls(resolver.path('tls.cert_file') ?? null, resolver.path('tls.key_file') ?? null),
    ...authentication(sources),
    mcpAllowedHosts: mcpAllowedHosts(sources),
    mcpOAuthProviders: parseOAuthProviders(file),
    githubTokenFile: githubTokenFile(file),
    githubApiUrl: resolver.text('github_api_url') ?? 'https://api.github.com',
    officialRepository: officialRepository(resolver),
    paths: serverPaths,
    secretStore: { dir: secretStoreDir, key: readStoreKey(resolver, env) },
    volumes,
    network: outboundGrants(sources),
    limits,
    denyWarnings: denyWarnings(sources),
    telemetry,
    // Attaching source only means something when reports are made at all.
    telemetryIncludeSource: telemetry && telemetrySetting(sources, 'telemetry_include_source', 'SVC_TELEMETRY_INCLUDE_SOURCE'),
    telemetryEndpoint: resolver.text('telemetry_endpoint') ?? null,
    logging,
    shutdownGraceSeconds: resolver.number('shutdown_grace') ?? 5,
    connections: {
      total: ranged(resolver, 'max_connections', 4096),
      perAddress: ranged(resolver, 'max_connections_per_address', 1024),
      unauthenticated: ranged(resolver, 'max_unauthenticated_connections', 256),
      headerTimeoutSeconds: ranged(resolver, 'header_timeout', 60),
    },
    sessionReapIntervalSeconds: sessionReapInterval(resolver),
    runs: { retentionMs: resolver.number('run_retention') ?? 24 * 3600 * 1000, maxBytes: resolver.number('max_run_store_size') ?? 256 * 1024 * 1024 },
    runnerPoolSize: runnerPoolSize(resolver),
    runnerHeartbeatTimeoutSeconds: resolver.number('runner_heartbeat_timeout') === undefined ? null : ranged(resolver, 'runner_heartbeat_timeout', 0),
    runnerMemoryRecycleMb: ranged(resolver, 'runner_memory_recycle', RUNNER_MEMORY_RECYCLE_MB),
    runnerNice: ranged(resolver, 'runner_nice', RUNNER_NICE),
    runnerShelfFloor: resolver.number('runner_shelf_floor') === undefined ? null : ranged(resolver, 'runner_shelf_floor', 0),
    admission: admission(resolver, limits.max_execution_memory, runnerPoolSize(resolver)),
  };
}

/** $SVC_HOME, else ~/.svc, else a directory under the OS temp dir (with a warning). */
function homeDirectory({ env, input }: Sources, warnings: StartupWarning[]): string {
  const fromEnv = env.get('SVC_HOME');
  if (fromEnv) return path.resolve(input.cwd, fromEnv);
  if (input.homeDir) return path.join(input.homeDir, '.svc');
  const fallback = path.join(input.tmpDir, 'svc-home');
  warnings.push({ target: 'svc_server::config', msg: 'no home directory could be determined; using a directory under the OS temp dir', fields: { home: fallback } });
  return fallback;
}

function defaultedPaths({ resolver, input }: Sources, home: string) {
  const serverDir = path.join(home, 'server');
  const pathOr = (key: string, fallback: string) => resolver.path(key) ?? fallback;
  return {
    // `:memory:` is SQLite's in-memory database (tests), not a path to resolve.
    databasePath: resolver.text('database_path') === ':memory:' ? ':memory:' : pathOr('database_path', path.join(serverDir, 'db', 'svc.db')),
    blueprintDir: pathOr('blueprint_dir', path.join(serverDir, 'blueprints')),
    sessionStoreDir: pathOr('session_store_dir', path.join(serverDir, 'sessions')),
    vfsSessionDir: pathOr('vfs_session_dir', path.join(serverDir, 'vfs', 'sessions')),
    vfsEphemeralDir: pathOr('vfs_ephemeral_dir', input.tmpDir),
    vfsEphemeralDirExplicit: resolver.path('vfs_ephemeral_dir') !== undefined,
    packageStoreDir: pathOr('package_store_dir', path.join(serverDir, 'packages')),
    packageFallbackDir: path.join(home, 'packages'),
    volumeDir: pathOr('volume_dir', path.join(serverDir, 'volumes')),
    codeCacheDir: pathOr('code_cache_dir', path.join(serverDir, 'cache')),
    secretStoreDir: pathOr('secret_store.dir', path.join(serverDir, 'secrets')),
  };
}

/** Directories and files no volume may overlap. */
function serverDirectories(paths: ReturnType<typeof defaultedPaths>, logging: Settings['logging'], file: ConfigFile | null) {
  return [
    { label: 'database_path directory', path: path.dirname(paths.databasePath) },
    { label: 'session_store_dir', path: paths.sessionStoreDir },
    { label: 'vfs_session_dir', path: paths.vfsSessionDir },
    // The default (OS temp dir) is exempt: the server only uses a private subdirectory there.
    ...(paths.vfsEphemeralDirExplicit ? [{ label: 'vfs_ephemeral_dir', path: paths.vfsEphemeralDir }] : []),
    { label: 'package_store_dir', path: paths.packageStoreDir },
    { label: 'volume_dir', path: paths.volumeDir },
    // The server runs the compiled code it finds there: no program may write it.
    { label: 'code_cache_dir', path: paths.codeCacheDir },
    { label: 'secret_store.dir', path: paths.secretStoreDir },
    { label: 'blueprint_dir', path: paths.blueprintDir },
    ...(logging.file ? [{ label: 'log file', path: logging.file }] : []),
    ...(logging.audit.file ? [{ label: 'audit file', path: logging.audit.file }] : []),
    ...(file ? [{ label: 'config file', path: path.resolve(file.path) }] : []),
  ].filter((p) => p.path !== ':memory:' && p.path !== '.');
}

/** Tokens from every source, and the unauthenticated mode (on when any source says so). */
function authentication({ flags, env, file, input }: Sources): { tokens: TokenEntry[]; allowUnauthenticated: boolean } {
  const envValue = env.get('SVC_ALLOW_UNAUTHENTICATED');
  const allowUnauthenticated =
    flags.booleans.has('allow-unauthenticated') || (envValue !== undefined && parseBooleanVariable(envValue)) || fileBoolean(file, 'allow_unauthenticated') === true;
  const tokens = buildTokens(parseTokenSources(file, input.env.SVC_SERVER_TOKEN));
  if (tokens.length === 0 && !allowUnauthenticated) {
    throw invalid(
      'no API token is configured, so nothing could call the server: set SVC_SERVER_TOKEN (e.g. `openssl rand -hex 32`), add `api_tokens` entries to the config file, or start with --allow-unauthenticated for local experiments',
    );
  }
  if (tokens.length > 0 && allowUnauthenticated) {
    throw invalid('allow_unauthenticated is on and tokens are configured: the server either requires a token or it does not; remove one');
  }
  return { tokens, allowUnauthenticated };
}

/** What a local `svc run` shares with the server: run limits and the outbound block. */
export interface RunSettings {
  limits: Limits;
  network: Settings['network'];
}

/**
 * The settings of a local run: `max_*` from SVC_MAX_* variables
 * and defaults, grants from `--allow-localhost`/`--allow-private`/`--allow-ip` flags and
 * SVC_ALLOW_* variables, parsed and validated exactly as the server does. No config file.
 */
export function parseRunSettings(input: Pick<CommandInput, 'argv' | 'env' | 'cwd'>): RunSettings {
  const flags = parseFlags(input.argv);
  const env = effectiveEnv(input.env);
  const resolver = new Resolver(flags, env, null, input.cwd);
  resolver.resolveAll(scalarSettings.filter((setting) => setting.key.startsWith('max_')).map((setting) => setting.key));
  return { limits: parseLimits(resolver), network: outboundGrants({ flags, env, file: null }) };
}

/** Outbound grants add up across sources; variables that contributed are remembered. */
function outboundGrants({ flags, env, file }: Pick<Sources, 'flags' | 'env' | 'file'>): Settings['network'] {
  const grantsFromEnvironment: string[] = [];
  const allowIp = new Set<string>();
  fileStringList(file, 'network.allow_ip').forEach((entry) => allowIp.add(canonicalCidr(entry, 'config `network.allow_ip`')));
  const envEntries = parseList(env.get('SVC_ALLOW_IP') ?? '');
  envEntries.forEach((entry) => allowIp.add(canonicalCidr(entry, '$SVC_ALLOW_IP')));
  if (envEntries.length > 0) grantsFromEnvironment.push('SVC_ALLOW_IP');
  splitRepeated(flags.repeated.get('allow-ip')).forEach((entry) => allowIp.add(canonicalCidr(entry, '--allow-ip')));
  const grant = (flag: string, variable: string, key: string) => {
    const raw = env.get(variable);
    const fromEnv = raw !== undefined && parseBooleanVariable(raw);
    if (fromEnv) grantsFromEnvironment.push(variable);
    return flags.booleans.has(flag) || fromEnv || fileBoolean(file, key) === true;
  };
  const allowLocalhost = grant('allow-localhost', 'SVC_ALLOW_LOCALHOST', 'network.allow_localhost');
  const allowPrivate = grant('allow-private', 'SVC_ALLOW_PRIVATE', 'network.allow_private');
  return { allowIp: [...allowIp], allowLocalhost, allowPrivate, grantsFromEnvironment, hosts: staticHosts({ flags, env, file }) };
}

/**
 * `network.hosts` entries from the file, then SVC_ADD_HOSTS, then --add-host: they add up,
 * and for a name given twice the more specific source (a flag over the variable over the
 * file; within one source the later entry) decides its address.
 */
function staticHosts({ flags, env, file }: Pick<Sources, 'flags' | 'env' | 'file'>): Record<string, string> {
  const hosts = new Map<string, string>();
  const fromFile = fileLookup(file, 'network.hosts');
  if (fromFile !== undefined) {
    for (const [name, value] of asMap(fromFile, 'network.hosts')) {
      const [host, address] = hostMapping(name, asString(value, `network.hosts.${name}`), 'config `network.hosts`');
      hosts.set(host, address);
    }
  }
  parseList(env.get('SVC_ADD_HOSTS') ?? '').forEach((entry) => hosts.set(...hostEntry(entry, '$SVC_ADD_HOSTS')));
  splitRepeated(flags.repeated.get('add-host')).forEach((entry) => hosts.set(...hostEntry(entry, '--add-host')));
  return Object.fromEntries([...hosts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function mcpAllowedHosts({ flags, env, file }: Sources): string[] {
  const hosts = new Set<string>();
  fileStringList(file, 'mcp_allowed_hosts').forEach((h) => hosts.add(canonicalMcpHost(h, 'config `mcp_allowed_hosts`')));
  parseList(env.get('SVC_MCP_ALLOWED_HOSTS') ?? '').forEach((h) => hosts.add(canonicalMcpHost(h, '$SVC_MCP_ALLOWED_HOSTS')));
  splitRepeated(flags.repeated.get('mcp-allowed-host')).forEach((h) => hosts.add(canonicalMcpHost(h, '--mcp-allowed-host')));
  return [...hosts];
}

/** `official_repository` as owner/repo (validated by its kind), or null when unset. */
function officialRepository(resolver: Resolver): Settings['officialRepository'] {
  const text = resolver.text('official_repository');
  if (text === undefined) return null;
  const [owner, repo] = text.split('/') as [string, string];
  return { owner, repo };
}

function githubTokenFile(file: ConfigFile | null): string | null {
  const value = fileLookup(file, 'github_token_file');
  if (value === undefined) return null;
  const resolved = path.resolve(file!.directory, asString(value, 'github_token_file'));
  checkGithubTokenFile(resolved);
  return resolved;
}

function loggingSettings({ resolver, env, file }: Sources, warnings: StartupWarning[]): Settings['logging'] {
  const auditValue = fileLookup(file, 'logging.audit.file');
  const auditFile = auditValue ? path.resolve(file!.directory, asString(auditValue, 'logging.audit.file')) : null;
  warnings.push(...auditFileWarnings(auditFile));
  return {
    file: resolver.path('logging.file') ?? null,
    filter: env.get('RUST_LOG') ?? null,
    audit: { enabled: fileBoolean(file, 'logging.audit.enabled') ?? true, file: auditFile, allows: allowsMode(file) },
  };
}

function parseLimits(resolver: Resolver): Limits {
  const limits = { ...limitDefaults } as Limits;
  for (const setting of scalarSettings) {
    if (!(setting.key in limitDefaults)) continue;
    const value = resolver.number(setting.key);
    if (value === undefined) continue;
    const unit = setting.kind === 'megabytes' ? ' MB' : setting.kind === 'kibibytes' ? ' KiB' : '';
    if (setting.min !== undefined && value < setting.min) throw invalid(`${setting.label} must be at least ${setting.min}${unit}, got ${value}`);
    if (setting.max !== undefined && value > setting.max) throw invalid(`${setting.label} must be at most ${setting.max}${unit}, got ${value}`);
    (limits as unknown as Record<string, number>)[setting.key] = value;
  }
  // A per-token budget left unset is the server-wide one: a single token may use all of it, as before.
  for (const [perToken, serverWide] of [
    ['max_session_state_memory_per_token', 'max_session_state_memory'],
    ['max_llm_tokens_per_token', 'max_llm_tokens'],
    ['max_embedding_tokens_per_token', 'max_embedding_tokens'],
    ['max_idempotency_token_size', 'max_idempotency_size'],
    ['max_host_calls_in_flight_per_token', 'max_server_host_calls_in_flight'],
  ] as const) {
    if (resolver.number(perToken) === undefined) limits[perToken] = limits[serverWide];
  }
  return limits;
}

/** A whole-number setting within its table range, or the fallback. */
function ranged(resolver: Resolver, key: string, fallback: number): number {
  const value = resolver.number(key);
  if (value === undefined) return fallback;
  const setting = scalarSettings.find((s) => s.key === key)!;
  const unit = setting.kind === 'megabytes' ? ' MB' : '';
  if (setting.min !== undefined && value < setting.min) throw invalid(`${setting.label} must be at least ${setting.min}${unit}, got ${value}`);
  if (setting.max !== undefined && value > setting.max) throw invalid(`${setting.label} must be at most ${setting.max}${unit}, got ${value}`);
  return value;
}

/**
 * A runner's resident MB past which it drains and is replaced (runner_memory_recycle). A
 * runner keeps about 4 KB of native memory per new program it runs (bench/PROFILE.md, round
 * 20) and sits at 250-290 MiB after warm-up with two runners: at 512 it is replaced
 * after some 60,000 new programs, and runs holding a few hundred MB at once cost a runner
 * start, not a run.
 */
const RUNNER_MEMORY_RECYCLE_MB = 512;

/**
 * The runners' nice value by default (runner_nice): the lowest priority, so the server's own
 * thread gets a core whenever it wants one while runs compute. On a quiet 2-core machine the
 * heavy attacks' worst /healthz was 76-103 ms (bodies), 52-90 (writes), 33-58 (text) and
 * 50-93 (fan-out) in four runs at 19, against 63-140 / 43-115 / 39-50 / 103-137 in three at
 * 10 and 131-166 / 112-141 / 90-97 / 149-235 in two at 0, every attack run finishing in each
 * (bench/PROFILE.md, round 34). Work-conserving: runners lose nothing while the server is
 * idle; on a machine shared with other CPU-heavy work they also yield to it (set 0 there).
 */
const RUNNER_NICE = 19;

/** Runs parked for approval at once by default: each holds tens of KB in the server and nothing in a runner (bench/approvals.ts). */
const RUNS_PARKED = 4096;

/**
 * Our extension: how many runs are in flight at once. A waiting run holds memory, not a
 * CPU, so the defaults come from the machine's memory: half of it for the runs' memory
 * limits, as many runs as fit (at least one per core, at most 1024), spread over the runners.
 */
function admission(resolver: Resolver, runMemoryMb: number, runners: number): Settings['admission'] {
  const runsMemoryMb = ranged(resolver, 'max_runs_memory', Math.max(runMemoryMb, Math.floor(os.totalmem() / 1048576 / 2)));
  const fitting = Math.floor(runsMemoryMb / runMemoryMb);
  const runsInFlight = ranged(resolver, 'max_runs_in_flight', Math.max(1, Math.min(1024, Math.max(os.availableParallelism(), fitting))));
  const runsPerRunner = ranged(resolver, 'runs_per_runner', Math.max(1, Math.ceil(runsInFlight / runners)));
  // Unset: the runner pool's default (one per core, at least 2).
  const computingRuns = resolver.number('max_computing_runs') === undefined ? null : ranged(resolver, 'max_computing_runs', 0);
  const queuedRuns = ranged(resolver, 'max_queued_runs', 1024);
  return {
    runsInFlight,
    runsMemoryMb,
    queuedRuns,
    runsInFlightPerToken: ranged(resolver, 'max_runs_in_flight_per_token', runsInFlight),
    queuedRunsPerToken: ranged(resolver, 'max_queued_runs_per_token', queuedRuns),
    runsParked: ranged(resolver, 'max_runs_parked', RUNS_PARKED),
    runsPerRunner,
    computingRuns,
  };
}

/** Our extension: runner child processes, 1 to 64, default 2. */
function sessionReapInterval(resolver: Resolver): number {
  const seconds = resolver.number('session_reap_interval') ?? 30;
  if (seconds < 1) throw invalid(`session reap interval must be at least 1 second, got ${seconds}`);
  return seconds;
}

function runnerPoolSize(resolver: Resolver): number {
  const size = resolver.number('runner_pool_size') ?? 2;
  if (size < 1 || size > 64) throw invalid(`runner pool size must be between 1 and 64, got ${size}`);
  return size;
}

/**
 * Decision: for the variable only `1` turns it on; any other non-empty value is a
 * mistake. Like the other switches it adds up: the flag, the variable or the file turns it on.
 */
function denyWarnings({ flags, env, file }: Sources): boolean {
  const raw = env.get('SVC_DENY_WARNINGS');
  if (raw !== undefined && raw !== '' && raw !== '1') throw invalid('$SVC_DENY_WARNINGS: expected `1` or unset');
  return flags.booleans.has('deny-warnings') || raw === '1' || fileBoolean(file, 'deny_warnings') === true;
}

/** `false` in the file always wins; otherwise a set variable decides; otherwise the file. */
function telemetrySetting({ file, env }: Sources, key: string, variable: string): boolean {
  const fromFile = fileBoolean(file, key);
  if (fromFile === false) return false;
  const fromEnv = env.get(variable);
  if (fromEnv !== undefined) return parseBooleanVariable(fromEnv);
  return fromFile ?? false;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Buffer.isBuffer(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
