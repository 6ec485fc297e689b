// The Slack operations both Slack Packages offer, written once as prepared calls. Preparing
// one reads and checks its arguments (invalid_argument before any permission check) and
// names the facts the Package's `check` sends; `run()` then performs it through the
// Package's own `callGet` / `callPost`. So each exported function of a Slack Package keeps
// its `@capability` tag, its literal `check(...)` before the effect, and the request with its
// token (from which the build derives the Package's grants), while the bodies live here.
import type { ErrorClass, Json } from "./errors";
import { nextCursor, slackArgumentChecks, toConversation, toIdentity, toMessage, toUser, type Conversation, type Identity, type Message, type Page, type PostedMessage, type SlackAnswers, type User } from "./slack";

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

/** Options of the conversation lists. */
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

/** How a Slack Package sends a request: its own functions, with its own token. */
export interface SlackCalls {
  /** A read method with GET and query parameters. */
  get(method: string, params?: Record<string, unknown>): Json;
  /** A write method with POST and a JSON body. */
  post(method: string, params?: Record<string, unknown>): Json;
}

/** An operation whose arguments are read and checked: the facts its capability check sends, and `run()` to perform it. */
export type Prepared<Facts, T> = Facts & { run(): T };
/** The fact of an operation on one conversation. */
type InChannel = { channelId: string };
/** The fact of an operation with one user. */
type WithUser = { userId: string };
/** The fact of an operation with a group of users (sorted, distinct). */
type WithUsers = { userIds: string[] };

/** The operations both Slack Packages export, prepared from raw arguments. */
export interface SlackOperations {
  sendMessage(channelId: unknown, text: unknown, options: unknown): Prepared<InChannel, PostedMessage>;
  updateMessage(channelId: unknown, ts: unknown, text: unknown, options: unknown): Prepared<InChannel, { channelId: string; ts: string; text: string }>;
  deleteMessage(channelId: unknown, ts: unknown): Prepared<InChannel, void>;
  addReaction(channelId: unknown, ts: unknown, name: unknown): Prepared<InChannel, void>;
  removeReaction(channelId: unknown, ts: unknown, name: unknown): Prepared<InChannel, void>;
  getConversation(channelId: unknown): Prepared<InChannel, Conversation>;
  listConversations(options: unknown): Prepared<{}, Page<Conversation>>;
  listMembers(channelId: unknown, options: unknown): Prepared<InChannel, Page<string>>;
  listMessages(channelId: unknown, options: unknown): Prepared<InChannel, Page<Message>>;
  getMessage(channelId: unknown, ts: unknown): Prepared<InChannel, Message>;
  getThread(channelId: unknown, threadTs: unknown, options: unknown): Prepared<InChannel, Page<Message>>;
  getUser(userId: unknown): Prepared<WithUser, User>;
  listUsers(options: unknown): Prepared<{}, Page<User>>;
  openDirectMessage(userId: unknown): Prepared<WithUser, { channelId: string }>;
  openGroupDirectMessage(userIds: unknown): Prepared<WithUsers, { channelId: string }>;
  sendDirectMessage(userId: unknown, text: unknown, options: unknown): Prepared<WithUser, PostedMessage>;
  sendGroupDirectMessage(userIds: unknown, text: unknown, options: unknown): Prepared<WithUsers, PostedMessage>;
  getIdentity(): Prepared<{}, Identity>;
}

/**
 * The Slack operations of one Package, raising its own error class and sending through its own calls.
 * @param errorClass The Package's SlackError.
 * @param answers The Package's `slackAnswers(SlackError, ...)`, which its calls read answers with.
 * @param calls The Package's `callGet` and `callPost`.
 * @returns One preparer per operation.
 */
export function slackOperations(errorClass: ErrorClass, answers: SlackAnswers, calls: SlackCalls): SlackOperations {
  const { blocksArg, channelIdArg, emojiArg, flagArg, limitArg, optionsArg, pageTokenArg, sendExtras, textArg, tsArg, typesArg, userIdArg, userIdsArg } = slackArgumentChecks(errorClass);
  const { field, items, messagePage, openedChannel, posted } = answers;
  const open = (users: string[]) => openedChannel(calls.post("conversations.open", { users: users.join(","), return_im: true }));
  const postTo = (channel: string, text: string, extras: Json) => posted(calls.post("chat.postMessage", { channel, text, ...extras }), channel);
  /** The page size and token of read options, read after the operation's own options (as they were in the Packages). */
  const paging = (o: Record<string, unknown>, max?: number) => ({ limit: limitArg(o.limit, "options.limit", max), cursor: pageTokenArg(o.pageToken) });
  const reaction = (method: string, channelId: unknown, ts: unknown, name: unknown): Prepared<InChannel, void> => {
    const channel = channelIdArg(channelId);
    const timestamp = tsArg(ts);
    const emoji = emojiArg(name);
    return { channelId: channel, run: () => void calls.post(method, { channel, timestamp, name: emoji }) };
  };
  const findMessage = (method: string, channel: string, params: Json, ts: string) => items(calls.get(method, params), "messages", method).map((m) => toMessage(m, channel)).find((m) => m.ts === ts);

  return {
    sendMessage(channelId, text, options) {
      const channel = channelIdArg(channelId);
      const message = textArg(text);
      const extras = sendExtras(optionsArg(options));
      return { channelId: channel, run: () => postTo(channel, message, extras) };
    },
    updateMessage(channelId, ts, text, options) {
      const channel = channelIdArg(channelId);
      const messageTs = tsArg(ts);
      const message = textArg(text);
      const blocks = blocksArg(optionsArg(options).blocks);
      return {
        channelId: channel,
        run: () => {
          const body = calls.post("chat.update", { channel, ts: messageTs, text: message, blocks });
          return { channelId: typeof body.channel === "string" ? body.channel : channel, ts: typeof body.ts === "string" ? body.ts : messageTs, text: typeof body.text === "string" ? body.text : message };
        },
      };
    },
    deleteMessage(channelId, ts) {
      const channel = channelIdArg(channelId);
      const messageTs = tsArg(ts);
      return { channelId: channel, run: () => void calls.post("chat.delete", { channel, ts: messageTs }) };
    },
    addReaction: (channelId, ts, name) => reaction("reactions.add", channelId, ts, name),
    removeReaction: (channelId, ts, name) => reaction("reactions.remove", channelId, ts, name),
    getConversation(channelId) {
      const channel = channelIdArg(channelId);
      return { channelId: channel, run: () => toConversation(field(calls.get("conversations.info", { channel, include_num_members: true }), "channel", "conversations.info")) };
    },
    listConversations(options) {
      const o = optionsArg(options);
      const types = typesArg(o.types, ["public_channel", "private_channel"]);
      const excludeArchived = flagArg(o.excludeArchived, "options.excludeArchived") ?? true;
      const { limit, cursor } = paging(o);
      return {
        run: () => {
          const body = calls.get("conversations.list", { types, exclude_archived: excludeArchived, limit, cursor });
          return { items: items(body, "channels", "conversations.list").map(toConversation), nextPageToken: nextCursor(body) };
        },
      };
    },
    listMembers(channelId, options) {
      const channel = channelIdArg(channelId);
      const { limit, cursor } = paging(optionsArg(options));
      return {
        channelId: channel,
        run: () => {
          const body = calls.get("conversations.members", { channel, limit, cursor });
          return { items: items(body, "members", "conversations.members").filter((m): m is string => typeof m === "string"), nextPageToken: nextCursor(body) };
        },
      };
    },
    listMessages(channelId, options) {
      const channel = channelIdArg(channelId);
      const o = optionsArg(options);
      const oldest = o.oldest == null ? undefined : tsArg(o.oldest, "options.oldest");
      const latest = o.latest == null ? undefined : tsArg(o.latest, "options.latest");
      const inclusive = flagArg(o.inclusive, "options.inclusive");
      const { limit, cursor } = paging(o, 999);
      return { channelId: channel, run: () => messagePage(calls.get("conversations.history", { channel, oldest, latest, inclusive, limit, cursor }), "conversations.history", channel) };
    },
    getMessage(channelId, ts) {
      const channel = channelIdArg(channelId);
      const messageTs = tsArg(ts);
      return {
        channelId: channel,
        run: () => {
          // A thread reply is not in the history; conversations.replies finds it by its own ts.
          const found =
            findMessage("conversations.history", channel, { channel, latest: messageTs, oldest: messageTs, inclusive: true, limit: 1 }, messageTs) ??
            findMessage("conversations.replies", channel, { channel, ts: messageTs, latest: messageTs, oldest: messageTs, inclusive: true, limit: 1 }, messageTs);
          if (!found) throw new errorClass("not_found", `no message at ts ${messageTs} in ${channel}`, 200, { slackError: "message_not_found" });
          return found;
        },
      };
    },
    getThread(channelId, threadTs, options) {
      const channel = channelIdArg(channelId);
      const parent = tsArg(threadTs, "threadTs");
      const { limit, cursor } = paging(optionsArg(options));
      return { channelId: channel, run: () => messagePage(calls.get("conversations.replies", { channel, ts: parent, limit, cursor }), "conversations.replies", channel) };
    },
    getUser(userId) {
      const user = userIdArg(userId);
      return { userId: user, run: () => toUser(field(calls.get("users.info", { user }), "user", "users.info")) };
    },
    listUsers(options) {
      const { limit, cursor } = paging(optionsArg(options));
      return {
        run: () => {
          const body = calls.get("users.list", { limit, cursor });
          return { items: items(body, "members", "users.list").map(toUser), nextPageToken: nextCursor(body) };
        },
      };
    },
    openDirectMessage(userId) {
      const user = userIdArg(userId);
      return { userId: user, run: () => ({ channelId: open([user]) }) };
    },
    openGroupDirectMessage(userIds) {
      const users = userIdsArg(userIds);
      return { userIds: users, run: () => ({ channelId: open(users) }) };
    },
    sendDirectMessage(userId, text, options) {
      const user = userIdArg(userId);
      const message = textArg(text);
      const extras = sendExtras(optionsArg(options));
      return { userId: user, run: () => postTo(open([user]), message, extras) };
    },
    sendGroupDirectMessage(userIds, text, options) {
      const users = userIdsArg(userIds);
      const message = textArg(text);
      const extras = sendExtras(optionsArg(options));
      return { userIds: users, run: () => postTo(open(users), message, extras) };
    },
    getIdentity: () => ({ run: () => toIdentity(calls.post("auth.test")) }),
  };
}
