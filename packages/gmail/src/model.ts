// The normalised results of @svc/gmail and the functions that build them from Gmail's JSON.
import { GmailError, type Json } from "./client";
import { decodeText, decodeWords, fromBase64, parseAddressList, type Mailbox } from "./mime";

export type { Mailbox } from "./mime";

/** The mailbox owner's profile. */
export interface Profile {
  emailAddress: string;
  messagesTotal: number;
  threadsTotal: number;
  historyId: string;
}

/** An attachment of a message; fetch its bytes with `downloadAttachment`. */
export interface AttachmentInfo {
  attachmentId: string;
  filename: string;
  mimeType: string;
  /** Size in bytes as Gmail reports it. */
  size: number;
}

/** A message, normalised. Bodies are present with the `full` format only. */
export interface Message {
  id: string;
  threadId: string;
  labelIds: string[];
  snippet: string;
  historyId: string;
  /** When Gmail received the message, ISO 8601 (UTC). */
  internalDate: string | null;
  /** True while the message carries the UNREAD label. */
  unread: boolean;
  from: Mailbox | null;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  /** The Date header as sent. */
  date: string | null;
  /** The RFC 5322 Message-ID header (used for replies). */
  messageIdHeader: string | null;
  /** The References header, for threading replies. */
  references: string | null;
  /** The first text/plain part, decoded; null when absent or not fetched. */
  text: string | null;
  /** The first text/html part, decoded; null when absent or not fetched. */
  html: string | null;
  attachments: AttachmentInfo[];
}

/** A thread with its messages, oldest first. */
export interface Thread {
  id: string;
  historyId: string;
  messages: Message[];
}

/** One search hit (Gmail lists threads with a snippet only). */
export interface ThreadSummary {
  id: string;
  snippet: string;
  historyId: string;
}

/** A page of search results. */
export interface ThreadPage {
  threads: ThreadSummary[];
  /** Pass back as `options.pageToken`; null on the last page. */
  nextPageToken: string | null;
  resultSizeEstimate: number;
}

/** A sent message's identifiers. */
export interface SentMessage {
  id: string;
  threadId: string;
  labelIds: string[];
}

/** A draft with the identifiers of its message. */
export interface Draft {
  id: string;
  messageId: string;
  threadId: string;
}

/** A draft with its full message. */
export interface DraftDetail {
  id: string;
  message: Message;
}

/** A page of drafts. */
export interface DraftPage {
  drafts: Draft[];
  nextPageToken: string | null;
  resultSizeEstimate: number;
}

/** A label. */
export interface Label {
  id: string;
  name: string;
  /** `system` or `user`. */
  type: string;
  messageListVisibility: string | null;
  labelListVisibility: string | null;
  messagesTotal: number | null;
  messagesUnread: number | null;
  threadsTotal: number | null;
  threadsUnread: number | null;
}

/** Labels after a change. */
export interface LabelChange {
  /** The message or thread id. */
  id: string;
  /** The labels it now carries (for a thread: the union over its messages). */
  labelIds: string[];
}

/** One thread of `triage`, described by its newest message. */
export interface TriageItem {
  threadId: string;
  messageId: string;
  from: Mailbox | null;
  subject: string;
  date: string | null;
  snippet: string;
  unread: boolean;
  labelIds: string[];
  messageCount: number;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function num(value: unknown): number | null {
  const n = typeof value === "number" ? value : typeof value === "string" && value !== "" ? Number(value) : NaN;
  return Number.isFinite(n) ? n : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((v): v is Json => v !== null && typeof v === "object" && !Array.isArray(v)) : [];
}

/** Requires a string id in Gmail's answer. */
export function requireId(body: Json, key: string, what: string): string {
  const id = body[key];
  if (typeof id !== "string" || id === "") throw new GmailError("invalid_response", `Gmail ${what} answered without \`${key}\``, 200);
  return id;
}

export function toProfile(body: Json): Profile {
  return { emailAddress: requireId(body, "emailAddress", "getProfile").toLowerCase(), messagesTotal: num(body.messagesTotal) ?? 0, threadsTotal: num(body.threadsTotal) ?? 0, historyId: str(body.historyId) };
}

function header(headers: Json[], name: string): string | null {
  const found = headers.find((h) => typeof h.name === "string" && h.name.toLowerCase() === name);
  return found && typeof found.value === "string" ? found.value : null;
}

function charsetOf(headers: Json[], mimeType: string): string | null {
  const type = header(headers, "content-type") ?? mimeType;
  const match = /charset="?([^";\s]+)"?/i.exec(type);
  return match ? match[1] : null;
}

/** Walks a payload tree: first text/plain, first text/html, and the attachments. */
function walk(part: Json, out: { text: string | null; html: string | null; attachments: AttachmentInfo[] }): void {
  const mimeType = str(part.mimeType).toLowerCase();
  const headers = objects(part.headers);
  const body = part.body && typeof part.body === "object" ? (part.body as Json) : {};
  const filename = str(part.filename);
  if (typeof body.attachmentId === "string" && body.attachmentId !== "") {
    out.attachments.push({ attachmentId: body.attachmentId, filename: filename || "attachment", mimeType: mimeType || "application/octet-stream", size: num(body.size) ?? 0 });
  } else if (filename === "" && (mimeType === "text/plain" || mimeType === "text/html") && typeof body.data === "string") {
    const bytes = fromBase64(body.data);
    const decoded = bytes ? decodeText(bytes, charsetOf(headers, mimeType)) : null;
    if (mimeType === "text/plain" && out.text === null) out.text = decoded;
    if (mimeType === "text/html" && out.html === null) out.html = decoded;
  }
  for (const child of objects(part.parts)) walk(child, out);
}

export function toMessage(body: Json): Message {
  const payload = body.payload && typeof body.payload === "object" ? (body.payload as Json) : {};
  const headers = objects(payload.headers);
  const parts = { text: null as string | null, html: null as string | null, attachments: [] as AttachmentInfo[] };
  walk(payload, parts);
  const labelIds = strings(body.labelIds);
  const internal = num(body.internalDate);
  const subject = header(headers, "subject");
  return {
    id: requireId(body, "id", "message"),
    threadId: str(body.threadId),
    labelIds,
    snippet: str(body.snippet),
    historyId: str(body.historyId),
    internalDate: internal === null ? null : new Date(internal).toISOString(),
    unread: labelIds.includes("UNREAD"),
    from: parseAddressList(header(headers, "from"))[0] ?? null,
    to: parseAddressList(header(headers, "to")),
    cc: parseAddressList(header(headers, "cc")),
    bcc: parseAddressList(header(headers, "bcc")),
    replyTo: parseAddressList(header(headers, "reply-to")),
    subject: subject === null ? "" : decodeWords(subject),
    date: header(headers, "date"),
    messageIdHeader: header(headers, "message-id"),
    references: header(headers, "references"),
    text: parts.text,
    html: parts.html,
    attachments: parts.attachments,
  };
}

export function toThread(body: Json): Thread {
  return { id: requireId(body, "id", "thread"), historyId: str(body.historyId), messages: objects(body.messages).map(toMessage) };
}

export function toThreadPage(body: Json): ThreadPage {
  return {
    threads: objects(body.threads).map((t) => ({ id: requireId(t, "id", "threads.list"), snippet: str(t.snippet), historyId: str(t.historyId) })),
    nextPageToken: typeof body.nextPageToken === "string" && body.nextPageToken !== "" ? body.nextPageToken : null,
    resultSizeEstimate: num(body.resultSizeEstimate) ?? 0,
  };
}

export function toSent(body: Json): SentMessage {
  return { id: requireId(body, "id", "send"), threadId: str(body.threadId), labelIds: strings(body.labelIds) };
}

export function toDraft(body: Json): Draft {
  const message = body.message && typeof body.message === "object" ? (body.message as Json) : {};
  return { id: requireId(body, "id", "draft"), messageId: str(message.id), threadId: str(message.threadId) };
}

export function toDraftDetail(body: Json): DraftDetail {
  const message = body.message && typeof body.message === "object" ? (body.message as Json) : null;
  if (!message) throw new GmailError("invalid_response", "Gmail drafts.get answered without `message`", 200);
  return { id: requireId(body, "id", "draft"), message: toMessage(message) };
}

export function toDraftPage(body: Json): DraftPage {
  return {
    drafts: objects(body.drafts).map(toDraft),
    nextPageToken: typeof body.nextPageToken === "string" && body.nextPageToken !== "" ? body.nextPageToken : null,
    resultSizeEstimate: num(body.resultSizeEstimate) ?? 0,
  };
}

export function toLabel(body: Json): Label {
  return {
    id: requireId(body, "id", "label"),
    name: str(body.name),
    type: str(body.type) || "user",
    messageListVisibility: typeof body.messageListVisibility === "string" ? body.messageListVisibility : null,
    labelListVisibility: typeof body.labelListVisibility === "string" ? body.labelListVisibility : null,
    messagesTotal: num(body.messagesTotal),
    messagesUnread: num(body.messagesUnread),
    threadsTotal: num(body.threadsTotal),
    threadsUnread: num(body.threadsUnread),
  };
}

export function toLabels(body: Json): Label[] {
  return objects(body.labels).map(toLabel);
}

/** A thread's labels: the union over its messages. */
export function threadLabels(body: Json): LabelChange {
  const labels = new Set<string>();
  for (const m of objects(body.messages)) for (const l of strings(m.labelIds)) labels.add(l);
  return { id: requireId(body, "id", "threads.modify"), labelIds: [...labels] };
}

export function toTriageItem(thread: Thread, snippet: string): TriageItem | null {
  const newest = thread.messages[thread.messages.length - 1];
  if (!newest) return null;
  return {
    threadId: thread.id,
    messageId: newest.id,
    from: newest.from,
    subject: newest.subject,
    date: newest.date,
    snippet: snippet || newest.snippet,
    unread: thread.messages.some((m) => m.unread),
    labelIds: newest.labelIds,
    messageCount: thread.messages.length,
  };
}
