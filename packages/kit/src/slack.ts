// The Slack Web API as both Slack Packages see it (@svc/slack-bot with the bot token,
// @svc/slack-user with the user token): Slack's `ok:false` answers and HTTP failures as
// errors of the caller's SlackError, the shapes they return and their normalisers, and the
// argument checks of Slack ids. The request itself stays in each Package.
import { errorFields, type ErrorClass, type ErrorFields, type Json } from "./errors";
import { argumentChecks, type ArgumentChecks } from "./args";
import { failureCode, jsonObject, retryAfter } from "./http";
import { list, number, object, text, textOrNull } from "./json";

/** What a SlackError carries beside `code` and `status` (the constructor's `extra`). */
export interface SlackErrorExtras {
  /** Slack's own `error` string (`channel_not_found`, `missing_scope`, ...) or null. */
  readonly slackError: string | null;
  /** Seconds to wait before retrying, from `Retry-After` on HTTP 429; otherwise null. */
  readonly retryAfterSeconds: number | null;
  /** For `missing_scope`: the scope Slack says the call needs; otherwise null. */
  readonly neededScope: string | null;
}

/**
 * A SlackError's fields from its constructor's arguments (for `Object.assign(this, …)`).
 * @param name The class's name, the error's `name`.
 * @param code The machine-readable code.
 * @param status The HTTP status, 0 for local failures.
 * @param extra The constructor's extra fields, as the caller gave them.
 * @returns `name`, `code`, `status` and the extras (null where not given).
 */
export function slackErrorFields(name: string, code: string, status: number, extra: Partial<SlackErrorExtras>): ErrorFields<SlackErrorExtras> {
  return errorFields(name, code, status, extra, ["slackError", "retryAfterSeconds", "neededScope"]);
}

/** One page of a list; pass `nextPageToken` back as `pageToken` for the next page (null: last page). */
export interface Page<T> {
  items: T[];
  nextPageToken: string | null;
}

/** A reaction on a message. */
export interface Reaction {
  name: string;
  count: number;
  userIds: string[];
}

/** A file attached to a message. */
export interface MessageFile {
  id: string;
  name: string | null;
  mimetype: string | null;
  urlPrivate: string | null;
}

/** A message of a conversation or thread. */
export interface Message {
  channelId: string;
  ts: string;
  /** Parent message `ts` when the message is in a thread (equal to `ts` for the parent itself). */
  threadTs: string | null;
  userId: string | null;
  botId: string | null;
  subtype: string | null;
  text: string;
  replyCount: number;
  /** `ts` of the last edit, or null. */
  editedTs: string | null;
  reactions: Reaction[];
  files: MessageFile[];
}

/** A channel, private channel, direct message or group direct message. */
export interface Conversation {
  id: string;
  /** Null for direct messages. */
  name: string | null;
  kind: "public_channel" | "private_channel" | "im" | "mpim";
  isArchived: boolean;
  isMember: boolean;
  topic: string;
  purpose: string;
  memberCount: number | null;
  /** The other user of a direct message, else null. */
  userId: string | null;
  /** Creation time, epoch seconds. */
  created: number;
}

/** A workspace member. */
export interface User {
  id: string;
  teamId: string | null;
  name: string;
  realName: string;
  displayName: string;
  email: string | null;
  title: string;
  isBot: boolean;
  isAdmin: boolean;
  deleted: boolean;
  timeZone: string | null;
}

/** Who the token belongs to (`auth.test`). */
export interface Identity {
  userId: string;
  user: string;
  teamId: string;
  team: string;
  url: string;
  botId: string | null;
  enterpriseId: string | null;
}

/** A message Slack accepted. */
export interface PostedMessage {
  channelId: string;
  ts: string;
  message: Message;
}


/** Slack error strings that mean the token is not accepted. */
const UNAUTHORIZED = ["not_authed", "invalid_auth", "token_revoked", "token_expired", "account_inactive"];
/** Slack error strings that mean the token lacks a scope or is the wrong kind. */
const FORBIDDEN = ["missing_scope", "not_allowed_token_type"];
/** Slack error strings that name a missing conversation, message, user or thread. */
const NOT_FOUND = ["channel_not_found", "message_not_found", "user_not_found", "users_not_found", "thread_not_found"];

/** What one Slack Package reads of Slack's answers, bound to its SlackError. */
export interface SlackAnswers {
  /** Slack's answer to `method` as its JSON body when `ok` is true, else the SlackError it means. */
  answer(method: string, status: number, headers: Map<string, string>, body: string): Json;
  /** The object under `key` of an answer; invalid_response when it is missing. */
  field(body: Json, key: string, method: string): Json;
  /** The array under `key` of an answer; invalid_response when it is missing. */
  items(body: Json, key: string, method: string): unknown[];
  /** chat.postMessage's answer as the posted message (sent to `channel`). */
  posted(body: Json, channel: string): PostedMessage;
  /** The id of the conversation conversations.open answered with. */
  openedChannel(body: Json): string;
  /** A page of the `messages` of an answer to `method`, read in `channel`. */
  messagePage(body: Json, method: string, channel: string): Page<Message>;
}

/**
 * Reading Slack's answers, raising errors of the caller's class.
 * @param errorClass The Package's SlackError (`code`, `message`, `status`, `{ slackError, retryAfterSeconds, neededScope }`).
 * @param moreNotFound Slack error strings this Package also maps to `not_found` (e.g. `file_not_found`).
 * @returns `answer`, `field`, `items` and the readers of posted messages, opened conversations and message pages.
 */
export function slackAnswers(errorClass: ErrorClass, moreNotFound: string[] = []): SlackAnswers {
  const notFound = new Set([...NOT_FOUND, ...moreNotFound]);
  const missing = (key: string, method: string) => new errorClass("invalid_response", `Slack ${method} answered without \`${key}\``, 200);
  const field = (body: Json, key: string, method: string): Json => {
    const value = body[key];
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw missing(key, method);
    return value as Json;
  };
  const items = (body: Json, key: string, method: string): unknown[] => {
    const value = body[key];
    if (!Array.isArray(value)) throw missing(key, method);
    return value;
  };
  return {
    answer(method, status, headers, body) {
      if (status === 429) {
        const retryAfterSeconds = retryAfter(headers);
        throw new errorClass("rate_limited", `Slack ${method} is rate limited` + (retryAfterSeconds != null ? `; retry after ${retryAfterSeconds} s` : ""), status, { slackError: "ratelimited", retryAfterSeconds });
      }
      if (status < 200 || status > 299) throw new errorClass(failureCode(status), `Slack ${method} failed: HTTP ${status}`, status);
      const parsed = jsonObject(body, status, `Slack ${method}`, errorClass);
      if (parsed.ok === true) return parsed;
      const slackError = typeof parsed.error === "string" ? parsed.error : "unknown_error";
      const neededScope = typeof parsed.needed === "string" ? parsed.needed : null;
      const code = UNAUTHORIZED.includes(slackError) ? "unauthorized" : FORBIDDEN.includes(slackError) ? "forbidden" : notFound.has(slackError) ? "not_found" : slackError === "ratelimited" ? "rate_limited" : "slack_error";
      throw new errorClass(code, `Slack ${method} failed: ${slackError}` + (neededScope ? ` (needs scope ${neededScope})` : ""), status, { slackError, neededScope });
    },
    field,
    items,
    posted(body, channel) {
      const channelId = typeof body.channel === "string" ? body.channel : channel;
      const ts = typeof body.ts === "string" ? body.ts : "";
      if (ts === "") throw new errorClass("invalid_response", "Slack chat.postMessage answered without `ts`", 200);
      return { channelId, ts, message: toMessage(body.message ?? { ts }, channelId) };
    },
    openedChannel(body) {
      const id = field(body, "channel", "conversations.open").id;
      if (typeof id !== "string") throw new errorClass("invalid_response", "Slack conversations.open answered without a channel id", 200);
      return id;
    },
    messagePage(body, method, channel) {
      return { items: items(body, "messages", method).map((m) => toMessage(m, channel)), nextPageToken: nextCursor(body) };
    },
  };
}

/**
 * `response_metadata.next_cursor` of a Slack answer.
 * @param body The answer.
 * @returns The cursor, or null when there is no further page.
 */
export function nextCursor(body: Json): string | null {
  const cursor = object(body.response_metadata).next_cursor;
  return typeof cursor === "string" && cursor !== "" ? cursor : null;
}

/**
 * A Slack message object as a Message.
 * @param raw The message as Slack returns it.
 * @param channelId The conversation it was read from (when the message does not say).
 * @returns The message.
 */
export function toMessage(raw: unknown, channelId: string): Message {
  const m = object(raw);
  return {
    channelId: text(m.channel, channelId),
    ts: text(m.ts),
    threadTs: textOrNull(m.thread_ts),
    userId: textOrNull(m.user),
    botId: textOrNull(m.bot_id),
    subtype: textOrNull(m.subtype),
    text: text(m.text),
    replyCount: number(m.reply_count),
    editedTs: textOrNull(object(m.edited).ts),
    reactions: list(m.reactions).map((r) => {
      const o = object(r);
      return { name: text(o.name), count: number(o.count), userIds: list(o.users).filter((u): u is string => typeof u === "string") };
    }),
    files: list(m.files).map((f) => {
      const o = object(f);
      return { id: text(o.id), name: textOrNull(o.name), mimetype: textOrNull(o.mimetype), urlPrivate: textOrNull(o.url_private) };
    }),
  };
}

/**
 * A Slack conversation object as a Conversation.
 * @param raw The conversation as Slack returns it.
 * @returns The conversation.
 */
export function toConversation(raw: unknown): Conversation {
  const c = object(raw);
  const kind = c.is_im === true ? "im" : c.is_mpim === true ? "mpim" : c.is_private === true || c.is_group === true ? "private_channel" : "public_channel";
  return {
    id: text(c.id),
    name: textOrNull(c.name),
    kind,
    isArchived: c.is_archived === true,
    isMember: c.is_member === true || kind === "im",
    topic: text(object(c.topic).value),
    purpose: text(object(c.purpose).value),
    memberCount: typeof c.num_members === "number" ? c.num_members : null,
    userId: kind === "im" ? textOrNull(c.user) : null,
    created: number(c.created),
  };
}

/**
 * A Slack user object as a User.
 * @param raw The user as Slack returns it.
 * @returns The user.
 */
export function toUser(raw: unknown): User {
  const u = object(raw);
  const profile = object(u.profile);
  return {
    id: text(u.id),
    teamId: textOrNull(u.team_id),
    name: text(u.name),
    realName: text(u.real_name, text(profile.real_name)),
    displayName: text(profile.display_name),
    email: textOrNull(profile.email),
    title: text(profile.title),
    isBot: u.is_bot === true,
    isAdmin: u.is_admin === true,
    deleted: u.deleted === true,
    timeZone: textOrNull(u.tz),
  };
}

/**
 * Slack's `auth.test` answer as an Identity.
 * @param body The answer.
 * @returns Who the token belongs to.
 */
export function toIdentity(body: Json): Identity {
  return {
    userId: text(body.user_id),
    user: text(body.user),
    teamId: text(body.team_id),
    team: text(body.team),
    url: text(body.url),
    botId: textOrNull(body.bot_id),
    enterpriseId: textOrNull(body.enterprise_id),
  };
}

/** The argument checks of Slack ids, timestamps, text and options, bound to one Package's SlackError. */
export interface SlackArgumentChecks extends ArgumentChecks {
  /** A conversation id (`C…`, `G…` or `D…`); names are refused so rules can match ids reliably. */
  channelIdArg(value: unknown, name?: string): string;
  /** A user id (`U…` or `W…`). */
  userIdArg(value: unknown, name?: string): string;
  /** 2 to 8 distinct user ids, sorted so the same group always checks the same way. */
  userIdsArg(value: unknown, name?: string): string[];
  /** A message timestamp such as "1712345678.123456". */
  tsArg(value: unknown, name?: string): string;
  /** Message text: a non-empty string of at most 40,000 characters. */
  textArg(value: unknown, name?: string): string;
  /** An emoji name with or without surrounding colons ("thumbsup", ":white_check_mark:"). */
  emojiArg(value: unknown, name?: string): string;
  /** A page size between 1 and `max` (default 1000), or undefined for Slack's default. */
  limitArg(value: unknown, name?: string, max?: number): number | undefined;
  /** Optional Block Kit blocks, sent unchanged. */
  blocksArg(value: unknown, name?: string): unknown[] | undefined;
  /** Conversation kinds for conversations.list (`fallback` when omitted). */
  typesArg(value: unknown, fallback: string[], name?: string): string[];
  /** The optional fields of chat.postMessage (`threadTs`, `replyBroadcast`, `blocks`, `unfurlLinks`), validated, in Slack's names. */
  sendExtras(options: Record<string, unknown>): Json;
}

/**
 * The argument checks of the Slack Packages, raising `invalid_argument` errors of the given class.
 * @param errorClass The Package's SlackError.
 * @returns The checks.
 */
export function slackArgumentChecks(errorClass: ErrorClass): SlackArgumentChecks {
  const common = argumentChecks(errorClass);
  const invalid = common.invalid;
  const userIdArg = (value: unknown, name = "userId"): string => {
    if (typeof value !== "string" || !/^[UW][A-Z0-9]{2,}$/.test(value.trim())) throw invalid(`${name} must be a Slack user id such as "U0123ABCD" (U or W followed by upper-case letters and digits)`);
    return value.trim();
  };
  const tsArg = (value: unknown, name = "ts"): string => {
    if (typeof value !== "string" || !/^\d+\.\d+$/.test(value.trim())) throw invalid(`${name} must be a Slack message timestamp such as "1712345678.123456"`);
    return value.trim();
  };
  const blocksArg = (value: unknown, name = "options.blocks"): unknown[] | undefined => {
    if (value == null) return undefined;
    if (!Array.isArray(value) || value.some((b) => b === null || typeof b !== "object")) throw invalid(`${name} must be an array of Block Kit block objects`);
    return value;
  };
  return {
    ...common,
    channelIdArg(value, name = "channelId") {
      if (typeof value !== "string" || !/^[CDG][A-Z0-9]{2,}$/.test(value.trim())) throw invalid(`${name} must be a Slack conversation id such as "C0123ABCD" (C, G or D followed by upper-case letters and digits), not a channel name`);
      return value.trim();
    },
    userIdArg,
    userIdsArg(value, name = "userIds") {
      if (!Array.isArray(value)) throw invalid(`${name} must be an array of 2 to 8 Slack user ids`);
      const ids = [...new Set(value.map((v, i) => userIdArg(v, `${name}[${i}]`)))].sort();
      if (ids.length < 2 || ids.length > 8) throw invalid(`${name} must name 2 to 8 distinct users (got ${ids.length}); use the direct-message function for one user`);
      return ids;
    },
    tsArg,
    textArg(value, name = "text") {
      if (typeof value !== "string" || value.trim() === "") throw invalid(`${name} must be a non-empty string`);
      if (value.length > 40000) throw invalid(`${name} must be at most 40000 characters (got ${value.length})`);
      return value;
    },
    emojiArg(value, name = "name") {
      const emoji = typeof value === "string" ? value.trim().replace(/^:/, "").replace(/:$/, "") : "";
      if (!/^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/.test(emoji)) throw invalid(`${name} must be an emoji name such as "thumbsup" or ":white_check_mark:"`);
      return emoji;
    },
    limitArg(value, name = "options.limit", max = 1000) {
      return common.limitArg(value, name, max);
    },
    blocksArg,
    typesArg(value, fallback, name = "options.types") {
      if (value == null) return fallback;
      const allowed = ["public_channel", "private_channel", "mpim", "im"];
      if (!Array.isArray(value) || value.length === 0 || value.some((t) => typeof t !== "string" || !allowed.includes(t))) throw invalid(`${name} must be a non-empty array of ${allowed.map((a) => `"${a}"`).join(", ")}`);
      return [...new Set(value as string[])];
    },
    sendExtras(options) {
      const extras: Json = {};
      if (options.threadTs != null) extras.thread_ts = tsArg(options.threadTs, "options.threadTs");
      const broadcast = common.flagArg(options.replyBroadcast, "options.replyBroadcast");
      if (broadcast !== undefined) extras.reply_broadcast = broadcast;
      const blocks = blocksArg(options.blocks);
      if (blocks) extras.blocks = blocks;
      const unfurl = common.flagArg(options.unfurlLinks, "options.unfurlLinks");
      if (unfurl !== undefined) extras.unfurl_links = unfurl;
      return extras;
    },
  };
}
