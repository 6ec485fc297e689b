// @svc/slack-bot: the Slack Web API as the workspace's bot (SLACK_BOT_TOKEN). Each function
// keeps its capability and its check; the operation itself is written once in @svc/kit and
// sends through this Package's own client.
import { check } from "svc:security";
import type { Conversation, Identity, ListConversationsOptions, ListMessagesOptions, Message, Page, PageOptions, PostedMessage, SendOptions, User } from "@svc/kit";
import { slack, SlackError } from "./client";

export { SlackError };
export type { Conversation, Identity, ListConversationsOptions, ListMessagesOptions, Message, MessageFile, Page, PageOptions, PostedMessage, Reaction, SendOptions, User } from "@svc/kit";

/**
 * Post a message to a conversation (channel, private channel or direct message), optionally as a thread reply.
 * @param channelId Conversation id (`C…`, `G…` or `D…`); the bot must be a member.
 * @param text Message text in Slack mrkdwn, at most 40,000 characters.
 * @param options Thread, broadcast, Block Kit blocks, link unfurling.
 * @returns The posted message with its `ts`.
 * @capability slack.com/bot/sendMessage { channelId }
 */
export function sendMessage(channelId: string, text: string, options?: SendOptions | null): PostedMessage {
  const op = slack.sendMessage(channelId, text, options);
  check("slack.com/bot/sendMessage", { channelId: op.channelId });
  return op.run();
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
  const op = slack.updateMessage(channelId, ts, text, options);
  check("slack.com/bot/updateMessage", { channelId: op.channelId });
  return op.run();
}

/**
 * Delete a message the bot posted.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @capability slack.com/bot/deleteMessage { channelId }
 */
export function deleteMessage(channelId: string, ts: string): void {
  const op = slack.deleteMessage(channelId, ts);
  check("slack.com/bot/deleteMessage", { channelId: op.channelId });
  op.run();
}

/**
 * Add an emoji reaction to a message.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param name Emoji name, with or without colons ("thumbsup").
 * @capability slack.com/bot/addReaction { channelId }
 */
export function addReaction(channelId: string, ts: string, name: string): void {
  const op = slack.addReaction(channelId, ts, name);
  check("slack.com/bot/addReaction", { channelId: op.channelId });
  op.run();
}

/**
 * Remove the bot's emoji reaction from a message.
 * @param channelId Conversation id of the message.
 * @param ts The message's `ts`.
 * @param name Emoji name, with or without colons.
 * @capability slack.com/bot/removeReaction { channelId }
 */
export function removeReaction(channelId: string, ts: string, name: string): void {
  const op = slack.removeReaction(channelId, ts, name);
  check("slack.com/bot/removeReaction", { channelId: op.channelId });
  op.run();
}

/**
 * Describe a conversation: name, kind, topic, purpose, membership.
 * @param channelId Conversation id.
 * @returns The conversation.
 * @capability slack.com/bot/getConversation { channelId }
 */
export function getConversation(channelId: string): Conversation {
  const op = slack.getConversation(channelId);
  check("slack.com/bot/getConversation", { channelId: op.channelId });
  return op.run();
}

/**
 * List conversations the bot can see, one page at a time.
 * @param options Kinds (`types`), `excludeArchived`, `limit`, `pageToken`.
 * @returns A page of conversations.
 * @capability slack.com/bot/listConversations {}
 */
export function listConversations(options?: ListConversationsOptions | null): Page<Conversation> {
  const op = slack.listConversations(options);
  check("slack.com/bot/listConversations", {});
  return op.run();
}

/**
 * List the user ids of a conversation's members, one page at a time.
 * @param channelId Conversation id.
 * @param options `limit`, `pageToken`.
 * @returns A page of user ids.
 * @capability slack.com/bot/listMembers { channelId }
 */
export function listMembers(channelId: string, options?: PageOptions | null): Page<string> {
  const op = slack.listMembers(channelId, options);
  check("slack.com/bot/listMembers", { channelId: op.channelId });
  return op.run();
}

/**
 * List a conversation's messages, newest first, one page at a time (thread replies are not included; use `getThread`).
 * @param channelId Conversation id.
 * @param options `oldest`, `latest`, `inclusive`, `limit`, `pageToken`.
 * @returns A page of messages.
 * @capability slack.com/bot/listMessages { channelId }
 */
export function listMessages(channelId: string, options?: ListMessagesOptions | null): Page<Message> {
  const op = slack.listMessages(channelId, options);
  check("slack.com/bot/listMessages", { channelId: op.channelId });
  return op.run();
}

/**
 * Fetch one message by its `ts`, whether it is a channel message or a thread reply.
 * @param channelId Conversation id.
 * @param ts The message's `ts`.
 * @returns The message; SlackError `not_found` when the conversation has no message at that `ts`.
 * @capability slack.com/bot/getMessage { channelId }
 */
export function getMessage(channelId: string, ts: string): Message {
  const op = slack.getMessage(channelId, ts);
  check("slack.com/bot/getMessage", { channelId: op.channelId });
  return op.run();
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
  const op = slack.getThread(channelId, threadTs, options);
  check("slack.com/bot/getThread", { channelId: op.channelId });
  return op.run();
}

/**
 * Describe a workspace member.
 * @param userId User id (`U…` or `W…`).
 * @returns The user (the email only when the bot has `users:read.email`).
 * @capability slack.com/bot/getUser { userId }
 */
export function getUser(userId: string): User {
  const op = slack.getUser(userId);
  check("slack.com/bot/getUser", { userId: op.userId });
  return op.run();
}

/**
 * List workspace members, one page at a time.
 * @param options `limit`, `pageToken`.
 * @returns A page of users.
 * @capability slack.com/bot/listUsers {}
 */
export function listUsers(options?: PageOptions | null): Page<User> {
  const op = slack.listUsers(options);
  check("slack.com/bot/listUsers", {});
  return op.run();
}

/**
 * Open (or find) the direct-message conversation between the bot and one user.
 * @param userId User id.
 * @returns The conversation id (`D…`).
 * @capability slack.com/bot/openDirectMessage { userId }
 */
export function openDirectMessage(userId: string): { channelId: string } {
  const op = slack.openDirectMessage(userId);
  check("slack.com/bot/openDirectMessage", { userId: op.userId });
  return op.run();
}

/**
 * Open (or find) a group direct message between the bot and 2 to 8 users.
 * @param userIds The users' ids.
 * @returns The conversation id.
 * @capability slack.com/bot/openGroupDirectMessage { userIds: string[] }
 */
export function openGroupDirectMessage(userIds: string[]): { channelId: string } {
  const op = slack.openGroupDirectMessage(userIds);
  check("slack.com/bot/openGroupDirectMessage", { userIds: op.userIds });
  return op.run();
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
  const op = slack.sendDirectMessage(userId, text, options);
  check("slack.com/bot/sendDirectMessage", { userId: op.userId });
  return op.run();
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
  const op = slack.sendGroupDirectMessage(userIds, text, options);
  check("slack.com/bot/sendGroupDirectMessage", { userIds: op.userIds });
  return op.run();
}

/**
 * Who the bot token belongs to: bot user, bot id, team and workspace URL (`auth.test`).
 * @returns The identity.
 * @capability slack.com/bot/getIdentity {}
 */
export function getIdentity(): Identity {
  const op = slack.getIdentity();
  check("slack.com/bot/getIdentity", {});
  return op.run();
}
