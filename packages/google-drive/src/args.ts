// Argument checks of @svc/google-drive: each returns the normalised value or throws
// DriveError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request. The checks every curated Package shares come from @svc/kit.

import { argumentChecks } from "@svc/kit";
import { DriveError } from "./client";

const checks = argumentChecks(DriveError);
const { invalid } = checks;
/** The checks every curated Package shares (@svc/kit). */
export const { optionsArg, intArg, pageTokenArg, flagArg } = checks;

/** A Drive file, folder or permission id (letters, digits, `_`, `-`). */
export function idArg(value: unknown, name: string): string {
  const id = typeof value === "string" ? value.trim() : "";
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(id)) throw invalid(`${name} must be a Drive id such as "1AbCdEfGhIjKlMnOpQrStUvWxYz" (letters, digits, "_" and "-")`);
  return id;
}

/** A parent folder id; `root` (My Drive) when omitted. */
export function parentArg(value: unknown, name: string): string {
  return value == null ? "root" : idArg(value, name);
}

/** A file name: non-empty, one line, at most 1024 characters (Drive allows "/" in names). */
export function nameArg(value: unknown, name: string): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "" || text.length > 1024 || /[\r\n\0]/.test(text)) throw invalid(`${name} must be a non-empty single-line name of at most 1024 characters`);
  return text;
}

/** An optional name. */
export function optionalNameArg(value: unknown, name: string): string | undefined {
  return value == null ? undefined : nameArg(value, name);
}

/** A MIME type such as "application/pdf". */
export function mimeArg(value: unknown, name: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || !/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(value.trim())) throw invalid(`${name} must be a MIME type such as "application/pdf"`);
  return value.trim();
}

/** A file-area path. */
export function pathArg(value: unknown, name = "path"): string {
  if (typeof value !== "string" || value.trim() === "" || value.includes("\0")) throw invalid(`${name} must be a non-empty file-area path such as "/reports/q3.pdf"`);
  return value.trim();
}

/** A Drive query string literal: `'...'` with `\` and `'` escaped. */
export function quote(text: string): string {
  return "'" + text.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "'";
}

/** Who a file is shared with. */
export interface Principal {
  type: "user" | "group" | "domain" | "anyone";
  /** What rules see: the lower-cased address, `domain:<name>` or `anyone`. */
  principal: string;
  emailAddress?: string;
  domain?: string;
}

const EMAIL = /^[^\s@<>(),;:"]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const DOMAIN = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/** "ada@example.com" (a user, or a group with `asGroup`), "domain:example.com" or "anyone". */
export function principalArg(value: unknown, asGroup: boolean, name = "principal"): Principal {
  const text = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (text === "anyone") return { type: "anyone", principal: "anyone" };
  if (text.startsWith("domain:") && DOMAIN.test(text.slice(7))) return { type: "domain", principal: text, domain: text.slice(7) };
  if (EMAIL.test(text)) return { type: asGroup ? "group" : "user", principal: text, emailAddress: text };
  throw invalid(`${name} must be an email address ("ada@example.com"), "domain:example.com" or "anyone"`);
}

/** Roles a share may grant (ownership transfer is left out on purpose). */
export const ROLES = ["reader", "commenter", "writer", "fileOrganizer", "organizer"] as const;

export function roleArg(value: unknown, name = "role"): (typeof ROLES)[number] {
  if (typeof value !== "string" || !(ROLES as readonly string[]).includes(value)) throw invalid(`${name} must be one of ${ROLES.map((r) => `"${r}"`).join(", ")}`);
  return value as (typeof ROLES)[number];
}
