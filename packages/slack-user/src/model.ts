// The JSON shapes only @svc/slack-user returns (shared files, search results) and their
// normalisers; the shapes both Slack Packages return come from @svc/kit.
import { list, number, object, text, textOrNull, type Json, type Page } from "@svc/kit";

/** A shared file (`files.info`). */
export interface SlackFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  userId: string | null;
  /** Creation time, epoch seconds. */
  created: number;
  /** Download URL on files.slack.com; pass it to `downloadFile`. */
  urlPrivateDownload: string | null;
  urlPrivate: string | null;
  permalink: string | null;
  /** Conversations the file is shared in. */
  channelIds: string[];
}

/** One message found by `search`. */
export interface SearchMatch {
  channelId: string;
  channelName: string | null;
  ts: string;
  userId: string | null;
  username: string | null;
  text: string;
  permalink: string | null;
}

/** A page of search results. */
export interface SearchPage extends Page<SearchMatch> {
  /** Total matches Slack reports for the query. */
  total: number;
}

export function toFile(raw: unknown): SlackFile {
  const f = object(raw);
  const ids = [...list(f.channels), ...list(f.groups), ...list(f.ims)].filter((c): c is string => typeof c === "string");
  return {
    id: text(f.id),
    name: text(f.name),
    title: text(f.title),
    mimetype: text(f.mimetype),
    filetype: text(f.filetype),
    size: number(f.size),
    userId: textOrNull(f.user),
    created: number(f.created),
    urlPrivateDownload: textOrNull(f.url_private_download),
    urlPrivate: textOrNull(f.url_private),
    permalink: textOrNull(f.permalink),
    channelIds: [...new Set(ids)],
  };
}

export function toSearchPage(body: Json, cursor: string | null): SearchPage {
  const messages = object(body.messages);
  const matches = list(messages.matches).map((raw) => {
    const m = object(raw);
    const channel = object(m.channel);
    return {
      channelId: text(channel.id),
      channelName: textOrNull(channel.name),
      ts: text(m.ts),
      userId: textOrNull(m.user),
      username: textOrNull(m.username),
      text: text(m.text),
      permalink: textOrNull(m.permalink),
    };
  });
  const pagination = object(messages.pagination);
  const total = number(messages.total, number(pagination.total_count));
  return { items: matches, nextPageToken: cursor ?? textOrNull(pagination.next_cursor), total };
}
