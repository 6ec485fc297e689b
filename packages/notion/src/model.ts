// The JSON shapes @svc/notion returns, and the normalisers from Notion's objects. Property
// values are flattened to plain values; the raw Notion object stays available where a
// caller needs to write it back (block content, data source property schemas).
import { NotionError, type Json } from "./client";

/** One page of a list; pass `nextPageToken` back as `pageToken` (null: last page). */
export interface Page<T> {
  items: T[];
  nextPageToken: string | null;
}

/** Where an object lives: `page`, `data_source`, `database`, `block` or `workspace`. */
export interface Parent {
  type: string;
  /** Null for the workspace. */
  id: string | null;
}

/** A page with its properties flattened (title and text as strings, selects as names, people and relations as ids). */
export interface NotionPage {
  id: string;
  url: string | null;
  title: string;
  parent: Parent;
  properties: Record<string, unknown>;
  createdTime: string | null;
  lastEditedTime: string | null;
  inTrash: boolean;
  icon: string | null;
}

/** A page's content as Notion-flavoured Markdown. */
export interface PageMarkdown {
  id: string;
  markdown: string;
  /** True when Notion cut the content short; fetch `unknownBlockIds` separately. */
  truncated: boolean;
  unknownBlockIds: string[];
}

/** A block: its type, its plain text and its type-specific content as Notion sends it. */
export interface Block {
  id: string;
  type: string;
  text: string;
  hasChildren: boolean;
  inTrash: boolean;
  parent: Parent;
  /** The object under the block's type key (for example the `paragraph` object). */
  content: Record<string, unknown>;
}

/** A comment. */
export interface Comment {
  id: string;
  discussionId: string | null;
  parent: Parent;
  text: string;
  createdBy: string | null;
  createdTime: string | null;
}

/** A person or bot of the workspace. */
export interface User {
  id: string;
  type: string;
  name: string | null;
  avatarUrl: string | null;
  /** People only, and only with the user-information capability. */
  email: string | null;
}

/** A database: a container of one or more data sources. */
export interface Database {
  id: string;
  title: string;
  url: string | null;
  parent: Parent;
  isInline: boolean;
  inTrash: boolean;
  dataSources: Array<{ id: string; name: string }>;
}

/** A data source: the schema (properties) of a table. */
export interface DataSource {
  id: string;
  title: string;
  url: string | null;
  parent: Parent;
  databaseId: string | null;
  inTrash: boolean;
  /** Property name → `{ id, type, options? }` (options are the names of select, multi-select and status choices). */
  properties: Record<string, { id: string; type: string; options?: string[] }>;
}

/** A database view. */
export interface View {
  id: string;
  name: string;
  type: string;
  databaseId: string | null;
  dataSourceId: string | null;
  url: string | null;
  filter: unknown;
  sorts: unknown;
}

/** Results of a view query; continue with `continueViewQuery(viewId, queryId, nextPageToken)`. */
export interface ViewQuery {
  queryId: string;
  viewId: string;
  /** Total rows of the query (null on continued pages, where Notion does not repeat it). */
  totalCount: number | null;
  pageIds: string[];
  nextPageToken: string | null;
  expiresAt: string | null;
}

/** A data source template. */
export interface Template {
  id: string;
  name: string;
  isDefault: boolean;
}

/** A file upload. Attach an `uploaded` one to a page or block with `{ type: "file_upload", file_upload: { id } }`. */
export interface FileUpload {
  id: string;
  status: string;
  filename: string | null;
  contentType: string | null;
  contentLength: number | null;
  expiryTime: string | null;
  createdTime: string | null;
}

/** A meeting note block found by `queryMeetingNotes`. */
export interface MeetingNote {
  id: string;
  title: string;
  status: string | null;
  summaryBlockId: string | null;
  notesBlockId: string | null;
  transcriptBlockId: string | null;
}

function object(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}
function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The plain text of a rich-text array. */
export function plainText(value: unknown): string {
  return list(value).map((r) => text(object(r).plain_text) ?? text(object(object(r).text).content) ?? "").join("");
}

/** Rich text for a plain string, in pieces of at most 2,000 characters (Notion's limit per item). */
export function richText(value: string): Json[] {
  const pieces: Json[] = [];
  for (let i = 0; i < value.length; i += 2000) pieces.push({ type: "text", text: { content: value.slice(i, i + 2000) } });
  return pieces;
}

export function toParent(raw: unknown): Parent {
  const p = object(raw);
  const type = text(p.type) ?? "workspace";
  const id = text(p[type]) ?? text(p[type + "_id"]);
  return { type: type.replace(/_id$/, ""), id: type === "workspace" ? null : id };
}

/** A property value as a plain value. */
export function propertyValue(raw: unknown): unknown {
  const p = object(raw);
  const type = text(p.type) ?? "";
  const v = p[type];
  switch (type) {
    case "title":
    case "rich_text":
      return plainText(v);
    case "select":
    case "status":
      return text(object(v).name);
    case "multi_select":
      return list(v).map((o) => text(object(o).name));
    case "people":
      return list(v).map((o) => text(object(o).id));
    case "relation":
      return list(v).map((o) => text(object(o).id));
    case "date":
      return v == null ? null : { start: text(object(v).start), end: text(object(v).end) };
    case "files":
      return list(v).map((f) => {
        const o = object(f);
        return { name: text(o.name), url: text(object(o.file).url) ?? text(object(o.external).url) };
      });
    case "formula": {
      const f = object(v);
      return f[text(f.type) ?? ""] ?? null;
    }
    case "rollup": {
      const r = object(v);
      const kind = text(r.type) ?? "";
      return kind === "array" ? list(r.array).map(propertyValue) : (r[kind] ?? null);
    }
    case "unique_id": {
      const u = object(v);
      return u.number == null ? null : (text(u.prefix) ? `${u.prefix}-${u.number}` : u.number);
    }
    case "created_by":
    case "last_edited_by":
      return text(object(v).id);
    case "verification":
      return text(object(v).state);
    default:
      return v ?? null;
  }
}

function icon(raw: unknown): string | null {
  const i = object(raw);
  return text(i.emoji) ?? text(object(i.external).url) ?? text(object(i.file).url) ?? null;
}

export function toPage(raw: unknown): NotionPage {
  const p = object(raw);
  const properties: Record<string, unknown> = {};
  let title = "";
  for (const [name, value] of Object.entries(object(p.properties))) {
    properties[name] = propertyValue(value);
    if (object(value).type === "title") title = plainText(object(value).title);
  }
  return {
    id: text(p.id) ?? "",
    url: text(p.url),
    title,
    parent: toParent(p.parent),
    properties,
    createdTime: text(p.created_time),
    lastEditedTime: text(p.last_edited_time),
    inTrash: p.in_trash === true || p.archived === true,
    icon: icon(p.icon),
  };
}

export function toMarkdown(raw: Json): PageMarkdown {
  if (typeof raw.markdown !== "string") throw new NotionError("invalid_response", "Notion answered without `markdown`", 200);
  return { id: text(raw.id) ?? "", markdown: raw.markdown, truncated: raw.truncated === true, unknownBlockIds: list(raw.unknown_block_ids).filter((i): i is string => typeof i === "string") };
}

export function toBlock(raw: unknown): Block {
  const b = object(raw);
  const type = text(b.type) ?? "unsupported";
  const content = object(b[type]);
  return {
    id: text(b.id) ?? "",
    type,
    text: type === "child_page" || type === "child_database" ? (text(content.title) ?? "") : plainText(content.rich_text),
    hasChildren: b.has_children === true,
    inTrash: b.in_trash === true || b.archived === true,
    parent: toParent(b.parent),
    content,
  };
}

export function toComment(raw: unknown): Comment {
  const c = object(raw);
  return {
    id: text(c.id) ?? "",
    discussionId: text(c.discussion_id),
    parent: toParent(c.parent),
    text: plainText(c.rich_text),
    createdBy: text(object(c.created_by).id),
    createdTime: text(c.created_time),
  };
}

export function toUser(raw: unknown): User {
  const u = object(raw);
  return { id: text(u.id) ?? "", type: text(u.type) ?? "person", name: text(u.name), avatarUrl: text(u.avatar_url), email: text(object(u.person).email) };
}

export function toDatabase(raw: unknown): Database {
  const d = object(raw);
  return {
    id: text(d.id) ?? "",
    title: plainText(d.title),
    url: text(d.url),
    parent: toParent(d.parent),
    isInline: d.is_inline === true,
    inTrash: d.in_trash === true || d.archived === true,
    dataSources: list(d.data_sources).map((s) => ({ id: text(object(s).id) ?? "", name: text(object(s).name) ?? "" })),
  };
}

export function toDataSource(raw: unknown): DataSource {
  const d = object(raw);
  const properties: DataSource["properties"] = {};
  for (const [name, value] of Object.entries(object(d.properties))) {
    const p = object(value);
    const type = text(p.type) ?? "";
    const options = list(object(p[type]).options).map((o) => text(object(o).name) ?? "");
    properties[name] = { id: text(p.id) ?? "", type, ...(options.length > 0 ? { options } : {}) };
  }
  const parent = toParent(d.parent);
  return {
    id: text(d.id) ?? "",
    title: plainText(d.title),
    url: text(d.url),
    parent,
    databaseId: text(object(d.database_parent).database_id) ?? (parent.type === "database" ? parent.id : null),
    inTrash: d.in_trash === true || d.archived === true,
    properties,
  };
}

export function toView(raw: unknown): View {
  const v = object(raw);
  return {
    id: text(v.id) ?? "",
    name: text(v.name) ?? "",
    type: text(v.type) ?? "",
    databaseId: text(object(v.parent).database_id),
    dataSourceId: text(v.data_source_id),
    url: text(v.url),
    filter: v.filter ?? null,
    sorts: v.sorts ?? null,
  };
}

export function toViewQuery(raw: Json, viewId: string, queryId?: string): ViewQuery {
  // queryView answers a `view_query`; continueViewQuery a plain list without the query's own fields.
  return {
    queryId: raw.object === "view_query" ? (text(raw.id) ?? "") : (queryId ?? ""),
    viewId: text(raw.view_id) ?? viewId,
    totalCount: typeof raw.total_count === "number" ? raw.total_count : null,
    pageIds: list(raw.results).map((r) => text(object(r).id) ?? ""),
    nextPageToken: raw.has_more === false ? null : text(raw.next_cursor),
    expiresAt: text(raw.expires_at),
  };
}

export function toFileUpload(raw: unknown): FileUpload {
  const f = object(raw);
  return {
    id: text(f.id) ?? "",
    status: text(f.status) ?? "",
    filename: text(f.filename),
    contentType: text(f.content_type),
    contentLength: typeof f.content_length === "number" ? f.content_length : null,
    expiryTime: text(f.expiry_time),
    createdTime: text(f.created_time),
  };
}

export function toMeetingNote(raw: unknown): MeetingNote {
  const b = object(raw);
  const m = object(b.meeting_notes);
  const children = object(m.children);
  return {
    id: text(b.id) ?? "",
    title: plainText(m.title),
    status: text(m.status),
    summaryBlockId: text(children.summary_block_id),
    notesBlockId: text(children.notes_block_id),
    transcriptBlockId: text(children.transcript_block_id),
  };
}

/** A Notion list answer (`results`, `next_cursor`, `has_more`) as a Page. */
export function toList<T>(raw: Json, map: (item: unknown) => T, key = "results"): Page<T> {
  if (!Array.isArray(raw[key])) throw new NotionError("invalid_response", `Notion answered without \`${key}\``, 200);
  return { items: (raw[key] as unknown[]).map(map), nextPageToken: raw.has_more === false ? null : text(raw.next_cursor) };
}
