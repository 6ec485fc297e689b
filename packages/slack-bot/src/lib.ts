// @svc/slack-bot: the Slack Web API as the workspace's bot (SLACK_BOT_TOKEN).
import { check } from "svc:security";
import { nextCursor, toConversation, toIdentity, toMessage, toUser, type Conversation, type Identity, type Message, type Page, type PostedMessage, type User } from "@svc/kit";
import { callGet, callPost, field, items, messagePage, openConversation, posted, SlackError, type Json } from "./client";
import { blocksArg, channelIdArg, emojiArg, flagArg, limitArg, optionsArg, pageTokenArg, sendExtras, textArg, tsArg, typesArg, userIdArg, userIdsArg } from "./args";

export { SlackError };
export type { Conversation, Identity, Message, MessageFile, Page, PostedMessage, Reaction, User } from "@svc/kit";

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

/** Options of `listConversations`. */
export interface ListConversationsOptions extends PageOptions {
  /** Kinds to list; default public and private channels. */
  types?: Array<"public_channel" | "private_channel" | "mpim" | "im"> | null;
  /** Leave archived channels out (default true). */
  excludeArchived?: boolean | null;
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
 * @param channelId Conversation id (`C…`, `G…` or `D…`); the bot must be a member.
 * @param text Message text in Slack mrkdwn, at most 40,000 characters.
 * @param options Thread, broadcast, Block Kit blocks, link unfurling.
 * @returns The posted message with its `ts`.
 * @capability slack.com/bot/sendMessage { channelId }
 */
export function sendMessage(channelId: string, text: string, options?: SendOptions | null): PostedMessage {
  const channel = channelIdArg(channelId);
  const message = textArg(text);
  const extras = sendExtras(optionsArg(options));
  check("slack.com/bot/sendMessage", { channelId: channel });
  return posted(callPost("chat.postMessage", { channel, text: message, ...extras }), channel);
}

/**
 * Replace the text (and optionally the blocks) of a message the bot posted.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param text New text.
 * @param options `blocks` to replace the message's blocks.
 * @returns The updated message's channel, `ts` and text.
 * @capability slack.com/bot/updateMessage { channelId }
 */
export function updateMessage(channelId: string, ts: string, text: string, options?: { blocks?: unknown[] | null } | null): { channelId: string; ts: string; text: string } {
  const channel = channelIdArg(channelId);
  const messageTs = tsArg(ts);
  const message = textArg(text);
  const blocks = blocksArg(optionsArg(options).blocks);
  check("slack.com/bot/updateMessage", { channelId: channel });
  const body = callPost("chat.update", { channel, ts: messageTs, text: message, blocks });
  return { channelId: typeof body.channel === "string" ? body.channel : channel, ts: typeof body.ts === "string" ? body.ts : messageTs, text: typeof body.text === "string" ? body.text : message };
}

/**
 * Delete a message the bot posted.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @capability slack.com/bot/deleteMessage { channelId }
 */
export function deleteMessage(channelId: string, ts: string): void {
  const channel = channelIdArg(channelId);
  const messageTs = tsArg(ts);
  check("slack.com/bot/deleteMessage", { channelId: channel });
  callPost("chat.delete", { channel, ts: messageTs });
}

/**
 * Add an emoji reaction to a message.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param name Emoji name, with or without colons ("thumbsup").
 * @capability slack.com/bot/addReaction { channelId }
 */
export function addReaction(channelId: string, ts: string, name: string): void {
  const channel = channelIdArg(channelId);
  const timestamp = tsArg(ts);
  const emoji = emojiArg(name);
  check("slack.com/bot/addReaction", { channelId: channel });
  callPost("reactions.add", { channel, timestamp, name: emoji });
}

/**
 * Remove the bot's emoji reaction from a message.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param name Emoji name, with or without colons.
 * @capability slack.com/bot/removeReaction { channelId }
 */
export function removeReaction(channelId: string, ts: string, name: string): void {
  const channel = channelIdArg(channelId);
  const timestamp = tsArg(ts);
  const emoji = emojiArg(name);
  check("slack.com/bot/removeReaction", { channelId: channel });
  callPost("reactions.remove", { channel, timestamp, name: emoji });
}

/**
 * Describe a conversation: name, kind, topic, purpose, membership.
 * @param channelId Conversation id.
 * @returns The conversation.
 * @capability slack.com/bot/getConversation { channelId }
 */
export function getConversation(channelId: string): Conversation {
  const channel = channelIdArg(channelId);
  check("slack.com/bot/getConversation", { channelId: channel });
  const body = callGet("conversations.info", { channel, include_num_members: true });
  return toConversation(field(body, "channel", "conversations.info"));
}

/**
 * List conversations the bot can see, one page at a time.
 * @param options Kinds (`types`), `excludeArchived`, `limit`, `pageToken`.
 * @returns A page of conversations.
 * @capability slack.com/bot/listConversations {}
 */
export function listConversations(options?: ListConversationsOptions | null): Page<Conversation> {
  const o = optionsArg(options);
  const types = typesArg(o.types, ["public_channel", "private_channel"]);
  const excludeArchived = flagArg(o.excludeArchived, "options.excludeArchived") ?? true;
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/bot/listConversations", {});
  const body = callGet("conversations.list", { types, exclude_archived: excludeArchived, limit, cursor });
  return { items: items(body, "channels", "conversations.list").map(toConversation), nextPageToken: nextCursor(body) };
}

/**
 * List the user ids of a conversation's members, one page at a time.
 * @param channelId Conversation id.
 * @param options `limit`, `pageToken`.
 * @returns A page of user ids.
 * @capability slack.com/bot/listMembers { channelId }
 */
export function listMembers(channelId: string, options?: PageOptions | null): Page<string> {
  const channel = channelIdArg(channelId);
  const o = optionsArg(options);
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/bot/listMembers", { channelId: channel });
  const body = callGet("conversations.members", { channel, limit, cursor });
  return { items: items(body, "members", "conversations.members").filter((m): m is string => typeof m === "string"), nextPageToken: nextCursor(body) };
}

/**
 * List a conversation's messages, newest first, one page at a time (thread replies are not included; use `getThread`).
 * @param channelId Conversation id.
 * @param options `oldest`, `latest`, `inclusive`, `limit`, `pageToken`.
 * @returns A page of messages.
 * @capability slack.com/bot/listMessages { channelId }
 */
export function listMessages(channelId: string, options?: ListMessagesOptions | null): Page<Message> {
  const channel = channelIdArg(channelId);
  const o = optionsArg(options);
  const oldest = o.oldest == null ? undefined : tsArg(o.oldest, "options.oldest");
  const latest = o.latest == null ? undefined : tsArg(o.latest, "options.latest");
  const inclusive = flagArg(o.inclusive, "options.inclusive");
  const limit = limitArg(o.limit, "options.limit", 999);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/bot/listMessages", { channelId: channel });
  return messagePage(callGet("conversations.history", { channel, oldest, latest, inclusive, limit, cursor }), "conversations.history", channel);
}

/**
 * Fetch one message by its `ts`, whether it is a channel message or a thread reply.
 * @param channelId Conversation id.
 * @param ts The message's `ts`.
 * @returns The message; SlackError `not_found` when the conversation has no message at that `ts`.
 * @capability slack.com/bot/getMessage { channelId }
 */
export function getMessage(channelId: string, ts: string): Message {
  const channel = channelIdArg(channelId);
  const messageTs = tsArg(ts);
  check("slack.com/bot/getMessage", { channelId: channel });
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
 * @capability slack.com/bot/getThread { channelId }
 */
export function getThread(channelId: string, threadTs: string, options?: PageOptions | null): Page<Message> {
  const channel = channelIdArg(channelId);
  const parent = tsArg(threadTs, "threadTs");
  const o = optionsArg(options);
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/bot/getThread", { channelId: channel });
  return messagePage(callGet("conversations.replies", { channel, ts: parent, limit, cursor }), "conversations.replies", channel);
}

/**
 * Describe a workspace member.
 * @param userId User id (`U…` or `W…`).
 * @returns The user (the email only when the bot has `users:read.email`).
 * @capability slack.com/bot/getUser { userId }
 */
export function getUser(userId: string): User {
  const user = userIdArg(userId);
  check("slack.com/bot/getUser", { userId: user });
  return toUser(field(callGet("users.info", { user }), "user", "users.info"));
}

/**
 * List workspace members, one page at a time.
 * @param options `limit`, `pageToken`.
 * @returns A page of users.
 * @capability slack.com/bot/listUsers {}
 */
export function listUsers(options?: PageOptions | null): Page<User> {
  const o = optionsArg(options);
  const limit = limitArg(o.limit);
  const cursor = pageTokenArg(o.pageToken);
  check("slack.com/bot/listUsers", {});
  const body = callGet("users.list", { limit, cursor });
  return { items: items(body, "members", "users.list").map(toUser), nextPageToken: nextCursor(body) };
}

/**
 * Open (or find) the direct-message conversation between the bot and one user.
 * @param userId User id.
 * @returns The conversation id (`D…`).
 * @capability slack.com/bot/openDirectMessage { userId }
 */
export function openDirectMessage(userId: string): { channelId: string } {
  const user = userIdArg(userId);
  check("slack.com/bot/openDirectMessage", { userId: user });
  return { channelId: openConversation([user]) };
}

/**
 * Open (or find) a group direct message between the bot and 2 to 8 users.
 * @param userIds The users' ids.
 * @returns The conversation id.
 * @capability slack.com/bot/openGroupDirectMessage { userIds: string[] }
 */
export function openGroupDirectMessage(userIds: string[]): { channelId: string } {
  const users = userIdsArg(userIds);
  check("slack.com/bot/openGroupDirectMessage", { userIds: users });
  return { channelId: openConversation(users) };
}

/**
 * Send a direct message to one user (opens the conversation first).
 * @param userId User id.
 * @param text Message text.
 * @param options Thread, blocks, link unfurling.
 * @returns The posted message.
 * @capability slack.com/bot/sendDirectMessage { userId }
 */
export function sendDirectMessage(userId: string, text: string, options?: SendOptions | null): PostedMessage {
  const user = userIdArg(userId);
  const message = textArg(text);
  const extras = sendExtras(optionsArg(options));
  check("slack.com/bot/sendDirectMessage", { userId: user });
  const channel = openConversation([user]);
  return posted(callPost("chat.postMessage", { channel, text: message, ...extras }), channel);
}

/**
 * Send a message to a group direct message of 2 to 8 users (opens the conversation first).
 * @param userIds The users' ids.
 * @param text Message text.
 * @param options Thread, blocks, link unfurling.
 * @returns The posted message.
 * @capability slack.com/bot/sendGroupDirectMessage { userIds: string[] }
 */
export function sendGroupDirectMessage(userIds: string[], text: string, options?: SendOptions | null): PostedMessage {
  const users = userIdsArg(userIds);
  const message = textArg(text);
  const extras = sendExtras(optionsArg(options));
  check("slack.com/bot/sendGroupDirectMessage", { userIds: users });
  const channel = openConversation(users);
  return posted(callPost("chat.postMessage", { channel, text: message, ...extras }), channel);
}

/**
 * Who the bot token belongs to: bot user, bot id, team and workspace URL (`auth.test`).
 * @returns The identity.
 * @capability slack.com/bot/getIdentity {}
 */
export function getIdentity(): Identity {
  check("slack.com/bot/getIdentity", {});
  return toIdentity(callPost("auth.test"));
}
