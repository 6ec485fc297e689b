// @svc/slack-user: the Slack Web API as the authenticated user (SLACK_USER_TOKEN). The
// operations both Slack Packages offer keep their capability and check here and are written
// once in @svc/kit, sending through this Package's own client; search and files are its own.
import { check } from "svc:security";
import { download } from "svc:http";
import { failureCode, nextCursor, toUser, type Conversation, type Identity, type ListConversationsOptions, type ListMessagesOptions, type Message, type Page, type PageOptions, type PostedMessage, type SendOptions, type User } from "@svc/kit";
import { callGet, field, slack, SlackError, tokenHeader } from "./client";
import { emailArg, fileIdArg, filesUrlArg, flagArg, limitArg, optionsArg, pageTokenArg, pathArg, queryArg } from "./args";
import { toFile, toSearchPage, type SearchPage, type SlackFile } from "./model";

export { SlackError };
export type { Conversation, Identity, ListMessagesOptions, Message, MessageFile, Page, PageOptions, PostedMessage, Reaction, SendOptions, User } from "@svc/kit";
/** Options of `listChannels`. */
export type ListChannelsOptions = ListConversationsOptions;
export type { SearchMatch, SearchPage, SlackFile } from "./model";

const FILES = "https://files.slack.com/";
/** Largest file `downloadFile` writes (bytes). */
const MAX_DOWNLOAD = 20000000;

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

/**
 * Post a message to a conversation (channel, private channel or direct message), optionally as a thread reply.
 * @param channelId Conversation id (`C…`, `G…` or `D…`); the user must be a member.
 * @param text Message text in Slack mrkdwn, at most 40,000 characters.
 * @param options Thread, broadcast, Block Kit blocks, link unfurling.
 * @returns The posted message with its `ts`.
 * @capability slack.com/user/sendMessage { channelId }
 */
export function sendMessage(channelId: string, text: string, options?: SendOptions | null): PostedMessage {
  const op = slack.sendMessage(channelId, text, options);
  check("slack.com/user/sendMessage", { channelId: op.channelId });
  return op.run();
}

/**
 * Add an emoji reaction to a message.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param name Emoji name, with or without colons ("thumbsup").
 * @capability slack.com/user/addReaction { channelId }
 */
export function addReaction(channelId: string, ts: string, name: string): void {
  const op = slack.addReaction(channelId, ts, name);
  check("slack.com/user/addReaction", { channelId: op.channelId });
  op.run();
}

/**
 * List a conversation's messages, newest first, one page at a time (thread replies are not included; use `getThread`).
 * @param channelId Conversation id.
 * @param options `oldest`, `latest`, `inclusive`, `limit`, `pageToken`.
 * @returns A page of messages.
 * @capability slack.com/user/listMessages { channelId }
 */
export function listMessages(channelId: string, options?: ListMessagesOptions | null): Page<Message> {
  const op = slack.listMessages(channelId, options);
  check("slack.com/user/listMessages", { channelId: op.channelId });
  return op.run();
}

/**
 * Fetch one message by its `ts`, whether it is a channel message or a thread reply.
 * @param channelId Conversation id.
 * @param ts The message's `ts`.
 * @returns The message; SlackError `not_found` when the conversation has no message at that `ts`.
 * @capability slack.com/user/getMessage { channelId }
 */
export function getMessage(channelId: string, ts: string): Message {
  const op = slack.getMessage(channelId, ts);
  check("slack.com/user/getMessage", { channelId: op.channelId });
  return op.run();
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
  const op = slack.getThread(channelId, threadTs, options);
  check("slack.com/user/getThread", { channelId: op.channelId });
  return op.run();
}

/**
 * Describe a workspace member.
 * @param userId User id (`U…` or `W…`).
 * @returns The user (the email only with the `users:read.email` scope).
 * @capability slack.com/user/getUser { userId }
 */
export function getUser(userId: string): User {
  const op = slack.getUser(userId);
  check("slack.com/user/getUser", { userId: op.userId });
  return op.run();
}

/**
 * List workspace members, one page at a time.
 * @param options `limit`, `pageToken`.
 * @returns A page of users.
 * @capability slack.com/user/listUsers {}
 */
export function listUsers(options?: PageOptions | null): Page<User> {
  const op = slack.listUsers(options);
  check("slack.com/user/listUsers", {});
  return op.run();
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
  const op = slack.sendDirectMessage(userId, text, options);
  check("slack.com/user/sendDirectMessage", { userId: op.userId });
  return op.run();
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
  const op = slack.sendGroupDirectMessage(userIds, text, options);
  check("slack.com/user/sendGroupDirectMessage", { userIds: op.userIds });
  return op.run();
}

/**
 * Who the user token belongs to: user, team and workspace URL (`auth.test`).
 * @returns The identity.
 * @capability slack.com/user/getIdentity {}
 */
export function getIdentity(): Identity {
  const op = slack.getIdentity();
  check("slack.com/user/getIdentity", {});
  return op.run();
}

/**
 * Describe a conversation (channel, private channel or direct message): name, kind, topic, purpose, membership.
 * @param channelId Conversation id.
 * @returns The conversation.
 * @capability slack.com/user/getChannel { channelId }
 */
export function getChannel(channelId: string): Conversation {
  const op = slack.getConversation(channelId);
  check("slack.com/user/getChannel", { channelId: op.channelId });
  return op.run();
}

/**
 * List conversations the user is in or can see, one page at a time.
 * @param options Kinds (`types`), `excludeArchived`, `limit`, `pageToken`.
 * @returns A page of conversations.
 * @capability slack.com/user/listChannels {}
 */
export function listChannels(options?: ListChannelsOptions | null): Page<Conversation> {
  const op = slack.listConversations(options);
  check("slack.com/user/listChannels", {});
  return op.run();
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
    throw new SlackError(failureCode(result.status), `Slack file download failed: HTTP ${result.status}; the file written holds Slack's answer`, result.status);
  }
  return { path: result.path, bytesWritten: result.bytesWritten, contentType: result.contentType };
}
