// API tokens: SVC_SERVER_TOKEN (admin) and `api_tokens` entries read from files. Only
// SHA-256 digests are kept; every refusal names the entry, never the token.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { invalid } from './errors';
import { asList, asMap, asString, checkKeys, type ConfigFile } from './file';
import { fileKeys } from './schema';
import { fileLookup } from './sources';
import type { Role, TokenEntry } from './settings';

const TOKEN_ALPHABET = /^[A-Za-z0-9\-._~+/]+=*$/;

export interface TokenSource {
  name: string;
  role: string;
  /** Where the value came from, for messages: `SVC_SERVER_TOKEN` or `api_tokens[1] (token_file /x)`. */
  origin: string;
  value: string;
}

export function readTokenFile(file: string, origin: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(`${origin}: cannot read token file: ${(error as Error).message}`);
  }
  const value = text.trim();
  if (value === '') throw invalid(`${origin}: token file is empty`);
  return value;
}

function checkFormat(source: TokenSource): void {
  const unpadded = source.value.replace(/=+$/, '');
  if (!TOKEN_ALPHABET.test(source.value)) {
    throw invalid(`${source.origin}: the token has a character outside letters, digits and \`- . _ ~ + /\` (with optional trailing \`=\`)`);
  }
  if (unpadded.length < 32) {
    throw invalid(`${source.origin}: the token is ${unpadded.length} characters long, not counting \`=\` padding; use at least 32 (e.g. \`openssl rand -hex 32\`)`);
  }
}

function checkName(source: TokenSource): void {
  if (source.name.trim() === '' || /[\u0000-\u001f\u007f]/.test(source.name)) {
    throw invalid(`${source.origin}: a token name must be non-empty text without control characters or line breaks`);
  }
}

export function buildTokens(sources: TokenSource[]): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const names = new Set<string>();
  const digests = new Map<string, string>();
  for (const source of sources) {
    checkName(source);
    if (source.role !== 'admin' && source.role !== 'user') {
      throw invalid(`${source.origin}: role must be \`admin\` or \`user\`, got \`${source.role}\``);
    }
    checkFormat(source);
    if (names.has(source.name)) throw invalid(`${source.origin}: token name \`${source.name}\` is used twice; names must be unique`);
    names.add(source.name);
    const digest = createHash('sha256').update(source.value, 'utf8').digest();
    const key = digest.toString('hex');
    if (digests.has(key)) throw invalid(`${source.origin}: holds the same token as ${digests.get(key)}; every entry needs its own token`);
    digests.set(key, source.origin);
    entries.push({ name: source.name, role: source.role as Role, digest });
  }
  return entries;
}

/** SVC_SERVER_TOKEN (admin) first, then each `api_tokens` entry with its file read. */
export function parseTokenSources(file: ConfigFile | null, serverToken: string | undefined): TokenSource[] {
  const sources: TokenSource[] = [];
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
  return sources;
}

/** `github_token_file` must exist and be non-empty at startup (it is re-read per install). */
export function checkGithubTokenFile(file: string): void {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(`github_token_file ${file}: ${(error as Error).message}`);
  }
  if (text.trim() === '') throw invalid(`github_token_file ${file} is empty`);
}
