// Argument checks of @svc/notion: each returns the normalised value or throws
// NotionError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request. The checks every curated Package shares come from @svc/kit.
import { argumentChecks } from "@svc/kit";
import { NotionError } from "./client";

/** Options of the paged lists. */
export interface PageOptions {
  /** Items per page, 1 to 100. */
  pageSize?: number | null;
  /** `nextPageToken` of the previous page. */
  pageToken?: string | null;
}

const checks = argumentChecks(NotionError);
const { invalid } = checks;
/** The checks every curated Package shares (@svc/kit). */
export const { optionsArg, pageTokenArg, flagArg } = checks;

/** A page size from 1 to 100, or undefined for Notion's default. */
export function pageSizeArg(value: unknown, name = "options.pageSize"): number | undefined {
  return checks.limitArg(value, name, 100);
}

/**
 * A Notion id: 32 hex digits with or without dashes, or a Notion URL ending in one.
 * Returned in the dashed lower-case form (8-4-4-4-12), so rules match one spelling.
 */
export function idArg(value: unknown, name: string): string {
  const text = typeof value === "string" ? value.trim() : "";
  const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
  let compact = "";
  if (uuid.test(text)) compact = text.replace(/-/g, "");
  else if (/^https:\/\/([a-z0-9-]+\.)*notion\.(so|site|com)\//i.test(text)) {
    // The id ends the last path segment ("Title-<32 hex>"); query and fragment are ignored.
    const segment = text.split(/[?#]/)[0].replace(/\/+$/, "").split("/").pop() ?? "";
    compact = /([0-9a-f]{32})$/i.exec(segment)?.[1] ?? "";
  }
  if (compact === "") throw invalid(`${name} must be a Notion id (32 hex digits, dashes optional) or a Notion URL ending in one`);
  const h = compact.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A required plain object sent to Notion as is (filters, property schemas, block content). */
export function objectArg(value: unknown, name: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** An optional plain object. */
export function optionalObjectArg(value: unknown, name: string): Record<string, unknown> | undefined {
  return value == null ? undefined : objectArg(value, name);
}

/** An optional array of objects (sorts, blocks). */
export function objectsArg(value: unknown, name: string, max = 100): Record<string, unknown>[] | undefined {
  if (value == null) return undefined;
  if (!Array.isArray(value) || value.some((v) => v === null || typeof v !== "object" || Array.isArray(v))) throw invalid(`${name} must be an array of objects`);
  if (value.length > max) throw invalid(`${name} may hold at most ${max} items (got ${value.length})`);
  return value as Record<string, unknown>[];
}

/** A non-empty string. */
export function textArg(value: unknown, name: string, max = 1000000): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(`${name} must be a non-empty string`);
  if (value.length > max) throw invalid(`${name} must be at most ${max} characters (got ${value.length})`);
  return value;
}

/** An optional string. */
export function optionalTextArg(value: unknown, name: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string") throw invalid(`${name} must be a string`);
  return value;
}

/** One of a fixed set of strings, or `fallback` when omitted. */
export function choiceArg<T extends string>(value: unknown, name: string, allowed: readonly T[], fallback: T): T;
export function choiceArg<T extends string>(value: unknown, name: string, allowed: readonly T[]): T | undefined;
export function choiceArg<T extends string>(value: unknown, name: string, allowed: readonly T[], fallback?: T): T | undefined {
  if (value == null) return fallback;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) throw invalid(`${name} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  return value as T;
}

/** A non-empty array of at most `max` items. */
export function listArg(value: unknown, name: string, max: number): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid(`${name} must be a non-empty array`);
  if (value.length > max) throw invalid(`${name} may hold at most ${max} items (got ${value.length})`);
  return value;
}

/** A path in the file area. */
export function pathArg(value: unknown, name = "path"): string {
  if (typeof value !== "string" || value.trim() === "" || value.includes("\u0000")) throw invalid(`${name} must be a non-empty file-area path such as "/reports/q3.pdf"`);
  return value;
}
