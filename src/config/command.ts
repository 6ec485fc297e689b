// Turns the command line, environment and config file into what the process should do:
// serve (with frozen Settings), probe (--health-check), or print help/version. Everything
// is validated here, before anything is written to disk; the only file touched is the
// server log, opened for appending to prove it can be.
import fs from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseFlags, type ParsedFlags } from './argv';
import { invalid } from './errors';
import { asBoolean, asList, asMap, asString, checkKeys, readConfigFile, scalarText, scalarType, type ConfigFile, type FileValue } from './file';
import { helpText } from './help';
import { canonicalCidr, canonicalMcpHost } from './network';
import { fileKeys, limitDefaults, scalarSettings, type ScalarSetting } from './schema';
import type { AllowsMode, Limits, OAuthProvider, Settings } from './settings';
import { loadTls, PARTIAL_TLS_MESSAGE, readCertificateForProbe } from './tls';
import { buildTokens, readTokenFile, type TokenSource } from './tokens';
import { parseBooleanVariable, parseCount, parseIp, parseList, parsePort, parseWhole } from './values';
import { checkVolumeOverlaps, parseVolumes } from './volumes';

export interface HealthCheckTarget {
  host: string;
  port: number;
  tls: { certPem: Buffer } | null;
}

export interface StartupWarning {
  target: string;
  msg: string;
  fields?: Record<string, unknown>;
}

export type Command =
  | { kind: 'help'; text: string }
  | { kind: 'version'; text: string }
  | { kind: 'health-check'; target: HealthCheckTarget }
  | { kind: 'serve'; settings: Settings; warnings: StartupWarning[] };

export interface CommandInput {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  homeDir: string | null;
  tmpDir: string;
  version: string;
}

type Scalar = string | number;

/** Variables that are set and non-empty (after trimming). */
function effectiveEnv(env: Record<string, string | undefined>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value.trim() !== '') out.set(key, value.trim());
  return out;
}

function fileLookup(file: ConfigFile | null, dotted: string): FileValue | undefined {
  if (!file) return undefined;
  const [first, ...rest] = dotted.split('.');
  let value = file.root.get(first);
  for (const key of rest) {
    if (!value || value.kind !== 'map') return undefined;
    value = value.entries.get(key);
  }
  if (value && value.kind === 'scalar' && value.value === null) return undefined;
  return value;
}

const integerKinds = new Set(['port', 'megabytes', 'kibibytes', 'seconds', 'whole']);

/**
 * The text of a file scalar, after checking its YAML type: numbers other than counts must
 * be YAML integers, paths and addresses text; a count is judged as written, quoted or not.
 */
function fileScalarText(setting: ScalarSetting, value: FileValue): string {
  const label = `config \`${setting.key}\``;
  const text = scalarText(value, setting.key);
  const type = scalarType(value);
  if (integerKinds.has(setting.kind) && type !== 'number') throw invalid(`${label}: expected a whole number (a YAML integer, without quotes), got \`${text}\``);
  if (setting.kind === 'count' && type !== 'number' && type !== 'string') throw invalid(`${label}: a count is a whole number with an optional K, M, B or T suffix, got \`${text}\``);
  if (['ip', 'path', 'name'].includes(setting.kind) && type !== 'string') throw invalid(`${label}: expected text, got \`${text}\``);
  return text;
}

function parseScalar(setting: ScalarSetting, raw: string, label: string): Scalar {
  switch (setting.kind) {
    case 'ip':
      return parseIp(raw, label);
    case 'port':
      return parsePort(raw, label);
    case 'path':
      if (raw === '') throw invalid(`${label}: expected a non-empty path`);
      return raw;
    case 'name':
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)) throw invalid(`${label}: expected an environment variable name (letters, digits and \`_\`), got \`${raw}\``);
      return raw;
    case 'count':
      return parseCount(raw, label);
    case 'megabytes':
      return parseWhole(raw, label, 'megabytes');
    case 'kibibytes':
      return parseWhole(raw, label, 'kibibytes');
    case 'seconds':
      return parseWhole(raw, label, 'seconds');
    case 'whole':
      return parseWhole(raw, label, 'units');
  }
}

class Resolver {
  readonly values = new Map<string, { value: Scalar; source: 'flag' | 'env' | 'file'; base: string }>();

  constructor(
    private readonly flags: ParsedFlags,
    private readonly env: Map<string, string>,
    private readonly file: ConfigFile | null,
    private readonly cwd: string,
  ) {}

  /** Parses every source of every scalar (a bad lower source stops startup too). */
  resolveAll(only?: readonly string[]): void {
    for (const setting of scalarSettings) {
      if (only && !only.includes(setting.key)) continue;
      const fromFile = fileLookup(this.file, setting.key);
      const fileValue = fromFile ? parseScalar(setting, fileScalarText(setting, fromFile), `config \`${setting.key}\``) : undefined;
      const envRaw = this.env.get(setting.env);
      const envValue = envRaw !== undefined ? parseScalar(setting, envRaw, `$${setting.env}`) : undefined;
      const flagRaw = this.flags.values.get(setting.flag);
      const flagValue = flagRaw !== undefined ? parseScalar(setting, flagRaw, `--${setting.flag}`) : undefined;
      if (flagValue !== undefined) this.values.set(setting.key, { value: flagValue, source: 'flag', base: this.cwd });
      else if (envValue !== undefined) this.values.set(setting.key, { value: envValue, source: 'env', base: this.cwd });
      else if (fileValue !== undefined) this.values.set(setting.key, { value: fileValue, source: 'file', base: this.file!.directory });
    }
  }

  number(key: string): number | undefined {
    return this.values.get(key)?.value as number | undefined;
  }

  text(key: string): string | undefined {
    return this.values.get(key)?.value as string | undefined;
  }

  /** A path setting, resolved against the config file's directory or the working directory. */
  path(key: string): string | undefined {
    const entry = this.values.get(key);
    return entry ? path.resolve(entry.base, String(entry.value)) : undefined;
  }
}

function resolveBindAndPort(resolver: Resolver, env: Map<string, string>): { bind: string; port: number } {
  let bind = resolver.text('bind');
  let port = resolver.number('port');
  const hostRaw = env.get('HOST');
  const portRaw = env.get('PORT');
  // HOST and PORT rank below the file and are tolerated: garbage is ignored.
  const ambientHost = hostRaw !== undefined && /^[0-9a-fA-F.:]+$/.test(hostRaw) ? safe(() => parseIp(hostRaw, 'HOST')) : undefined;
  const ambientPort = portRaw !== undefined ? safe(() => parsePort(portRaw, 'PORT')) : undefined;
  if (bind === undefined) bind = ambientHost ?? (portRaw !== undefined ? '0.0.0.0' : '127.0.0.1');
  if (port === undefined) port = ambientPort ?? 8128;
  return { bind, port };
}

/**
 * Health-check mode reads only what the probe needs: the address and the certificate. It
 * never touches token files or the store key and writes nothing.
 */
function healthCheckTarget(resolver: Resolver, env: Map<string, string>): HealthCheckTarget {
  resolver.resolveAll(['bind', 'port', 'tls.cert_file', 'tls.key_file']);
  const { bind, port } = resolveBindAndPort(resolver, env);
  const certFile = resolver.path('tls.cert_file') ?? null;
  const keyFile = resolver.path('tls.key_file') ?? null;
  if ((certFile === null) !== (keyFile === null)) throw invalid(PARTIAL_TLS_MESSAGE);
  return { host: probeHost(bind), port, tls: certFile !== null ? { certPem: readCertificateForProbe(certFile) } : null };
}

/** A wildcard bind is probed on the loopback address of its family. */
function probeHost(bind: string): string {
  const address = ipaddr.parse(bind.split('%')[0]);
  if (address.range() !== 'unspecified') return bind;
  return address.kind() === 'ipv4' ? '127.0.0.1' : '::1';
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

function validateFileKeys(file: ConfigFile): void {
  checkKeys(file.root, fileKeys.top, '');
  const nested: Array<[string, readonly string[]]> = [
    ['tls', fileKeys.tls],
    ['secret_store', fileKeys.secret_store],
    ['network', fileKeys.network],
    ['logging', fileKeys.logging],
    ['mcp_oauth', fileKeys.mcp_oauth],
  ];
  for (const [key, accepted] of nested) {
    const value = file.root.get(key);
    if (value && !(value.kind === 'scalar' && value.value === null)) checkKeys(asMap(value, key), accepted, key);
  }
  const audit = fileLookup(file, 'logging.audit');
  if (audit) checkKeys(asMap(audit, 'logging.audit'), fileKeys['logging.audit'], 'logging.audit');
}

function fileBoolean(file: ConfigFile | null, key: string): boolean | undefined {
  const value = fileLookup(file, key);
  return value === undefined ? undefined : asBoolean(value, key);
}

function fileStringList(file: ConfigFile | null, key: string): string[] {
  const value = fileLookup(file, key);
  if (value === undefined) return [];
  return asList(value, key).map((item, i) => asString(item, `${key}[${i}]`));
}

function splitRepeated(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => parseList(v));
}

function homeDirectory(env: Map<string, string>, input: CommandInput, warnings: StartupWarning[]): string {
  const fromEnv = env.get('SVC_HOME');
  if (fromEnv) return path.resolve(input.cwd, fromEnv);
  if (input.homeDir) return path.join(input.homeDir, '.svc');
  const fallback = path.join(input.tmpDir, 'svc-home');
  warnings.push({ target: 'svc_server::config', msg: 'no home directory could be determined; using a directory under the OS temp dir', fields: { home: fallback } });
  return fallback;
}

function parseLimits(resolver: Resolver): Limits {
  const limits = { ...limitDefaults } as Limits;
  for (const setting of scalarSettings) {
    if (!setting.key.startsWith('max_')) continue;
    const value = resolver.number(setting.key);
    if (value === undefined) continue;
    const unit = setting.kind === 'megabytes' ? ' MB' : setting.kind === 'kibibytes' ? ' KiB' : '';
    if (setting.min !== undefined && value < setting.min) throw invalid(`${setting.label} must be at least ${setting.min}${unit}, got ${value}`);
    if (setting.max !== undefined && value > setting.max) throw invalid(`${setting.label} must be at most ${setting.max}${unit}, got ${value}`);
    (limits as unknown as Record<string, number>)[setting.key] = value;
  }
  return limits;
}

function readStoreKey(resolver: Resolver, env: Map<string, string>): Buffer | null {
  const keyFile = resolver.path('secret_store.key_file');
  const keyEnv = resolver.text('secret_store.key_env') ?? 'SVC_SECRET_KEY';
  let text: string;
  let origin: string;
  if (keyFile !== undefined) {
    try {
      text = fs.readFileSync(keyFile, 'utf8');
    } catch (error) {
      throw invalid(`cannot read the secret store key file ${keyFile}: ${(error as Error).message}`);
    }
    origin = `secret store key file ${keyFile}`;
  } else {
    const value = env.get(keyEnv);
    if (value === undefined) return null;
    text = value;
    origin = `secret store key in $${keyEnv}`;
  }
  return decodeStoreKey(text.trim(), origin);
}

/** Standard base64, padding optional, of exactly 32 bytes; never echoes the value. */
function decodeStoreKey(text: string, origin: string): Buffer {
  const expected = `${origin}: expected base64 of exactly 32 bytes (create one with \`openssl rand -base64 32\`)`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw invalid(expected);
  const key = Buffer.from(text, 'base64');
  // Buffer.from ignores stray trailing bits; a key must round-trip to the same text.
  if (key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) throw invalid(expected);
  if (key.length !== 32) throw invalid(`${expected}, got ${key.length} bytes`);
  return key;
}

/** `match` is a host compared without port: `auth.example.com` (a port given is dropped). */
function providerHost(raw: string, where: string): string {
  const text = raw.trim().toLowerCase();
  const host = /^\[([0-9a-f:.]+)\](?::[0-9]{1,5})?$/.exec(text)?.[1] ?? /^([a-z0-9.-]+)(?::[0-9]{1,5})?$/.exec(text)?.[1];
  if (host === undefined || host === '' || (text.startsWith('[') && !ipaddr.IPv6.isValid(host))) {
    throw invalid(`config \`${where}\`: expected the host of an authorization server (e.g. \`github.com\`), got \`${raw}\``);
  }
  return host;
}

function parseOAuthProviders(file: ConfigFile | null): OAuthProvider[] {
  const value = fileLookup(file, 'mcp_oauth.providers');
  if (value === undefined) return [];
  const providers: OAuthProvider[] = [];
  const seen = new Set<string>();
  asList(value, 'mcp_oauth.providers').forEach((item, i) => {
    const where = `mcp_oauth.providers[${i}]`;
    const fields = asMap(item, where);
    checkKeys(fields, fileKeys.provider, where);
    if (!fields.has('match')) throw invalid(`config \`${where}\`: \`match\` is required (the authorization server's host)`);
    if (!fields.has('client_id')) throw invalid(`config \`${where}\`: \`client_id\` is required`);
    const match = providerHost(asString(fields.get('match')!, `${where}.match`), `${where}.match`);
    const clientId = asString(fields.get('client_id')!, `${where}.client_id`);
    if (clientId.trim() === '') throw invalid(`config \`${where}.client_id\`: expected a non-empty client id`);
    if (seen.has(match)) throw invalid(`config \`${where}\`: another provider already matches \`${match}\``);
    seen.add(match);
    const clientSecret = fields.has('client_secret') ? asString(fields.get('client_secret')!, `${where}.client_secret`) : undefined;
    if (clientSecret !== undefined && clientSecret.startsWith('${') && !/^\$\{(env|secrets)\.[^}]+\}$/.test(clientSecret)) {
      throw invalid(`config \`${where}.client_secret\`: expected a literal, \`\${env.VAR}\` or \`\${secrets.KEY}\``);
    }
    const scopes = fields.has('scopes') ? asList(fields.get('scopes')!, `${where}.scopes`).map((s, j) => asString(s, `${where}.scopes[${j}]`)) : [];
    providers.push({ match, clientId, ...(clientSecret !== undefined ? { clientSecret } : {}), scopes });
  });
  return providers;
}

function parseTokenSources(file: ConfigFile | null, env: Map<string, string>, rawEnv: Record<string, string | undefined>): TokenSource[] {
  const sources: TokenSource[] = [];
  const serverToken = rawEnv.SVC_SERVER_TOKEN;
  if (serverToken !== undefined && serverToken.trim() !== '') {
    // The environment hands Node invalid UTF-8 as U+FFFD; such a token could never be presented.
    if (serverToken.includes('\uFFFD')) throw invalid('SVC_SERVER_TOKEN is not valid text; use letters, digits and `- . _ ~ + /`');
    sources.push({ name: 'SVC_SERVER_TOKEN', role: 'admin', origin: 'SVC_SERVER_TOKEN', value: serverToken.trim() });
  }
  const value = fileLookup(file, 'api_tokens');
  if (value !== undefined) {
    asList(value, 'api_tokens').forEach((item, i) => {
      const where = `api_tokens[${i}]`;
      const fields = asMap(item, where);
      checkKeys(fields, fileKeys.token, where);
      for (const key of fileKeys.token) if (!fields.has(key)) throw invalid(`config \`${where}\`: \`${key}\` is required`);
      const name = asString(fields.get('name')!, `${where}.name`);
      const tokenFile = path.resolve(file!.directory, asString(fields.get('token_file')!, `${where}.token_file`));
      const origin = `config \`${where}\` (${name})`;
      sources.push({ name, role: asString(fields.get('role')!, `${where}.role`), origin, value: readTokenFile(tokenFile, origin) });
    });
  }
  void env;
  return sources;
}

function checkLogFile(file: string): void {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && !stat.isFile()) throw new Error('not a regular file');
    fs.closeSync(fs.openSync(file, 'a'));
  } catch (error) {
    throw invalid(`cannot open server log ${file}: ${(error as Error).message}`);
  }
}

/**
 * The audit file is not a startup condition (each record retries the open), but an
 * operator should hear at once when it cannot work. Checked without creating anything.
 */
function auditFileWarnings(auditFile: string | null): StartupWarning[] {
  if (auditFile === null) return [];
  const stat = fs.statSync(auditFile, { throwIfNoEntry: false });
  let problem: string | null = null;
  if (stat && !stat.isFile()) problem = 'not a regular file';
  else if (!stat && !fs.statSync(path.dirname(auditFile), { throwIfNoEntry: false })?.isDirectory()) problem = 'its directory does not exist';
  if (problem === null) return [];
  return [{ target: 'svc_server::config', msg: 'audit file cannot be opened yet; each audit record will retry', fields: { file: auditFile, reason: problem } }];
}

function allowsMode(file: ConfigFile | null): AllowsMode {
  const value = fileLookup(file, 'logging.audit.allows');
  if (value === undefined) return 'summary';
  const text = asString(value, 'logging.audit.allows');
  if (text !== 'summary' && text !== 'all' && text !== 'none') throw invalid(`config \`logging.audit.allows\`: expected \`summary\`, \`all\` or \`none\`, got \`${text}\``);
  return text;
}

function telemetrySetting(file: ConfigFile | null, env: Map<string, string>, key: string, variable: string): boolean {
  const fromFile = fileBoolean(file, key);
  if (fromFile === false) return false;
  const fromEnv = env.get(variable);
  if (fromEnv !== undefined) return parseBooleanVariable(fromEnv);
  return fromFile ?? false;
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
  const { bind, port } = resolveBindAndPort(resolver, env);

  const warnings: StartupWarning[] = [];
  const home = homeDirectory(env, input, warnings);
  const serverDir = path.join(home, 'server');
  const pathOr = (key: string, fallback: string) => resolver.path(key) ?? fallback;
  const databaseRaw = resolver.text('database_path');
  const paths = {
    databasePath: databaseRaw === ':memory:' ? ':memory:' : pathOr('database_path', path.join(serverDir, 'db', 'svc.db')),
    blueprintDir: pathOr('blueprint_dir', path.join(serverDir, 'blueprints')),
    sessionStoreDir: pathOr('session_store_dir', path.join(serverDir, 'sessions')),
    vfsSessionDir: pathOr('vfs_session_dir', path.join(serverDir, 'vfs', 'sessions')),
    vfsEphemeralDir: pathOr('vfs_ephemeral_dir', input.tmpDir),
    vfsEphemeralDirExplicit: resolver.path('vfs_ephemeral_dir') !== undefined,
    packageStoreDir: pathOr('package_store_dir', path.join(serverDir, 'packages')),
    packageFallbackDir: path.join(home, 'packages'),
    volumeDir: pathOr('volume_dir', path.join(serverDir, 'volumes')),
  };
  const secretStoreDir = pathOr('secret_store.dir', path.join(serverDir, 'secrets'));

  // Outbound grants add up across sources; remember which variables contributed.
  const grantsFromEnvironment: string[] = [];
  const allowIp = new Set<string>();
  fileStringList(file, 'network.allow_ip').forEach((entry) => allowIp.add(canonicalCidr(entry, 'config `network.allow_ip`')));
  const envAllowIp = env.get('SVC_ALLOW_IP');
  if (envAllowIp !== undefined) {
    const entries = parseList(envAllowIp);
    entries.forEach((entry) => allowIp.add(canonicalCidr(entry, '$SVC_ALLOW_IP')));
    if (entries.length > 0) grantsFromEnvironment.push('SVC_ALLOW_IP');
  }
  splitRepeated(flags.repeated.get('allow-ip')).forEach((entry) => allowIp.add(canonicalCidr(entry, '--allow-ip')));
  const envGrant = (variable: string) => {
    const raw = env.get(variable);
    const on = raw !== undefined && parseBooleanVariable(raw);
    if (on) grantsFromEnvironment.push(variable);
    return on;
  };
  const allowLocalhost = [flags.booleans.has('allow-localhost'), envGrant('SVC_ALLOW_LOCALHOST'), fileBoolean(file, 'network.allow_localhost') === true].some(Boolean);
  const allowPrivate = [flags.booleans.has('allow-private'), envGrant('SVC_ALLOW_PRIVATE'), fileBoolean(file, 'network.allow_private') === true].some(Boolean);

  const mcpHosts = new Set<string>();
  fileStringList(file, 'mcp_allowed_hosts').forEach((h) => mcpHosts.add(canonicalMcpHost(h, 'config `mcp_allowed_hosts`')));
  parseList(env.get('SVC_MCP_ALLOWED_HOSTS') ?? '').forEach((h) => mcpHosts.add(canonicalMcpHost(h, '$SVC_MCP_ALLOWED_HOSTS')));
  splitRepeated(flags.repeated.get('mcp-allowed-host')).forEach((h) => mcpHosts.add(canonicalMcpHost(h, '--mcp-allowed-host')));

  const envUnauthenticated = env.get('SVC_ALLOW_UNAUTHENTICATED');
  const allowUnauthenticated =
    flags.booleans.has('allow-unauthenticated') || (envUnauthenticated !== undefined && parseBooleanVariable(envUnauthenticated)) || fileBoolean(file, 'allow_unauthenticated') === true;

  const denyRaw = env.get('SVC_DENY_WARNINGS');
  if (denyRaw !== undefined && denyRaw !== '1') throw invalid('$SVC_DENY_WARNINGS: expected `1` or unset');

  const limits = parseLimits(resolver);
  const shutdownGrace = resolver.number('shutdown_grace') ?? 5;
  const runnerPoolSize = resolver.number('runner_pool_size') ?? 2;
  if (runnerPoolSize < 1 || runnerPoolSize > 64) throw invalid(`runner pool size must be between 1 and 64, got ${runnerPoolSize}`);

  const tokens = buildTokens(parseTokenSources(file, env, input.env));
  if (tokens.length === 0 && !allowUnauthenticated) {
    throw invalid(
      'no API token is configured, so nothing could call the server: set SVC_SERVER_TOKEN (e.g. `openssl rand -hex 32`), add `api_tokens` entries to the config file, or start with --allow-unauthenticated for local experiments',
    );
  }
  if (tokens.length > 0 && allowUnauthenticated) {
    throw invalid('allow_unauthenticated is on and tokens are configured: the server either requires a token or it does not; remove one');
  }

  const tls = loadTls(resolver.path('tls.cert_file') ?? null, resolver.path('tls.key_file') ?? null);
  const storeKey = readStoreKey(resolver, env);
  const volumes = parseVolumes(file?.root.get('volumes'), paths.volumeDir);

  const githubTokenValue = fileLookup(file, 'github_token_file');
  const githubTokenFile = githubTokenValue ? path.resolve(file!.directory, asString(githubTokenValue, 'github_token_file')) : null;
  if (githubTokenFile !== null) readTokenLike(githubTokenFile);

  const logFile = resolver.path('logging.file') ?? null;
  const auditFileValue = fileLookup(file, 'logging.audit.file');
  const auditFile = auditFileValue ? path.resolve(file!.directory, asString(auditFileValue, 'logging.audit.file')) : null;

  const serverPaths = [
    { label: 'database_path directory', path: path.dirname(paths.databasePath) },
    { label: 'session_store_dir', path: paths.sessionStoreDir },
    { label: 'vfs_session_dir', path: paths.vfsSessionDir },
    ...(paths.vfsEphemeralDirExplicit ? [{ label: 'vfs_ephemeral_dir', path: paths.vfsEphemeralDir }] : []),
    { label: 'package_store_dir', path: paths.packageStoreDir },
    { label: 'volume_dir', path: paths.volumeDir },
    { label: 'secret_store.dir', path: secretStoreDir },
    { label: 'blueprint_dir', path: paths.blueprintDir },
    ...(logFile ? [{ label: 'log file', path: logFile }] : []),
    ...(auditFile ? [{ label: 'audit file', path: auditFile }] : []),
    ...(file ? [{ label: 'config file', path: path.resolve(file.path) }] : []),
  ].filter((p) => p.path !== ':memory:' && p.path !== '.');
  checkVolumeOverlaps(volumes, serverPaths);

  const telemetry = telemetrySetting(file, env, 'telemetry', 'SVC_TELEMETRY');
  const telemetryIncludeSource = telemetrySetting(file, env, 'telemetry_include_source', 'SVC_TELEMETRY_INCLUDE_SOURCE');
  warnings.push(...auditFileWarnings(auditFile));

  const settings: Settings = {
    home,
    configFile: file ? path.resolve(file.path) : null,
    bind,
    port,
    tls,
    tokens,
    allowUnauthenticated,
    mcpAllowedHosts: [...mcpHosts],
    mcpOAuthProviders: parseOAuthProviders(file),
    githubTokenFile,
    paths,
    secretStore: { dir: secretStoreDir, key: storeKey },
    volumes,
    network: { allowIp: [...allowIp], allowLocalhost, allowPrivate, grantsFromEnvironment },
    limits,
    denyWarnings: denyRaw === '1',
    telemetry,
    // Attaching source only means something when reports are made at all.
    telemetryIncludeSource: telemetry && telemetryIncludeSource,
    logging: {
      file: logFile,
      filter: env.get('RUST_LOG') ?? null,
      audit: { enabled: fileBoolean(file, 'logging.audit.enabled') ?? true, file: auditFile, allows: allowsMode(file) },
    },
    shutdownGraceSeconds: shutdownGrace,
    runnerPoolSize,
  };
  // Last: the log file is the one thing preflight may create.
  if (logFile !== null) checkLogFile(logFile);
  return { kind: 'serve', settings: deepFreeze(settings), warnings };
}

function readTokenLike(file: string): void {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(`github_token_file ${file}: ${(error as Error).message}`);
  }
  if (text.trim() === '') throw invalid(`github_token_file ${file} is empty`);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Buffer.isBuffer(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}
