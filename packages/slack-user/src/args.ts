// Argument checks of @svc/slack-user: each returns the normalised value or throws
// SlackError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request. The checks both Slack Packages share come from @svc/kit.
import { slackArgumentChecks } from "@svc/kit";
import { SlackError } from "./client";

export const { invalid, flagArg, limitArg, optionsArg, pageTokenArg } = slackArgumentChecks(SlackError);

/** An email address, trimmed and lower-cased. */
export function emailArg(value: unknown, name = "email"): string {
  const email = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalid(`${name} must be an email address such as "ada@example.com"`);
  return email;
}

/** A file id (`F…`). */
export function fileIdArg(value: unknown, name = "fileId"): string {
  if (typeof value !== "string" || !/^F[A-Z0-9]{2,}$/.test(value.trim())) throw invalid(`${name} must be a Slack file id such as "F0123ABCD"`);
  return value.trim();
}

/** A search query: non-empty, at most 1,000 characters. */
export function queryArg(value: unknown, name = "query"): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(`${name} must be a non-empty search string`);
  if (value.length > 1000) throw invalid(`${name} must be at most 1000 characters`);
  return value.trim();
}

/** A path in the file area. */
export function pathArg(value: unknown, name = "path"): string {
  if (typeof value !== "string" || value.trim() === "" || value.includes("\u0000")) throw invalid(`${name} must be a non-empty file-area path such as "/downloads/report.pdf"`);
  return value;
}

/**
 * The part after "https://files.slack.com/" of a Slack file URL (url_private or
 * url_private_download); any other host, scheme, port or user-info is refused.
 */
export function filesUrlArg(value: unknown, prefix: string, name = "url"): string {
  if (typeof value !== "string" || !value.startsWith(prefix) || value.length === prefix.length || /[\s\\]/.test(value)) throw invalid(`${name} must be a Slack file URL starting with ${prefix} (a file's urlPrivateDownload or urlPrivate)`);
  return value.slice(prefix.length);
}
