// @svc/gmail: Gmail API v1 for the mailbox of the shared Google access token
// (GOOGLE_ACCESS_TOKEN, never refreshed by the Package).
import { check } from "svc:security";
import { append, readBytes, stat, write } from "svc:fs";
import { apiDelete, apiGet, apiPost, GmailError, type Json } from "./client";
import { emailArg, flagArg, formatArg, idArg, labelChangesArg, labelIdsArg, labelNameArg, maxResultsArg, optionsArg, pageTokenArg, pathArg, replyArg, textArg, visibilityArg, type AttachmentRequest, type EmailInput, type EmailRequest, type ReplyInput, type ReplyRequest } from "./args";
import { buildMime, contentTypeFor, fromBase64, recipientAddresses, textToBase64Url, toBase64, type Mailbox, type MessageContent, type OutgoingFile } from "./mime";
import { threadLabels, toDraft, toDraftDetail, toDraftPage, toLabel, toLabels, toMessage, toProfile, toSent, toThread, toThreadPage, toTriageItem, type Draft, type DraftDetail, type DraftPage, type Label, type LabelChange, type Message, type Profile, type SentMessage, type Thread, type ThreadPage, type TriageItem } from "./model";

export { GmailError };
export type { AttachmentInput, EmailInput, ReplyInput } from "./args";
export type { AttachmentInfo, Draft, DraftDetail, DraftPage, Label, LabelChange, Mailbox, Message, Profile, SentMessage, Thread, ThreadPage, ThreadSummary, TriageItem } from "./model";

/** Gmail's limit for a whole message, attachments included (base64 grows it by a third). */
const MAX_ATTACHMENT_BYTES = 25000000;
/** Bytes per file-area read or write: whole files cross into the run in pieces (a multiple of 3, so base64 pieces join). */
const PIECE = 3 * 174762;
/** Headers read from the original message to address and thread a reply. */
const REPLY_HEADERS = ["From", "To", "Cc", "Reply-To", "Subject", "Message-ID", "References"];
/** Headers read for triage. */
const TRIAGE_HEADERS = ["From", "Subject", "Date"];

/** Options of `searchThreads`. */
export interface SearchOptions {
  /** Threads per page, 1 to 500 (Gmail's default 100). */
  maxResults?: number | null;
  /** `nextPageToken` of the previous page. */
  pageToken?: string | null;
  /** Only threads with all of these label ids. */
  labelIds?: string[] | null;
  /** Include Spam and Trash (default false). */
  includeSpamTrash?: boolean | null;
}

/** Options of `getThread` and `getMessage`. */
export interface GetOptions {
  /** `full` (bodies and attachments, default) or `metadata` (headers only). */
  format?: "full" | "metadata" | null;
}

/** Options of `listDrafts`. */
export interface ListDraftsOptions {
  /** Drafts per page, 1 to 500. */
  maxResults?: number | null;
  pageToken?: string | null;
  /** Gmail search syntax to filter drafts. */
  query?: string | null;
}

/** Options of `createLabel`. */
export interface CreateLabelOptions {
  /** In the label list: `labelShow` (default), `labelShowIfUnread` or `labelHide`. */
  labelListVisibility?: "labelShow" | "labelShowIfUnread" | "labelHide" | null;
  /** In the message list: `show` (default) or `hide`. */
  messageListVisibility?: "show" | "hide" | null;
}

/** Label ids to add and remove. */
export interface LabelChanges {
  /** Label ids to add (`STARRED`, `IMPORTANT`, `Label_12`, ...). */
  add?: string[] | null;
  /** Label ids to remove (`UNREAD` marks read, `INBOX` archives). */
  remove?: string[] | null;
}

/** Options of `triage`. */
export interface TriageOptions {
  /** Gmail search syntax; default `in:inbox is:unread`. */
  query?: string | null;
  /** Threads to describe, 1 to 50 (default 20). */
  maxResults?: number | null;
}

/** What `downloadAttachment` wrote. */
export interface SavedAttachment {
  /** The path written (as given). */
  path: string;
  bytesWritten: number;
}

/** Reads and encodes the attachments the caller named (its own fs.read rule was checked by the export). */
function readFiles(requests: AttachmentRequest[]): OutgoingFile[] {
  let total = 0;
  return requests.map((r) => {
    const info = stat(r.path);
    if (info === null || info.kind !== "file") throw new GmailError("invalid_argument", `attachment ${r.path} is not a file in the file area`);
    total += info.size;
    if (total > MAX_ATTACHMENT_BYTES) throw new GmailError("invalid_argument", `attachments add up to more than ${MAX_ATTACHMENT_BYTES} bytes, Gmail's message limit`);
    let base64 = "";
    for (let offset = 0; offset < info.size; offset += PIECE) base64 += toBase64(readBytes(r.path, offset, Math.min(PIECE, info.size - offset)));
    return { filename: r.filename, contentType: r.contentType ?? contentTypeFor(r.filename), base64 };
  });
}

/** A message ready to be checked and sent: its recipients and attachment paths for the checks; `raw()` reads the attachments and builds it. */
interface Composed {
  recipients: string[];
  attachmentPaths: string[];
  threadId: string | null;
  /** The RFC 2822 message, base64url-encoded; reads the attachments, so call it after the checks. */
  raw(): string;
}

/** Composes a message from what it says (`content`), how it threads and what it attaches. */
function compose(content: MessageContent, threading: { inReplyTo: string | null; references: string | null; threadId: string | null }, attachments: AttachmentRequest[]): Composed {
  return {
    recipients: recipientAddresses(content.to, content.cc, content.bcc),
    attachmentPaths: attachments.map((a) => a.path),
    threadId: threading.threadId,
    raw: () => textToBase64Url(buildMime({ ...content, inReplyTo: threading.inReplyTo, references: threading.references, files: readFiles(attachments) })),
  };
}

/** A new message (not a reply). */
function newMessage(e: EmailRequest): Composed {
  return compose({ to: e.to, cc: e.cc, bcc: e.bcc, subject: e.subject, text: e.text, html: e.html }, { inReplyTo: null, references: null, threadId: e.threadId }, e.attachments);
}

/** A reply to `messageId`, addressed from the original (read first); `requireRecipient` refuses an original with no one to answer. */
function replyMessage(messageId: string, r: ReplyRequest, requireRecipient: boolean): Composed {
  const original = fetchForReply(messageId);
  const self = r.replyAll ? selfAddress() : null;
  const a = replyAddressing(original, r.replyAll, self);
  if (requireRecipient && a.to.length === 0) throw new GmailError("invalid_argument", `message ${messageId} has no sender or recipient to reply to`);
  const content = { to: a.to, cc: [...a.cc, ...r.cc], bcc: r.bcc, subject: a.subject, text: r.text, html: r.html };
  return compose(content, { inReplyTo: a.inReplyTo, references: a.references, threadId: original.threadId }, r.attachments);
}

/** Addresses and threading of a reply to `original`. */
function replyAddressing(original: Message, replyAll: boolean, self: string | null): { to: Mailbox[]; cc: Mailbox[]; subject: string; inReplyTo: string | null; references: string | null } {
  const fromSelf = self !== null && original.from?.email === self;
  let to: Mailbox[] = fromSelf ? original.to : original.replyTo.length > 0 ? original.replyTo : original.from ? [original.from] : [];
  let cc: Mailbox[] = [];
  if (replyAll) {
    const others = fromSelf ? original.cc : [...original.to, ...original.cc];
    cc = others.filter((m) => m.email !== self && !to.some((t) => t.email === m.email));
  }
  to = to.filter((m, i) => to.findIndex((t) => t.email === m.email) === i);
  const subject = original.subject;
  const references = [original.references, original.messageIdHeader].filter((s): s is string => !!s).join(" ") || null;
  return { to, cc, subject: /^re:/i.test(subject) ? subject : "Re: " + subject, inReplyTo: original.messageIdHeader, references };
}

function fetchForReply(messageId: string): Message {
  return toMessage(apiGet(`messages/${messageId}`, { format: "metadata", metadataHeaders: REPLY_HEADERS }));
}

function selfAddress(): string {
  return toProfile(apiGet("profile")).emailAddress;
}

/**
 * Describe the mailbox: its address and message and thread totals.
 * @returns The profile.
 * @capability svc/gmail.getProfile {}
 */
export function getProfile(): Profile {
  check("svc/gmail.getProfile", {});
  return toProfile(apiGet("profile"));
}

/**
 * Search threads with Gmail's search syntax (`from:ada is:unread newer_than:7d`), one page at a time; hits carry the id and a snippet.
 * @param query Gmail search query; empty or omitted lists all threads.
 * @param options `maxResults`, `pageToken`, `labelIds`, `includeSpamTrash`.
 * @returns A page of thread summaries; read one with `getThread`.
 * @capability svc/gmail.searchThreads {}
 */
export function searchThreads(query?: string | null, options?: SearchOptions | null): ThreadPage {
  const q = textArg(query, "query");
  const o = optionsArg(options);
  const maxResults = maxResultsArg(o.maxResults, "options.maxResults", 500);
  const pageToken = pageTokenArg(o.pageToken);
  const labelIds = labelIdsArg(o.labelIds, "options.labelIds");
  const includeSpamTrash = flagArg(o.includeSpamTrash, "options.includeSpamTrash");
  check("svc/gmail.searchThreads", {});
  return toThreadPage(apiGet("threads", { q: q === "" ? undefined : q, maxResults, pageToken, labelIds, includeSpamTrash }));
}

/**
 * Read a thread with all its messages, oldest first.
 * @param threadId Thread id (from `searchThreads` or a message's `threadId`).
 * @param options `format`: `full` (default, with bodies) or `metadata`.
 * @returns The thread; GmailError `not_found` when there is none.
 * @capability svc/gmail.getThread {}
 */
export function getThread(threadId: string, options?: GetOptions | null): Thread {
  const id = idArg(threadId, "threadId");
  const format = formatArg(optionsArg(options).format);
  check("svc/gmail.getThread", {});
  return toThread(apiGet(`threads/${id}`, { format }));
}

/**
 * Read one message: headers, addresses, text and HTML bodies, attachment list.
 * @param messageId Message id.
 * @param options `format`: `full` (default) or `metadata`.
 * @returns The message; GmailError `not_found` when there is none.
 * @capability svc/gmail.getMessage {}
 */
export function getMessage(messageId: string, options?: GetOptions | null): Message {
  const id = idArg(messageId, "messageId");
  const format = formatArg(optionsArg(options).format);
  check("svc/gmail.getMessage", {});
  return toMessage(apiGet(`messages/${id}`, { format }));
}

/**
 * Send a new message. Attachments are files of the file area; the caller's own `fs.read` rule is checked for each.
 * @param email `to`, `subject`, `text` and/or `html`, optional `cc`, `bcc`, `attachments`, `threadId`.
 * @returns The sent message's ids and labels.
 * @capability svc/gmail.sendEmail { recipients: string[] }
 */
export function sendEmail(email: EmailInput): SentMessage {
  const m = newMessage(emailArg(email, "email", true));
  check("svc/gmail.sendEmail", { recipients: m.recipients });
  for (const path of m.attachmentPaths) check("fs.read", { path });
  return toSent(apiPost("messages/send", { raw: m.raw(), ...(m.threadId ? { threadId: m.threadId } : {}) }));
}

/**
 * Save a new draft (recipients may be empty). Attachments are read after the caller's `fs.read` check.
 * @param email `to`, `subject`, `text` and/or `html`, optional `cc`, `bcc`, `attachments`, `threadId`.
 * @returns The draft's id and its message's ids.
 * @capability svc/gmail.createDraft { recipients: string[] }
 */
export function createDraft(email: EmailInput): Draft {
  const m = newMessage(emailArg(email, "email", false));
  check("svc/gmail.createDraft", { recipients: m.recipients });
  for (const path of m.attachmentPaths) check("fs.read", { path });
  return toDraft(apiPost("drafts", { message: { raw: m.raw(), ...(m.threadId ? { threadId: m.threadId } : {}) } }));
}

/**
 * Reply to a message in its thread: to its Reply-To or sender, and with `replyAll` to its other recipients too (never to yourself).
 * The original is read first to learn the recipients that are checked.
 * @param messageId The message to answer.
 * @param reply The reply text, or `{text and/or html, replyAll?, cc?, bcc?, attachments?}`.
 * @returns The sent message's ids.
 * @capability svc/gmail.reply { recipients: string[] }
 */
export function reply(messageId: string, reply: string | ReplyInput): SentMessage {
  const m = replyMessage(idArg(messageId, "messageId"), replyArg(reply, "reply"), true);
  check("svc/gmail.reply", { recipients: m.recipients });
  for (const path of m.attachmentPaths) check("fs.read", { path });
  return toSent(apiPost("messages/send", { raw: m.raw(), threadId: m.threadId }));
}

/**
 * Save a reply to a message as a draft in its thread (addressed as `reply` would).
 * @param messageId The message to answer.
 * @param reply The reply text, or `{text and/or html, replyAll?, cc?, bcc?, attachments?}`.
 * @returns The draft's id and its message's ids.
 * @capability svc/gmail.createReplyDraft { recipients: string[] }
 */
export function createReplyDraft(messageId: string, reply: string | ReplyInput): Draft {
  const m = replyMessage(idArg(messageId, "messageId"), replyArg(reply, "reply"), false);
  check("svc/gmail.createReplyDraft", { recipients: m.recipients });
  for (const path of m.attachmentPaths) check("fs.read", { path });
  return toDraft(apiPost("drafts", { message: { raw: m.raw(), threadId: m.threadId } }));
}

/**
 * List drafts, one page at a time.
 * @param options `maxResults`, `pageToken`, `query`.
 * @returns A page of drafts (ids only; read one with `getDraft`).
 * @capability svc/gmail.listDrafts {}
 */
export function listDrafts(options?: ListDraftsOptions | null): DraftPage {
  const o = optionsArg(options);
  const maxResults = maxResultsArg(o.maxResults, "options.maxResults", 500);
  const pageToken = pageTokenArg(o.pageToken);
  const q = textArg(o.query, "options.query");
  check("svc/gmail.listDrafts", {});
  return toDraftPage(apiGet("drafts", { maxResults, pageToken, q: q === "" ? undefined : q }));
}

/**
 * Read a draft with its full message.
 * @param draftId Draft id.
 * @returns The draft; GmailError `not_found` when there is none.
 * @capability svc/gmail.getDraft {}
 */
export function getDraft(draftId: string): DraftDetail {
  const id = idArg(draftId, "draftId");
  check("svc/gmail.getDraft", {});
  return toDraftDetail(apiGet(`drafts/${id}`, { format: "full" }));
}

/**
 * Send an existing draft as it is.
 * @param draftId Draft id.
 * @returns The sent message's ids.
 * @capability svc/gmail.sendDraft {}
 */
export function sendDraft(draftId: string): SentMessage {
  const id = idArg(draftId, "draftId");
  check("svc/gmail.sendDraft", {});
  return toSent(apiPost("drafts/send", { id }));
}

/**
 * Delete a draft permanently (it does not go to Trash).
 * @param draftId Draft id.
 * @capability svc/gmail.deleteDraft {}
 */
export function deleteDraft(draftId: string): void {
  const id = idArg(draftId, "draftId");
  check("svc/gmail.deleteDraft", {});
  apiDelete(`drafts/${id}`);
}

/**
 * List the mailbox's system and user labels.
 * @returns The labels (ids to use with the label functions).
 * @capability svc/gmail.listLabels {}
 */
export function listLabels(): Label[] {
  check("svc/gmail.listLabels", {});
  return toLabels(apiGet("labels"));
}

/**
 * Create a user label.
 * @param name Label name; nest with "/" ("Projects/Apollo").
 * @param options `labelListVisibility`, `messageListVisibility`.
 * @returns The new label.
 * @capability svc/gmail.createLabel { name }
 */
export function createLabel(name: string, options?: CreateLabelOptions | null): Label {
  const label = labelNameArg(name);
  const o = optionsArg(options);
  const labelListVisibility = visibilityArg(o.labelListVisibility, "options.labelListVisibility", ["labelShow", "labelShowIfUnread", "labelHide"]);
  const messageListVisibility = visibilityArg(o.messageListVisibility, "options.messageListVisibility", ["show", "hide"]);
  check("svc/gmail.createLabel", { name: label });
  return toLabel(apiPost("labels", { name: label, ...(labelListVisibility ? { labelListVisibility } : {}), ...(messageListVisibility ? { messageListVisibility } : {}) }));
}

/**
 * Add and remove labels on one message (remove `UNREAD` to mark read, `INBOX` to archive).
 * @param messageId Message id.
 * @param changes `{add?, remove?}` label ids.
 * @returns The message's labels afterwards.
 * @capability svc/gmail.modifyMessageLabels {}
 */
export function modifyMessageLabels(messageId: string, changes: LabelChanges): LabelChange {
  const id = idArg(messageId, "messageId");
  const c = labelChangesArg(changes);
  check("svc/gmail.modifyMessageLabels", {});
  const body = apiPost(`messages/${id}/modify`, { addLabelIds: c.add, removeLabelIds: c.remove });
  return { id: typeof body.id === "string" ? body.id : id, labelIds: Array.isArray(body.labelIds) ? body.labelIds.filter((l): l is string => typeof l === "string") : [] };
}

/**
 * Add and remove labels on every message of a thread.
 * @param threadId Thread id.
 * @param changes `{add?, remove?}` label ids.
 * @returns The thread's labels afterwards (union over its messages).
 * @capability svc/gmail.modifyThreadLabels {}
 */
export function modifyThreadLabels(threadId: string, changes: LabelChanges): LabelChange {
  const id = idArg(threadId, "threadId");
  const c = labelChangesArg(changes);
  check("svc/gmail.modifyThreadLabels", {});
  const body: Json = apiPost(`threads/${id}/modify`, { addLabelIds: c.add, removeLabelIds: c.remove });
  return threadLabels({ id, ...body });
}

/**
 * Save an attachment of a message into the file area. The caller's own `fs.write` rule is checked with the path and the decoded length.
 * @param messageId Message id.
 * @param attachmentId The attachment's id (from `getMessage(...).attachments`).
 * @param path Destination path in the file area; its parent directory must exist.
 * @param options `overwrite` an existing file (default false).
 * @returns The path written and the byte count.
 * @capability svc/gmail.downloadAttachment { path }
 */
export function downloadAttachment(messageId: string, attachmentId: string, path: string, options?: { overwrite?: boolean | null } | null): SavedAttachment {
  const id = idArg(messageId, "messageId");
  const attachment = idArg(attachmentId, "attachmentId");
  const destination = pathArg(path, "path");
  const overwrite = flagArg(optionsArg(options).overwrite, "options.overwrite") ?? false;
  check("svc/gmail.downloadAttachment", { path: destination });
  const body = apiGet(`messages/${id}/attachments/${attachment}`);
  const bytes = typeof body.data === "string" ? fromBase64(body.data) : null;
  if (bytes === null) throw new GmailError("invalid_response", "Gmail attachments.get answered without base64url `data`", 200);
  check("fs.write", { path: destination, length: bytes.length });
  if (!overwrite && stat(destination) !== null) throw new GmailError("invalid_argument", `${destination} exists; pass {overwrite: true} to replace it`);
  write(destination, bytes.subarray(0, PIECE));
  for (let offset = PIECE; offset < bytes.length; offset += PIECE) append(destination, bytes.subarray(offset, offset + PIECE));
  return { path: destination, bytesWritten: bytes.length };
}

/**
 * Describe the threads that need attention (default: unread in the inbox), newest first, each by its newest message's sender, subject and date.
 * @param options `query` (Gmail search syntax), `maxResults` (1 to 50, default 20).
 * @returns One item per thread.
 * @capability svc/gmail.triage {}
 */
export function triage(options?: TriageOptions | null): TriageItem[] {
  const o = optionsArg(options);
  const q = textArg(o.query, "options.query", false) ?? "in:inbox is:unread";
  const maxResults = maxResultsArg(o.maxResults, "options.maxResults", 50) ?? 20;
  check("svc/gmail.triage", {});
  const page = toThreadPage(apiGet("threads", { q, maxResults }));
  const items: TriageItem[] = [];
  for (const summary of page.threads) {
    const item = toTriageItem(toThread(apiGet(`threads/${summary.id}`, { format: "metadata", metadataHeaders: TRIAGE_HEADERS })), summary.snippet);
    if (item) items.push(item);
  }
  return items;
}

