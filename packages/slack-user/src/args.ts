// Argument checks of @svc/slack-user: each returns the normalised value or throws
// SlackError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request.
import { SlackError } from "./client";

function invalid(message: string): SlackError {
  return new SlackError("invalid_argument", message);
}

/** A conversation id (`C…`, `G…` or `D…`); names are refused so rules can match ids reliably. */
export function channelIdArg(value: unknown, name = "channelId"): string {
  if (typeof value !== "string" || !/^[CDG][A-Z0-9]{2,}$/.test(value.trim())) throw invalid(`${name} must be a Slack conversation id such as "C0123ABCD" (C, G or D followed by upper-case letters and digits), not a channel name`);
  return value.trim();
}

/** A user id (`U…` or `W…`). */
export function userIdArg(value: unknown, name = "userId"): string {
  if (typeof value !== "string" || !/^[UW][A-Z0-9]{2,}$/.test(value.trim())) throw invalid(`${name} must be a Slack user id such as "U0123ABCD" (U or W followed by upper-case letters and digits)`);
  return value.trim();
}

/** 2 to 8 distinct user ids, sorted so the same group always checks the same way. */
export function userIdsArg(value: unknown, name = "userIds"): string[] {
  if (!Array.isArray(value)) throw invalid(`${name} must be an array of 2 to 8 Slack user ids`);
  const ids = [...new Set(value.map((v, i) => userIdArg(v, `${name}[${i}]`)))].sort();
  if (ids.length < 2 || ids.length > 8) throw invalid(`${name} must name 2 to 8 distinct users (got ${ids.length}); use the direct-message function for one user`);
  return ids;
}

/** A message timestamp such as "1712345678.123456". */
export function tsArg(value: unknown, name = "ts"): string {
  if (typeof value !== "string" || !/^\d+\.\d+$/.test(value.trim())) throw invalid(`${name} must be a Slack message timestamp such as "1712345678.123456"`);
  return value.trim();
}

/** Message text: a non-empty string of at most 40,000 characters. */
export function textArg(value: unknown, name = "text"): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(`${name} must be a non-empty string`);
  if (value.length > 40000) throw invalid(`${name} must be at most 40000 characters (got ${value.length})`);
  return value;
}

/** An emoji name with or without surrounding colons ("thumbsup", ":white_check_mark:"). */
export function emojiArg(value: unknown, name = "name"): string {
  const emoji = typeof value === "string" ? value.trim().replace(/^:/, "").replace(/:$/, "") : "";
  if (!/^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/.test(emoji)) throw invalid(`${name} must be an emoji name such as "thumbsup" or ":white_check_mark:"`);
  return emoji;
}

/** An options object (undefined and null mean none). */
export function optionsArg(value: unknown, name = "options"): Record<string, unknown> {
  if (value == null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(`${name} must be an object or omitted`);
  return value as Record<string, unknown>;
}

/** A page size between 1 and `max`, or undefined for Slack's default. */
export function limitArg(value: unknown, name = "options.limit", max = 1000): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) throw invalid(`${name} must be an integer from 1 to ${max}`);
  return value;
}

/** A `nextPageToken` returned by an earlier call, or undefined. */
export function pageTokenArg(value: unknown, name = "options.pageToken"): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || value === "") throw invalid(`${name} must be the nextPageToken string of an earlier page`);
  return value;
}

/** An optional boolean. */
export function flagArg(value: unknown, name: string): boolean | undefined {
  if (value == null) return undefined;
  if (typeof value !== "boolean") throw invalid(`${name} must be true or false`);
  return value;
}

/** Optional Block Kit blocks, sent unchanged. */
export function blocksArg(value: unknown, name = "options.blocks"): unknown[] | undefined {
  if (value == null) return undefined;
  if (!Array.isArray(value) || value.some((b) => b === null || typeof b !== "object")) throw invalid(`${name} must be an array of Block Kit block objects`);
  return value;
}

/** Conversation kinds for conversations.list. */
export function typesArg(value: unknown, fallback: string[], name = "options.types"): string[] {
  if (value == null) return fallback;
  const allowed = ["public_channel", "private_channel", "mpim", "im"];
  if (!Array.isArray(value) || value.length === 0 || value.some((t) => typeof t !== "string" || !allowed.includes(t))) throw invalid(`${name} must be a non-empty array of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  return [...new Set(value as string[])];
}

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
