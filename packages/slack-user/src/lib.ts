// @svc/slack-user: the Slack Web API as the authenticated user (SLACK_USER_TOKEN).
import { check } from "svc:security";
import { download } from "svc:http";
import { nextCursor, toConversation, toIdentity, toMessage, toUser, type Conversation, type Identity, type Message, type Page, type PostedMessage, type User } from "@svc/kit";
import { callGet, callPost, field, items, messagePage, openConversation, posted, SlackError, tokenHeader, type Json } from "./client";
import { channelIdArg, emailArg, emojiArg, fileIdArg, filesUrlArg, flagArg, limitArg, optionsArg, pageTokenArg, pathArg, queryArg, sendExtras, textArg, tsArg, typesArg, userIdArg, userIdsArg } from "./args";
import { toFile, toSearchPage, type SearchPage, type SlackFile } from "./model";

export { SlackError };
export type { Conversation, Identity, Message, MessageFile, Page, PostedMessage, Reaction, User } from "@svc/kit";
export type { SearchMatch, SearchPage, SlackFile } from "./model";

const FILES = "https://files.slack.com/";
/** Largest file `downloadFile` writes (bytes). */
const MAX_DOWNLOAD = 20000000;

/** Options of the message-sending functions. */
export interface SendOptions {
  /** Reply in the thread of this parent message `ts`. */
  threadTs?: string | null;
  /** With `threadTs`: also show the reply in the channel. */
  replyBroadcast?: boolean | null;
  /** Block Kit blocks; `text` is then the notification fallback. */
  blocks?: unknown[] | null;
  /** Unfurl links in the text (Slack's default when omitted). */
  unfurlLinks?: boolean | null;
}

/** Options of the paged lists. */
export interface PageOptions {
  /** Items per page (Slack caps it; default chosen by Slack). */
  limit?: number | null;
  /** `nextPageToken` of the previous page. */
  pageToken?: string | null;
}

/** Options of `listChannels`. */
export interface ListChannelsOptions extends PageOptions {
  /** Kinds to list; default public and private channels. */
  types?: Array<"public_channel" | "private_channel" | "mpim" | "im"> | null;
  /** Leave archived channels out (default true). */
  excludeArchived?: boolean | null;
}

/** Options of `search`. */
export interface SearchOptions {
  /** `score` (default) or `timestamp`. */
  sort?: "score" | "timestamp" | null;
  /** `desc` (default) or `asc`. */
  sortDir?: "asc" | "desc" | null;
  /** Matches per page, 1 to 100 (Slack's default 20). */
  limit?: number | null;
  /** `nextPageToken` of the previous page. */
  pageToken?: string | null;
}

/** What `downloadFile` wrote. */
export interface DownloadedFile {
  /** Normalised absolute file-area path. */
  path: string;
  bytesWritten: number;
  contentType: string;
}

/** Options of `listMessages`. */
export interface ListMessagesOptions extends PageOptions {
  /** Only messages after this `ts`. */
  oldest?: string | null;
  /** Only messages before this `ts`. */
  latest?: string | null;
  /** Include messages exactly at `oldest` / `latest`. */
  inclusive?: boolean | null;
}

/**
 * Post a message to a conversation (channel, private channel or direct message), optionally as a thread reply.
 * @param channelId Conversation id (`C…`, `G…` or `D…`); the user must be a member.
 * @param text Message text in Slack mrkdwn, at most 40,000 characters.
 * @param options Thread, broadcast, Block Kit blocks, link unfurling.
 * @returns The posted message with its `ts`.
 * @capability slack.com/user/sendMessage { channelId }
 */
export function sendMessage(channelId: string, text: string, options?: SendOptions | null): PostedMessage {
  const channel = channelIdArg(channelId);
  const message = textArg(text);
  const extras = sendExtras(optionsArg(options));
  check("slack.com/user/sendMessage", { channelId: channel });
  return posted(callPost("chat.postMessage", { channel, text: message, ...extras }), channel);
}

/**
 * Add an emoji reaction to a message.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param name Emoji name, with or without colons ("thumbsup").
 * @capability slack.com/user/addReaction { channelId }
 */
export function addReaction(channelId: string, ts: string, name: string): void {
  const channel = channelIdArg(channelId);
  const timestamp = tsArg(ts);
  const emoji = emojiArg(name);
  check("slack.com/user/addReaction", { channelId: channel });
  callPost("reactions.add", { channel, timestamp, name: emoji });
}

/**
 * List a conversation's messages, newest first, one page at a time (thread replies are not included; use `getThread`).
 * @param channelId Conversation id.
 * @param options `oldest`, `latest`, `inclusive`, `limit`, `pageToken`.
 * @returns A page of messages.
 * @capability slack.com/user/listMessages { channelId }
 */
export function listMessages(channelId: string, options?: ListMessagesOptions | null): Page<Message> {
  const channel = channelIdArg(channelId);
  const o = optionsArg(options);
  const oldest = o.oldest == null ? undefined : tsArg(o.oldest, "options.oldest");
  const latest = o.latest == null ? undefined : tsArg(o.latest, "options.latest");
  const inclusive = flagArg(o.inclusive, "options.inclusive");
  const limit = limitArg(o.limit, "options.limit", 999);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/user/listMessages", { channelId: channel });
  return messagePage(callGet("conversations.history", { channel, oldest, latest, inclusive, limit, cursor }), "conversations.history", channel);
}

/**
 * Fetch one message by its `ts`, whether it is a channel message or a thread reply.
 * @param channelId Conversation id.
 * @param ts The message's `ts`.
 * @returns The message; SlackError `not_found` when the conversation has no message at that `ts`.
 * @capability slack.com/user/getMessage { channelId }
 */
export function getMessage(channelId: string, ts: string): Message {
  const channel = channelIdArg(channelId);
  const messageTs = tsArg(ts);
  check("slack.com/user/getMessage", { channelId: channel });
  const history = callGet("conversations.history", { channel, latest: messageTs, oldest: messageTs, inclusive: true, limit: 1 });
  let found = items(history, "messages", "conversations.history").map((m) => toMessage(m, channel)).find((m) => m.ts === messageTs);
  if (!found) {
    // A thread reply is not in the history; conversations.replies finds it by its own ts.
    const replies = callGet("conversations.replies", { channel, ts: messageTs, latest: messageTs, oldest: messageTs, inclusive: true, limit: 1 });
    found = items(replies, "messages", "conversations.replies").map((m) => toMessage(m, channel)).find((m) => m.ts === messageTs);
  }
  if (!found) throw new SlackError("not_found", `no message at ts ${messageTs} in ${channel}`, 200, { slackError: "message_not_found" });
  return found;
}

/**
 * Read a thread: the parent message followed by its replies, one page at a time.
 * @param channelId Conversation id.
 * @param threadTs The parent message's `ts`.
 * @param options `limit`, `pageToken`.
 * @returns A page of messages, parent first.
 * @capability slack.com/user/getThread { channelId }
 */
export function getThread(channelId: string, threadTs: string, options?: PageOptions | null): Page<Message> {
  const channel = channelIdArg(channelId);
  const parent = tsArg(threadTs, "threadTs");
  const o = optionsArg(options);
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/user/getThread", { channelId: channel });
  return messagePage(callGet("conversations.replies", { channel, ts: parent, limit, cursor }), "conversations.replies", channel);
}

/**
 * Describe a workspace member.
 * @param userId User id (`U…` or `W…`).
 * @returns The user (the email only with the `users:read.email` scope).
 * @capability slack.com/user/getUser { userId }
 */
export function getUser(userId: string): User {
  const user = userIdArg(userId);
  check("slack.com/user/getUser", { userId: user });
  return toUser(field(callGet("users.info", { user }), "user", "users.info"));
}

/**
 * List workspace members, one page at a time.
 * @param options `limit`, `pageToken`.
 * @returns A page of users.
 * @capability slack.com/user/listUsers {}
 */
export function listUsers(options?: PageOptions | null): Page<User> {
  const o = optionsArg(options);
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/user/listUsers", {});
  const body = callGet("users.list", { limit, cursor });
  return { items: items(body, "members", "users.list").map(toUser), nextPageToken: nextCursor(body) };
}

/**
 * Send a direct message to one user (opens the conversation first; sent as the user).
 * @param userId User id.
 * @param text Message text.
 * @param options Thread, blocks, link unfurling.
 * @returns The posted message.
 * @capability slack.com/user/sendDirectMessage { userId }
 */
export function sendDirectMessage(userId: string, text: string, options?: SendOptions | null): PostedMessage {
  const user = userIdArg(userId);
  const message = textArg(text);
  const extras = sendExtras(optionsArg(options));
  check("slack.com/user/sendDirectMessage", { userId: user });
  const channel = openConversation([user]);
  return posted(callPost("chat.postMessage", { channel, text: message, ...extras }), channel);
}

/**
 * Send a message to a group direct message of 2 to 8 users (opens the conversation first; sent as the user).
 * @param userIds The users' ids.
 * @param text Message text.
 * @param options Thread, blocks, link unfurling.
 * @returns The posted message.
 * @capability slack.com/user/sendGroupDirectMessage { userIds: string[] }
 */
export function sendGroupDirectMessage(userIds: string[], text: string, options?: SendOptions | null): PostedMessage {
  const users = userIdsArg(userIds);
  const message = textArg(text);
  const extras = sendExtras(optionsArg(options));
  check("slack.com/user/sendGroupDirectMessage", { userIds: users });
  const channel = openConversation(users);
  return posted(callPost("chat.postMessage", { channel, text: message, ...extras }), channel);
}

/**
 * Who the user token belongs to: user, team and workspace URL (`auth.test`).
 * @returns The identity.
 * @capability slack.com/user/getIdentity {}
 */
export function getIdentity(): Identity {
  check("slack.com/user/getIdentity", {});
  return toIdentity(callPost("auth.test"));
}

/**
 * Describe a conversation (channel, private channel or direct message): name, kind, topic, purpose, membership.
 * @param channelId Conversation id.
 * @returns The conversation.
 * @capability slack.com/user/getChannel { channelId }
 */
export function getChannel(channelId: string): Conversation {
  const channel = channelIdArg(channelId);
  check("slack.com/user/getChannel", { channelId: channel });
  const body = callGet("conversations.info", { channel, include_num_members: true });
  return toConversation(field(body, "channel", "conversations.info"));
}

/**
 * List conversations the user is in or can see, one page at a time.
 * @param options Kinds (`types`), `excludeArchived`, `limit`, `pageToken`.
 * @returns A page of conversations.
 * @capability slack.com/user/listChannels {}
 */
export function listChannels(options?: ListChannelsOptions | null): Page<Conversation> {
  const o = optionsArg(options);
  const types = typesArg(o.types, ["public_channel", "private_channel"]);
  const excludeArchived = flagArg(o.excludeArchived, "options.excludeArchived") ?? true;
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/user/listChannels", {});
  const body = callGet("conversations.list", { types, exclude_archived: excludeArchived, limit, cursor });
  return { items: items(body, "channels", "conversations.list").map(toConversation), nextPageToken: nextCursor(body) };
}

/**
 * Find a workspace member by email address.
 * @param email The address (case does not matter).
 * @returns The user; SlackError `not_found` when no member has that address.
 * @capability slack.com/user/findUserByEmail { email }
 */
export function findUserByEmail(email: string): User {
  const address = emailArg(email);
  check("slack.com/user/findUserByEmail", { email: address });
  return toUser(field(callGet("users.lookupByEmail", { email: address }), "user", "users.lookupByEmail"));
}

/**
 * Search messages the user can see, with Slack's search syntax (`in:#ops from:@ada deploy`), one page at a time.
 * @param query The search query.
 * @param options `sort`, `sortDir`, `limit` (1 to 100), `pageToken`.
 * @returns A page of matches with the total count.
 * @capability slack.com/user/search {}
 */
export function search(query: string, options?: SearchOptions | null): SearchPage {
  const q = queryArg(query);
  const o = optionsArg(options);
  if (o.sort != null && o.sort !== "score" && o.sort !== "timestamp") throw new SlackError("invalid_argument", 'options.sort must be "score" or "timestamp"');
  if (o.sortDir != null && o.sortDir !== "asc" && o.sortDir !== "desc") throw new SlackError("invalid_argument", 'options.sortDir must be "asc" or "desc"');
  const count = limitArg(o.limit, "options.limit", 100);
  const cursor = pageTokenArg(o.pageToken) ?? "*";
  check("slack.com/user/search", {});
  const body = callGet("search.messages", { query: q, sort: o.sort, sort_dir: o.sortDir, count, cursor });
  return toSearchPage(body, nextCursor(body));
}

/**
 * Describe a shared file: name, type, size, owner, the conversations it is in and its download URL.
 * @param fileId File id (`F…`).
 * @returns The file.
 * @capability slack.com/user/getFile {}
 */
export function getFile(fileId: string): SlackFile {
  const file = fileIdArg(fileId);
  check("slack.com/user/getFile", {});
  return toFile(field(callGet("files.info", { file }), "file", "files.info"));
}

/**
 * Download a Slack file (a `files.slack.com` URL from `getFile` or a message) into the file area, at most 20,000,000 bytes.
 * The caller's own `fs.write` rule for `path` is checked too.
 * @param url The file's `urlPrivateDownload` (or `urlPrivate`); only `https://files.slack.com/` URLs.
 * @param path Destination path in the file area; its parent directory must exist.
 * @param options `overwrite` an existing file (default false).
 * @returns The path written, the byte count and the content type.
 * @capability slack.com/user/downloadFile { path }
 */
export function downloadFile(url: string, path: string, options?: { overwrite?: boolean | null } | null): DownloadedFile {
  const rest = filesUrlArg(url, FILES);
  const destination = pathArg(path);
  const overwrite = flagArg(optionsArg(options).overwrite, "options.overwrite") ?? false;
  check("slack.com/user/downloadFile", { path: destination });
  check("fs.write", { path: destination, max_bytes: MAX_DOWNLOAD });
  const result = download(FILES + rest, destination, { headers: tokenHeader(), maxBytes: MAX_DOWNLOAD, overwrite });
  if (result.status === 429) throw new SlackError("rate_limited", "Slack file download is rate limited; the file written holds Slack's answer", 429, { slackError: "ratelimited" });
  if (result.status < 200 || result.status > 299) {
    const code = result.status === 401 ? "unauthorized" : result.status === 403 ? "forbidden" : result.status === 404 ? "not_found" : "http_error";
    throw new SlackError(code, `Slack file download failed: HTTP ${result.status}; the file written holds Slack's answer`, result.status);
  }
  return { path: result.path, bytesWritten: result.bytesWritten, contentType: result.contentType };
}
