// Argument checks of @svc/gmail: each returns the normalised value or throws
// GmailError("invalid_argument") naming the parameter and what is accepted, before any
// permission check or request. The checks every curated Package shares come from @svc/kit.
import { argumentChecks } from "@svc/kit";
import { GmailError } from "./client";
import { recipientsArg, type Mailbox, type MessageContent } from "./mime";

const checks = argumentChecks(GmailError);
const { invalid } = checks;
/** The checks every curated Package shares (@svc/kit). */
export const { optionsArg, limitArg: maxResultsArg, pageTokenArg, flagArg } = checks;

/** A Gmail message, thread, draft or label id (letters, digits, `_` and `-`). */
export function idArg(value: unknown, name: string): string {
  const id = typeof value === "string" ? value.trim() : "";
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(id)) throw invalid(`${name} must be a Gmail id such as "18c2f0a1b2c3d4e5" (letters, digits, "_" and "-")`);
  return id;
}

/** An optional string (a search query, a body); `allowEmpty` keeps "". */
export function textArg(value: unknown, name: string, allowEmpty = true): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || (!allowEmpty && value.trim() === "")) throw invalid(`${name} must be a${allowEmpty ? "" : " non-empty"} string`);
  return value;
}

/** A list of label ids (may be empty). */
export function labelIdsArg(value: unknown, name: string): string[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw invalid(`${name} must be an array of label ids such as ["INBOX", "Label_12"]`);
  return [...new Set(value.map((v, i) => idArg(v, `${name}[${i}]`)))];
}

/** `full` (bodies and attachments, the default) or `metadata` (headers only). */
export function formatArg(value: unknown, name = "options.format"): "full" | "metadata" {
  if (value == null) return "full";
  if (value !== "full" && value !== "metadata") throw invalid(`${name} must be "full" or "metadata"`);
  return value;
}

/** A file-area path. */
export function pathArg(value: unknown, name: string): string {
  if (typeof value !== "string" || value.trim() === "" || value.includes("\0")) throw invalid(`${name} must be a non-empty file-area path such as "/reports/q3.pdf"`);
  return value.trim();
}

/** A file to attach: a file-area path, with an optional file name and content type. */
export interface AttachmentInput {
  /** File-area path to read. */
  path: string;
  /** Name shown to recipients (default: the path's last segment). */
  filename?: string | null;
  /** MIME type (default: guessed from the name). */
  contentType?: string | null;
}

/** A validated attachment request (not read yet). */
export interface AttachmentRequest {
  path: string;
  filename: string;
  contentType: string | null;
}

export function attachmentsArg(value: unknown, name: string): AttachmentRequest[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw invalid(`${name} must be an array of {path, filename?, contentType?}`);
  if (value.length > 25) throw invalid(`${name} may list at most 25 files`);
  return value.map((item, i) => {
    const entry = typeof item === "string" ? { path: item } : item;
    if (entry === null || typeof entry !== "object") throw invalid(`${name}[${i}] must be a path string or {path, filename?, contentType?}`);
    const o = entry as Record<string, unknown>;
    const path = pathArg(o.path, `${name}[${i}].path`);
    const filename = textArg(o.filename, `${name}[${i}].filename`, false) ?? path.split("/").filter((s) => s !== "").pop() ?? "attachment";
    if (/[\r\n"\\]/.test(filename)) throw invalid(`${name}[${i}].filename must be one line without quotes or backslashes`);
    const contentType = textArg(o.contentType, `${name}[${i}].contentType`, false) ?? null;
    if (contentType !== null && !/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(contentType)) throw invalid(`${name}[${i}].contentType must be a MIME type such as "application/pdf"`);
    return { path, filename, contentType };
  });
}

/** A message to send or save as a draft. */
export interface EmailInput {
  /** Recipients: "ada@example.com", "Ada <ada@example.com>", or a list of them. */
  to?: string | string[] | null;
  cc?: string | string[] | null;
  bcc?: string | string[] | null;
  /** Subject line (one line). */
  subject?: string | null;
  /** Plain-text body. */
  text?: string | null;
  /** HTML body (sent as an alternative to `text` when both are given). */
  html?: string | null;
  /** Files of the file area to attach. */
  attachments?: AttachmentInput[] | null;
  /** Put the message into this existing thread (the subject should match). */
  threadId?: string | null;
}

/** A reply's content; recipients come from the original message. */
export interface ReplyInput {
  /** Plain-text body. */
  text?: string | null;
  /** HTML body. */
  html?: string | null;
  /** Reply to everyone on the original To and Cc too (not only the sender). */
  replyAll?: boolean | null;
  /** More recipients to copy. */
  cc?: string | string[] | null;
  bcc?: string | string[] | null;
  attachments?: AttachmentInput[] | null;
}

/** A validated EmailInput (attachments not read yet). */
export interface EmailRequest extends MessageContent {
  attachments: AttachmentRequest[];
  threadId: string | null;
}

function bodyArgs(o: Record<string, unknown>, name: string): { text: string | null; html: string | null } {
  const text = textArg(o.text, `${name}.text`) ?? null;
  const html = textArg(o.html, `${name}.html`) ?? null;
  return { text, html };
}

export function emailArg(value: unknown, name: string, requireRecipients: boolean): EmailRequest {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid(`${name} must be an object {to, subject, text or html, cc?, bcc?, attachments?, threadId?}`);
  const o = value as Record<string, unknown>;
  const to = recipientsArg(o.to, `${name}.to`, requireRecipients);
  const cc = recipientsArg(o.cc, `${name}.cc`, false);
  const bcc = recipientsArg(o.bcc, `${name}.bcc`, false);
  const subject = textArg(o.subject, `${name}.subject`) ?? "";
  if (/[\r\n]/.test(subject)) throw invalid(`${name}.subject must be a single line`);
  const { text, html } = bodyArgs(o, name);
  if (requireRecipients && text === null && html === null) throw invalid(`${name} needs a body: give text, html or both`);
  const attachments = attachmentsArg(o.attachments, `${name}.attachments`);
  const threadId = o.threadId == null ? null : idArg(o.threadId, `${name}.threadId`);
  return { to, cc, bcc, subject, text, html, attachments, threadId };
}

/** A validated ReplyInput. */
export interface ReplyRequest {
  text: string | null;
  html: string | null;
  replyAll: boolean;
  cc: Mailbox[];
  bcc: Mailbox[];
  attachments: AttachmentRequest[];
}

export function replyArg(value: unknown, name: string): ReplyRequest {
  if (typeof value === "string") return { text: value, html: null, replyAll: false, cc: [], bcc: [], attachments: [] };
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid(`${name} must be the reply text or an object {text or html, replyAll?, cc?, bcc?, attachments?}`);
  const o = value as Record<string, unknown>;
  const { text, html } = bodyArgs(o, name);
  if (text === null && html === null) throw invalid(`${name} needs a body: give text, html or both`);
  return {
    text,
    html,
    replyAll: flagArg(o.replyAll, `${name}.replyAll`) ?? false,
    cc: recipientsArg(o.cc, `${name}.cc`, false),
    bcc: recipientsArg(o.bcc, `${name}.bcc`, false),
    attachments: attachmentsArg(o.attachments, `${name}.attachments`),
  };
}

/** Label changes: ids to add and to remove (at least one). */
export function labelChangesArg(value: unknown, name = "changes"): { add: string[]; remove: string[] } {
  const o = optionsArg(value, name);
  const add = labelIdsArg(o.add, `${name}.add`);
  const remove = labelIdsArg(o.remove, `${name}.remove`);
  if (add.length === 0 && remove.length === 0) throw invalid(`${name} must list label ids to add and/or remove, e.g. {remove: ["UNREAD"]}`);
  return { add, remove };
}

/** A label name: non-empty, one line, at most 225 characters. */
export function labelNameArg(value: unknown, name = "name"): string {
  const label = typeof value === "string" ? value.trim() : "";
  if (label === "" || label.length > 225 || /[\r\n]/.test(label)) throw invalid(`${name} must be a non-empty single-line label name of at most 225 characters (nest with "/": "Projects/Apollo")`);
  return label;
}

/** `show`, `hide` (and `labelShowIfUnread` for the label list), or undefined. */
export function visibilityArg(value: unknown, name: string, allowed: string[]): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string" || !allowed.includes(value)) throw invalid(`${name} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  return value;
}
