// Value parsers for every setting type. Each takes the raw text
// and the label of its source (`$SVC_PORT`, `--port`, config `port`) for the message.
import net from 'node:net';
import { invalid } from './errors';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export function parseCount(raw: string, label: string): number {
  const fail = () => invalid(`${label}: a count is a whole number with an optional K, M, B or T suffix, got \`${raw}\``);
  const match = /^([0-9](?:_?[0-9])*)([kKmMbBtT]?)$/.exec(raw);
  if (!match) throw fail();
  const digits = BigInt(match[1].replaceAll('_', ''));
  const multiplier = { '': 1n, k: 1_000n, m: 1_000_000n, b: 1_000_000_000n, t: 1_000_000_000_000n }[match[2].toLowerCase() as '' | 'k'];
  const value = digits * multiplier;
  if (value > BigInt(MAX_SAFE)) throw fail();
  return Number(value);
}

export function parseWhole(raw: string, label: string, what: string): number {
  if (!/^[0-9]+$/.test(raw)) throw invalid(`${label}: expected a whole number of ${what}, got \`${raw}\``);
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw invalid(`${label}: expected a whole number of ${what}, got \`${raw}\``);
  return value;
}

export function parsePort(raw: string, label: string): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) > 65535) throw invalid(`${label}: expected a port number, got \`${raw}\``);
  return Number(raw);
}

export function parseIp(raw: string, label: string): string {
  if (net.isIP(raw) === 0) throw invalid(`${label}: expected an IP address, got \`${raw}\``);
  return raw;
}

/**
 * An endpoint the server itself sends reports to: `https:` (plain `http:` only to a
 * loopback host), no user name or password in it (credentials would end up in logs).
 */
export function parseReportUrl(raw: string, label: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${label}: expected an https:// URL, got \`${raw}\``);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || /^127\./.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw invalid(`${label}: expected an https:// URL (http:// only to a loopback host), got \`${raw}\``);
  if (url.username || url.password) throw invalid(`${label}: the URL must not carry a user name or password`);
  return url.href;
}

/** A repository on the code host as `owner/repo` (GitHub's rules for both names); the case is kept. */
export function parseRepositoryName(raw: string, label: string): { owner: string; repo: string } {
  const match = /^([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38})\/([A-Za-z0-9._-]{1,100})$/.exec(raw.trim());
  if (!match || match[2] === '.' || match[2] === '..') throw invalid(`${label}: expected a repository as owner/repo (e.g. acme/svc), got \`${raw}\``);
  return { owner: match[1], repo: match[2].replace(/\.git$/i, '') };
}

export function parseBooleanVariable(raw: string): boolean {
  return ['1', 'true', 'yes', 'on'].includes(raw.trim().toLowerCase());
}

export function parseList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A duration such as `24h`, `90m`, `30s` or `7d` (a whole number and one unit), in milliseconds; at least one second. */
export function parseDuration(raw: string, label: string): number {
  const match = /^([0-9]+)([smhdSMHD])$/.exec(raw.trim());
  if (!match) throw invalid(`${label}: expected a duration such as \`24h\`, \`90m\`, \`30s\` or \`7d\` (a whole number and one unit), got \`${raw}\``);
  const ms = Number(match[1]) * DURATION_UNITS[match[2].toLowerCase()] * 1000;
  if (!Number.isSafeInteger(ms)) throw invalid(`${label}: duration \`${raw}\` is too long`);
  if (ms < 1000) throw invalid(`${label}: a duration must be at least 1s, got \`${raw}\``);
  return ms;
}

/** A size such as `500MB` (binary units) or `unlimited`. */
export function parseSize(raw: string, label: string): number | 'unlimited' {
  if (raw === 'unlimited') return 'unlimited';
  const size = sizeInBytes(raw);
  if (size.kind === 'syntax' || size.kind === 'unit') throw invalid(`${label}: expected a size such as \`500MB\` or \`unlimited\`, got \`${raw}\``);
  if (size.kind === 'overflow') throw invalid(`${label}: size \`${raw}\` is too large`);
  return size.bytes;
}

/** Bytes per size unit (binary; the unit is case-insensitive, none means bytes). */
const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4, tib: 1024 ** 4 };

/** A size read by sizeInBytes: its bytes, or what is wrong with it (each caller words its own error). */
export type SizeReading = { kind: 'bytes'; bytes: number } | { kind: 'syntax' } | { kind: 'unit'; unit: string } | { kind: 'overflow' };

/**
 * A whole number with an optional binary unit (`500MB`, `2 GiB`, `1024`), surrounding
 * space ignored: the size syntax of the settings and of Blueprints' `size_limit`.
 */
export function sizeInBytes(raw: string): SizeReading {
  const match = /^([0-9]+)\s*([A-Za-z]*)$/.exec(raw.trim());
  if (!match) return { kind: 'syntax' };
  const unit = Object.hasOwn(SIZE_UNITS, match[2].toLowerCase()) ? SIZE_UNITS[match[2].toLowerCase()] : undefined;
  if (unit === undefined) return { kind: 'unit', unit: match[2] };
  const bytes = Number(match[1]) * unit;
  return Number.isSafeInteger(bytes) ? { kind: 'bytes', bytes } : { kind: 'overflow' };
}
