// Argument normalisers: each reads a caller value once and returns a checked copy, or throws
// GitHubError `invalid_argument` naming the field and what it accepts (before any check).
import { invalidArgument } from "./errors";

/** A repository as callers name it. */
export interface RepositoryRef {
  /** Owner login (user or organisation). */
  owner: string;
  /** Repository name. */
  name: string;
}

/** The normalised repository: lower-cased owner and name, as checks and URLs use them. */
export interface Repo {
  owner: string;
  repo: string;
}

const OWNER = /^[a-z0-9](?:[a-z0-9-]{0,38})$/;
const NAME = /^[a-z0-9._-]{1,100}$/;

export function repository(value: unknown, field = "repository"): Repo {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalidArgument(`${field}: expected an object {owner, name}, e.g. {owner: "octocat", name: "hello-world"}`);
  const source = value as Record<string, unknown>;
  const owner = source.owner;
  const name = source.name;
  if (typeof owner !== "string" || !OWNER.test(owner.trim().toLowerCase())) throw invalidArgument(`${field}.owner: expected a GitHub login (letters, digits and hyphens, at most 39 characters)`);
  if (typeof name !== "string" || !NAME.test(name.trim().toLowerCase()) || name.trim() === "." || name.trim() === "..") throw invalidArgument(`${field}.name: expected a repository name (letters, digits, '.', '_' and '-', at most 100 characters)`);
  return { owner: owner.trim().toLowerCase(), repo: name.trim().toLowerCase() };
}

/** `repos/<owner>/<repo>` for URLs. */
export function repoPath(r: Repo): string {
  return `repos/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.repo)}`;
}

export function login(value: unknown, field: string): string {
  if (typeof value !== "string" || !OWNER.test(value.trim().toLowerCase())) throw invalidArgument(`${field}: expected a GitHub login (letters, digits and hyphens, at most 39 characters)`);
  return value.trim().toLowerCase();
}

export function slug(value: unknown, field: string): string {
  if (typeof value !== "string" || !/^[a-z0-9][a-z0-9._-]{0,99}$/.test(value.trim().toLowerCase())) throw invalidArgument(`${field}: expected a team slug (lower-case letters, digits, '.', '_' and '-')`);
  return value.trim().toLowerCase();
}

export function issueNumber(value: unknown, field = "number"): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) throw invalidArgument(`${field}: expected a positive whole number (an issue or pull request number)`);
  return value;
}

/** A git ref name component list (branch names may contain '/'); no '.', '..' or empty parts. */
export function branchName(value: unknown, field = "branch"): string {
  if (typeof value !== "string") throw invalidArgument(`${field}: expected a branch name such as "main" or "feature/x"`);
  const name = value.trim().replace(/^refs\/heads\//, "");
  const bad =
    name === "" || name.length > 250 || name.startsWith("/") || name.endsWith("/") || name.endsWith(".lock") || name.endsWith(".") ||
    name.includes("..") || name.includes("//") || name.includes("@{") || /[\x00-\x20~^:?*[\\\x7f]/.test(name) ||
    name.split("/").some((part) => part.startsWith("."));
  if (bad) throw invalidArgument(`${field}: "${value}" is not a valid branch name (no spaces, '..', '~', '^', ':', '?', '*', '[', '\\', and no part starting with '.')`);
  return name;
}

/** A commit SHA or ref name (branch, tag) as GitHub accepts in `ref` parameters. */
export function refName(value: unknown, field = "ref"): string {
  if (typeof value !== "string") throw invalidArgument(`${field}: expected a branch, tag or commit SHA`);
  const ref = value.trim();
  if (/^[0-9a-fA-F]{4,64}$/.test(ref)) return ref.toLowerCase();
  return branchName(ref, field);
}

export function sha(value: unknown, field: string): string {
  if (typeof value !== "string" || !/^[0-9a-fA-F]{40}$|^[0-9a-fA-F]{64}$/.test(value.trim())) throw invalidArgument(`${field}: expected a full commit SHA (40 hexadecimal characters)`);
  return value.trim().toLowerCase();
}

/** A file path inside a repository: no leading '/', no '.', '..' or empty parts. Root is "". */
export function filePath(value: unknown, field = "path", allowRoot = false): string {
  if (typeof value !== "string") throw invalidArgument(`${field}: expected a path inside the repository such as "src/index.ts"`);
  const path = value.trim().replace(/^\/+/, "").replace(/\/+$/, "");
  if (path === "") {
    if (allowRoot) return "";
    throw invalidArgument(`${field}: expected a path inside the repository such as "src/index.ts" (not empty)`);
  }
  if (path.length > 4096 || path.split("/").some((part) => part === "" || part === "." || part === "..") || /[\x00]/.test(path)) throw invalidArgument(`${field}: "${value}" is not a path inside the repository (no '.', '..' or empty parts)`);
  return path;
}

/** Each '/'-separated part percent-encoded (branch names and paths in URLs). */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** Optional options object: null/undefined → {}. */
export function options(value: unknown, field = "options"): Record<string, unknown> {
  if (value == null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalidArgument(`${field}: expected an object or nothing`);
  return value as Record<string, unknown>;
}

export function optionalString(value: unknown, field: string, max = 65536): string | null {
  if (value == null) return null;
  if (typeof value !== "string" || value.length > max) throw invalidArgument(`${field}: expected a string of at most ${max} characters`);
  return value;
}

export function requiredString(value: unknown, field: string, max = 65536): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > max) throw invalidArgument(`${field}: expected a non-empty string of at most ${max} characters`);
  return value;
}

export function optionalBoolean(value: unknown, field: string): boolean | null {
  if (value == null) return null;
  if (typeof value !== "boolean") throw invalidArgument(`${field}: expected true or false`);
  return value;
}

export function optionalEnum<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | null {
  if (value == null) return null;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) throw invalidArgument(`${field}: expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
  return value as T;
}

export function stringList(value: unknown, field: string, max = 100): string[] | null {
  if (value == null) return null;
  if (!Array.isArray(value) || value.length > max || value.some((v) => typeof v !== "string" || v.trim() === "" || v.length > 256)) throw invalidArgument(`${field}: expected an array of at most ${max} non-empty strings`);
  return value.map((v: string) => v.trim());
}

/** `perPage` (1–100, default 30) and `pageToken` of list options. */
export function paging(o: Record<string, unknown>): { perPage: number; pageToken: string | null } {
  const perPage = o.perPage ?? 30;
  if (typeof perPage !== "number" || !Number.isInteger(perPage) || perPage < 1 || perPage > 100) throw invalidArgument("options.perPage: expected a whole number from 1 to 100");
  const token = o.pageToken ?? null;
  if (token !== null && typeof token !== "string") throw invalidArgument("options.pageToken: expected the nextPageToken string of a previous page");
  return { perPage, pageToken: token };
}

/** An ISO date (YYYY-MM-DD) or date-time, for search qualifiers. */
export function isoDate(value: unknown, field: string): string | null {
  if (value == null) return null;
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.test(value.trim()) || Number.isNaN(Date.parse(value.trim()))) throw invalidArgument(`${field}: expected an ISO date such as "2024-05-01" or "2024-05-01T12:00:00Z"`);
  return value.trim();
}

/** A search query: non-empty text without characters that would end it early. */
export function searchQuery(value: unknown, field = "query"): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > 256) throw invalidArgument(`${field}: expected non-empty search text of at most 256 characters`);
  return value.trim();
}

/** Boolean OR as a word of its own (GitHub only treats the upper-case word as the operator). */
const OR_WORD = /(?<![A-Za-z0-9_:.-])OR(?![A-Za-z0-9_:.-])/;
/** Qualifiers that would leave a single repository (or cross the issue/pull-request grants). */
const LEAVING = /(^|[\s(-])(repo|org|user|owner|type):|(^|[\s(-])is:(issue|pr|pull-request)\b/i;
/** Qualifiers a cross-repository search sets itself from its checked fields. */
const OVERRIDING = /(^|[\s(-])(author|created|type):|(^|[\s(-])is:(issue|pr|pull-request)\b/i;

function refuse(query: string, pattern: RegExp): string | null {
  const match = pattern.exec(query) ?? OR_WORD.exec(query);
  return match ? match[0].trim() : null;
}

/** Refuses repository-leaving syntax in a repository-scoped search. */
export function scopedQuery(value: unknown, field = "query"): string {
  const query = searchQuery(value, field);
  const found = refuse(query, LEAVING);
  if (found) throw invalidArgument(`${field}: "${found}" is not allowed in a repository-scoped search (repo:, org:, user:, owner:, type:, is:issue, is:pr and OR would leave the repository); use the cross-repository search for broader queries`);
  return query;
}

/** Refuses syntax that would override the cross-repository search's checked fields. */
export function crossQuery(value: unknown, field = "query"): string {
  const query = searchQuery(value, field);
  const found = refuse(query, OVERRIDING);
  if (found) throw invalidArgument(`${field}: "${found}" is not allowed here; pass author, createdSince and createdUntil as options (author:, created:, type:, is:issue, is:pr and OR are refused)`);
  return query;
}
