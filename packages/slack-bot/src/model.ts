// The small JSON shapes @svc/slack-bot returns, and the normalisers from Slack's objects.
import { SlackError, type Json } from "./client";

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

function object(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}
function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}
function textOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
function number(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The object under `key` of a Slack answer; invalid_response when it is missing. */
export function field(body: Json, key: string, method: string): Json {
  const value = body[key];
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new SlackError("invalid_response", `Slack ${method} answered without \`${key}\``, 200);
  return value as Json;
}

/** The array under `key` of a Slack answer; invalid_response when it is missing. */
export function items(body: Json, key: string, method: string): unknown[] {
  const value = body[key];
  if (!Array.isArray(value)) throw new SlackError("invalid_response", `Slack ${method} answered without \`${key}\``, 200);
  return value;
}

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
