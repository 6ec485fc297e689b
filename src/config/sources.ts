// The sources of the scalar settings (flags, SVC_* variables, config file) and the
// precedence between them: every set source is parsed, the most specific one wins.
import path from 'node:path';
import type { ParsedFlags } from './argv';
import { invalid } from './errors';
import { asBoolean, asList, asMap, asString, checkKeys, scalarText, scalarType, type ConfigFile, type FileValue } from './file';
import { fileKeys, scalarSettings, type ScalarSetting } from './schema';
import { parseCount, parseDuration, parseIp, parseList, parsePort, parseRepositoryName, parseSize, parseWhole, parseReportUrl } from './values';

type Scalar = string | number;

/** Variables that are set and non-empty (after trimming). */
export function effectiveEnv(env: Record<string, string | undefined>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value.trim() !== '') out.set(key, value.trim());
  return out;
}

export function fileLookup(file: ConfigFile | null, dotted: string): FileValue | undefined {
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
  if ((setting.kind === 'duration' || setting.kind === 'size') && type !== 'string' && type !== 'number') throw invalid(`${label}: expected ${setting.kind === 'duration' ? 'a duration such as `24h`' : 'a size such as `256MB`'}, got \`${text}\``);
  if (['ip', 'path', 'name', 'endpoint', 'url', 'repository'].includes(setting.kind) && type !== 'string') throw invalid(`${label}: expected text, got \`${text}\``);
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
    case 'endpoint':
      return parseReportUrl(raw, label);
    case 'count':
      return parseCount(raw, label);
    case 'megabytes':
      return parseWhole(raw, label, 'megabytes');
    case 'kibibytes':
      return parseWhole(raw, label, 'kibibytes');
    case 'seconds':
      return parseWhole(raw, label, 'seconds');
    case 'whole':
      // A bounded setting says its range where the text is no number at all (`-1`, `low`).
      return parseWhole(raw, label, setting.min !== undefined && setting.max !== undefined ? `units from ${setting.min} to ${setting.max}` : 'units');
    case 'url':
      return parseHttpsUrl(raw, label);
    case 'duration':
      return parseDuration(raw, label);
    case 'size': {
      const bytes = parseSize(raw, label);
      if (bytes === 'unlimited' || bytes < 1) throw invalid(`${label}: expected a size of at least 1 byte such as \`256MB\`, got \`${raw}\``);
      return bytes;
    }
    case 'repository': {
      const { owner, repo } = parseRepositoryName(raw, label);
      return `${owner}/${repo}`;
    }
  }
}

/** An https:// base URL without query or fragment; the trailing slash is dropped. */
function parseHttpsUrl(raw: string, label: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${label}: expected an https:// URL such as https://api.github.com, got \`${raw}\``);
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw invalid(`${label}: expected an https:// URL without query, fragment or credentials, such as https://api.github.com, got \`${raw}\``);
  }
  return url.toString().replace(/\/+$/, '');
}

export class Resolver {
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

export function validateFileKeys(file: ConfigFile): void {
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

export function fileBoolean(file: ConfigFile | null, key: string): boolean | undefined {
  const value = fileLookup(file, key);
  return value === undefined ? undefined : asBoolean(value, key);
}

export function fileStringList(file: ConfigFile | null, key: string): string[] {
  const value = fileLookup(file, key);
  if (value === undefined) return [];
  return asList(value, key).map((item, i) => asString(item, `${key}[${i}]`));
}

export function splitRepeated(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => parseList(v));
}
