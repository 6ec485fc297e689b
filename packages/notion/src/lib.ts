// @svc/notion: Notion's REST API (version 2025-09-03: databases hold data sources) with the
// workspace connection's token NOTION_ACCESS_TOKEN. Every operation checks its own
// capability `svc/notion.<function>` before the first request.
import { check } from "svc:security";
import { read, stat } from "svc:fs";
import { NotionError, notionGet, notionPatch, notionPost, notionPostMultipart, query, type Json } from "./client";
import { choiceArg, flagArg, idArg, listArg, objectArg, objectsArg, optionalObjectArg, optionalTextArg, optionsArg, pageSizeArg, pageTokenArg, pathArg, textArg } from "./args";
import {
  richText, toBlock, toComment, toDatabase, toDataSource, toFileUpload, toList, toMarkdown, toMeetingNote, toPage, toParent, toUser, toView, toViewQuery, propertyValue,
  type Block, type Comment, type DataSource, type Database, type FileUpload, type MeetingNote, type NotionPage, type Page, type PageMarkdown, type Template, type User, type View, type ViewQuery,
} from "./model";

export { NotionError };
export type { Block, Comment, DataSource, Database, FileUpload, MeetingNote, NotionPage, Page, PageMarkdown, Parent, Template, User, View, ViewQuery } from "./model";

/** Largest file `uploadFile` sends in one part (Notion's single-part limit). */
const MAX_UPLOAD = 20 * 1024 * 1024;
/** Most items the batch operations take. */
const MAX_BATCH = 100;

/** Options of the paged lists. */
export interface PageOptions {
  /** Items per page, 1 to 100. */
  pageSize?: number | null;
  /** `nextPageToken` of the previous page. */
  pageToken?: string | null;
}

/** What a new page holds. */
export interface PageInput {
  /** `page` (default) or `data_source` (a row of a database's data source). */
  parentType?: "page" | "data_source" | null;
  /** The title (written to the title property). */
  title?: string | null;
  /** Property values in Notion's request format, sent as is (for data-source rows). */
  properties?: Record<string, unknown> | null;
  /** Content as Notion-flavoured Markdown (exclusive with `children`). */
  markdown?: string | null;
  /** Content as Notion block objects (exclusive with `markdown`). */
  children?: Record<string, unknown>[] | null;
  /** Icon object, e.g. `{ type: "emoji", emoji: "📝" }`. */
  icon?: Record<string, unknown> | null;
  /** Cover object, e.g. `{ type: "external", external: { url } }`. */
  cover?: Record<string, unknown> | null;
}

/** One entry of `createPages`. */
export interface PageToCreate extends PageInput {
  parentId: string;
}

/** One entry of `movePages`. */
export interface PageMove {
  pageId: string;
  parentId: string;
  parentType?: "page" | "data_source" | null;
}

/** Outcome of a batch: what succeeded, and the first failure (the batch stops there). */
export interface BatchResult {
  pages: NotionPage[];
  failed: { index: number; code: string; status: number; message: string } | null;
}

type ParentType = "page" | "data_source";

function parentBody(id: string, type: ParentType): Json {
  return type === "page" ? { type: "page_id", page_id: id } : { type: "data_source_id", data_source_id: id };
}

function pageInput(value: unknown, name: string): { parentType: ParentType; title?: string; properties?: Record<string, unknown>; markdown?: string; children?: Record<string, unknown>[]; icon?: Record<string, unknown>; cover?: Record<string, unknown> } {
  const o = optionsArg(value, name);
  const input = {
    parentType: choiceArg(o.parentType, `${name}.parentType`, ["page", "data_source"] as const, "page"),
    title: optionalTextArg(o.title, `${name}.title`),
    properties: optionalObjectArg(o.properties, `${name}.properties`),
    markdown: optionalTextArg(o.markdown, `${name}.markdown`),
    children: objectsArg(o.children, `${name}.children`),
    icon: optionalObjectArg(o.icon, `${name}.icon`),
    cover: optionalObjectArg(o.cover, `${name}.cover`),
  };
  if (input.markdown !== undefined && input.children !== undefined) throw new NotionError("invalid_argument", `${name}: give markdown or children, not both`);
  return input;
}

/** The name of a schema's title property (data sources name it freely). */
function titlePropertyName(properties: unknown): string {
  for (const [name, value] of Object.entries(properties !== null && typeof properties === "object" ? (properties as Json) : {})) {
    if (value !== null && typeof value === "object" && (value as Json).type === "title") return name;
  }
  return "title";
}

function createOne(parentId: string, input: ReturnType<typeof pageInput>): NotionPage {
  const properties: Json = { ...(input.properties ?? {}) };
  if (input.title !== undefined) {
    const key = input.parentType === "page" ? "title" : titlePropertyName(notionGet("data_sources/" + parentId).properties);
    properties[key] = { title: richText(input.title) };
  }
  const body: Json = { parent: parentBody(parentId, input.parentType), properties };
  if (input.markdown !== undefined) body.markdown = input.markdown;
  if (input.children !== undefined) body.children = input.children;
  if (input.icon) body.icon = input.icon;
  if (input.cover) body.cover = input.cover;
  return toPage(notionPost("pages", body));
}

function moveOne(pageId: string, parentId: string, parentType: ParentType): NotionPage {
  return toPage(notionPost(`pages/${pageId}/move`, { parent: parentBody(parentId, parentType) }));
}

/**
 * Confirms that `blockId` lies in page `pageId` (walking up its parents), so a rule on the
 * page covers its blocks. Returns the block (null when the block is the page itself).
 */
function blockInPage(pageId: string, blockId: string): Json | null {
  if (blockId === pageId) return null;
  const block = notionGet("blocks/" + blockId);
  let current = block;
  for (let depth = 0; depth < 64; depth++) {
    const parent = toParent(current.parent);
    if (parent.type === "page" && parent.id === pageId) return block;
    if (parent.type !== "block" || parent.id == null) break;
    if (parent.id === pageId) return block;
    current = notionGet("blocks/" + parent.id);
  }
  throw new NotionError("invalid_argument", `block ${blockId} is not in page ${pageId}; name the page that contains it`);
}

function batchFailure(index: number, error: unknown): BatchResult["failed"] {
  if (error instanceof NotionError) return { index, code: error.code, status: error.status, message: error.message };
  throw error;
}

function contentType(filename: string): string | undefined {
  const types: Record<string, string> = {
    pdf: "application/pdf", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", svg: "image/svg+xml",
    txt: "text/plain", md: "text/markdown", csv: "text/csv", json: "application/json", html: "text/html",
    mp3: "audio/mpeg", wav: "audio/wav", mp4: "video/mp4", mov: "video/quicktime", zip: "application/zip",
    docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  };
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  return types[extension];
}

function multipart(filename: string, type: string, bytes: Uint8Array): { body: Uint8Array; boundary: string } {
  const boundary = "svc-notion-" + Math.random().toString(16).slice(2) + Math.random().toString(16).slice(2);
  const safeName = filename.replace(/["\r\n\\]/g, "_");
  const encoder = new TextEncoder();
  const head = encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const body = new Uint8Array(head.length + bytes.length + tail.length);
  body.set(head, 0);
  body.set(bytes, head.length);
  body.set(tail, head.length + bytes.length);
  return { body, boundary };
}

// ---- search and generic fetch ----

/**
 * Search pages and data sources shared with the connection by title.
 * @param query Words to look for in titles (omitted or "" lists everything shared).
 * @param options `filter` (`page` or `data_source`), `sort` (`descending` or `ascending` by last edit), `pageSize`, `pageToken`.
 * @returns A page of results, each `{ kind, id, title, url }`.
 * @capability svc/notion.search {}
 */
export function search(query?: string | null, options?: ({ filter?: "page" | "data_source" | null; sort?: "ascending" | "descending" | null } & PageOptions) | null): Page<{ kind: string; id: string; title: string; url: string | null }> {
  if (query != null && typeof query !== "string") throw new NotionError("invalid_argument", "query must be a string (omit it, or \"\", to list everything shared)");
  const text = query ?? "";
  const o = optionsArg(options);
  const filter = choiceArg(o.filter, "options.filter", ["page", "data_source"] as const);
  const sort = choiceArg(o.sort, "options.sort", ["ascending", "descending"] as const);
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.search", {});
  const body: Json = text === "" ? {} : { query: text };
  if (filter) body.filter = { property: "object", value: filter };
  if (sort) body.sort = { direction: sort, timestamp: "last_edited_time" };
  if (pageSize) body.page_size = pageSize;
  if (cursor) body.start_cursor = cursor;
  return toList(notionPost("search", body), (raw) => {
    const r = raw as Json;
    const kind = r.object === "data_source" ? "data_source" : "page";
    const title = kind === "page" ? toPage(r).title : toDataSource(r).title;
    return { kind, id: String(r.id ?? ""), title, url: typeof r.url === "string" ? r.url : null };
  });
}

/**
 * Fetch any object by id or Notion URL. With `kind` omitted (`any`), it tries page, then database, then data source.
 * @param id The id or URL.
 * @param kind `page`, `database`, `data_source`, `block`, `view`, `user` or `any` (default).
 * @returns `{ kind, object }` with the normalised object; NotionError `not_found` when nothing has that id.
 * @capability svc/notion.fetch { id, kind }
 */
export function fetch(id: string, kind?: "page" | "database" | "data_source" | "block" | "view" | "user" | "any" | null): { kind: string; object: unknown } {
  const objectId = idArg(id, "id");
  const wanted = choiceArg(kind, "kind", ["page", "database", "data_source", "block", "view", "user", "any"] as const, "any");
  check("svc/notion.fetch", { id: objectId, kind: wanted });
  if (wanted === "block") return { kind: "block", object: toBlock(notionGet("blocks/" + objectId)) };
  if (wanted === "view") return { kind: "view", object: toView(notionGet("views/" + objectId)) };
  if (wanted === "user") return { kind: "user", object: toUser(notionGet("users/" + objectId)) };
  const order = wanted === "any" ? (["page", "database", "data_source"] as const) : [wanted];
  let last: unknown = null;
  for (const k of order) {
    try {
      if (k === "page") return { kind: k, object: toPage(notionGet("pages/" + objectId)) };
      if (k === "database") return { kind: k, object: toDatabase(notionGet("databases/" + objectId)) };
      return { kind: k, object: toDataSource(notionGet("data_sources/" + objectId)) };
    } catch (error) {
      // Notion answers 404 (or 400 for an id of another kind); try the next kind.
      if (!(error instanceof NotionError) || (error.status !== 404 && error.status !== 400) || wanted !== "any") throw error;
      last = error;
    }
  }
  throw new NotionError("not_found", `nothing with id ${objectId} is shared with the connection`, last instanceof NotionError ? last.status : 404);
}

// ---- pages ----

/**
 * Fetch a page's properties (title, values, parent, timestamps); the content is read with `readPageMarkdown` or `listBlockChildren`.
 * @param pageId Page id or URL.
 * @returns The page.
 * @capability svc/notion.fetchPage { pageId }
 */
export function fetchPage(pageId: string): NotionPage {
  const page = idArg(pageId, "pageId");
  check("svc/notion.fetchPage", { pageId: page });
  return toPage(notionGet("pages/" + page));
}

/**
 * Read a page's content as Notion-flavoured Markdown.
 * @param pageId Page id or URL.
 * @param options `includeTranscript`: include meeting-note transcripts.
 * @returns The Markdown, with `truncated` and the ids of blocks that could not be loaded.
 * @capability svc/notion.readPageMarkdown { pageId }
 */
export function readPageMarkdown(pageId: string, options?: { includeTranscript?: boolean | null } | null): PageMarkdown {
  const page = idArg(pageId, "pageId");
  const transcript = flagArg(optionsArg(options).includeTranscript, "options.includeTranscript");
  check("svc/notion.readPageMarkdown", { pageId: page });
  return toMarkdown(notionGet(`pages/${page}/markdown` + query({ include_transcript: transcript })));
}

/**
 * Create a page under a page, or a row in a data source (`parentType: "data_source"`), with a title, properties and Markdown or block content.
 * @param parentId Parent page or data source id.
 * @param page Title, properties, content, icon, cover and the parent's type.
 * @returns The new page.
 * @capability svc/notion.createPage { parentId }
 */
export function createPage(parentId: string, page: PageInput): NotionPage {
  const parent = idArg(parentId, "parentId");
  const input = pageInput(page, "page");
  check("svc/notion.createPage", { parentId: parent });
  return createOne(parent, input);
}

/**
 * Create several pages one after another; stops at the first failure.
 * @param pages Up to 100 pages, each with its `parentId`.
 * @returns The pages created, and the first failure (index, code, status, message) or null.
 * @capability svc/notion.createPages {}
 */
export function createPages(pages: PageToCreate[]): BatchResult {
  const entries = listArg(pages, "pages", MAX_BATCH).map((p, i) => ({ parentId: idArg(optionsArg(p, `pages[${i}]`).parentId, `pages[${i}].parentId`), input: pageInput(p, `pages[${i}]`) }));
  check("svc/notion.createPages", {});
  const created: NotionPage[] = [];
  for (let i = 0; i < entries.length; i++) {
    try {
      created.push(createOne(entries[i].parentId, entries[i].input));
    } catch (error) {
      return { pages: created, failed: batchFailure(i, error) };
    }
  }
  return { pages: created, failed: null };
}

/**
 * Update a page's title, properties, icon, cover or lock.
 * @param pageId Page id or URL.
 * @param changes `title`, `properties` (Notion request format), `icon`, `cover`, `isLocked`.
 * @returns The updated page.
 * @capability svc/notion.updatePage { pageId }
 */
export function updatePage(pageId: string, changes: { title?: string | null; properties?: Record<string, unknown> | null; icon?: Record<string, unknown> | null; cover?: Record<string, unknown> | null; isLocked?: boolean | null }): NotionPage {
  const page = idArg(pageId, "pageId");
  const o = objectArg(changes, "changes");
  const title = optionalTextArg(o.title, "changes.title");
  const properties = optionalObjectArg(o.properties, "changes.properties");
  const icon = optionalObjectArg(o.icon, "changes.icon");
  const cover = optionalObjectArg(o.cover, "changes.cover");
  const isLocked = flagArg(o.isLocked, "changes.isLocked");
  check("svc/notion.updatePage", { pageId: page });
  const body: Json = {};
  const props: Json = { ...(properties ?? {}) };
  if (title !== undefined) props[titlePropertyName(notionGet("pages/" + page).properties)] = { title: richText(title) };
  if (Object.keys(props).length > 0) body.properties = props;
  if (icon) body.icon = icon;
  if (cover) body.cover = cover;
  if (isLocked !== undefined) body.is_locked = isLocked;
  return toPage(notionPatch("pages/" + page, body));
}

/**
 * Move a page to the trash.
 * @param pageId Page id or URL.
 * @returns The trashed page.
 * @capability svc/notion.trashPage { pageId }
 */
export function trashPage(pageId: string): NotionPage {
  const page = idArg(pageId, "pageId");
  check("svc/notion.trashPage", { pageId: page });
  return toPage(notionPatch("pages/" + page, { in_trash: true }));
}

/**
 * Restore a page from the trash.
 * @param pageId Page id or URL.
 * @returns The restored page.
 * @capability svc/notion.restorePage { pageId }
 */
export function restorePage(pageId: string): NotionPage {
  const page = idArg(pageId, "pageId");
  check("svc/notion.restorePage", { pageId: page });
  return toPage(notionPatch("pages/" + page, { in_trash: false }));
}

/**
 * Move a page under another page or into a data source.
 * @param pageId The page to move.
 * @param parentId The new parent page or data source.
 * @param options `parentType`: `page` (default) or `data_source`.
 * @returns The moved page.
 * @capability svc/notion.movePage { pageId, parentId }
 */
export function movePage(pageId: string, parentId: string, options?: { parentType?: "page" | "data_source" | null } | null): NotionPage {
  const page = idArg(pageId, "pageId");
  const parent = idArg(parentId, "parentId");
  const parentType = choiceArg(optionsArg(options).parentType, "options.parentType", ["page", "data_source"] as const, "page");
  check("svc/notion.movePage", { pageId: page, parentId: parent });
  return moveOne(page, parent, parentType);
}

/**
 * Move several pages one after another; stops at the first failure.
 * @param moves Up to 100 `{ pageId, parentId, parentType? }`.
 * @returns The pages moved, and the first failure or null.
 * @capability svc/notion.movePages {}
 */
export function movePages(moves: PageMove[]): BatchResult {
  const entries = listArg(moves, "moves", MAX_BATCH).map((m, i) => {
    const o = optionsArg(m, `moves[${i}]`);
    return { page: idArg(o.pageId, `moves[${i}].pageId`), parent: idArg(o.parentId, `moves[${i}].parentId`), type: choiceArg(o.parentType, `moves[${i}].parentType`, ["page", "data_source"] as const, "page") };
  });
  check("svc/notion.movePages", {});
  const moved: NotionPage[] = [];
  for (let i = 0; i < entries.length; i++) {
    try {
      moved.push(moveOne(entries[i].page, entries[i].parent, entries[i].type));
    } catch (error) {
      return { pages: moved, failed: batchFailure(i, error) };
    }
  }
  return { pages: moved, failed: null };
}

/**
 * Read one property of a page in full (long relations, rollups and text that `fetchPage` shortens), one page at a time.
 * @param pageId Page id or URL.
 * @param propertyId The property's id (from `fetchDataSource`).
 * @param options `pageSize`, `pageToken`.
 * @returns The property's type, its plain value and the next page token.
 * @capability svc/notion.getPageProperty { pageId }
 */
export function getPageProperty(pageId: string, propertyId: string, options?: PageOptions | null): { type: string; value: unknown; nextPageToken: string | null } {
  const page = idArg(pageId, "pageId");
  const property = textArg(propertyId, "propertyId", 200);
  const o = optionsArg(options);
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.getPageProperty", { pageId: page });
  const raw = notionGet(`pages/${page}/properties/${encodeURIComponent(property)}` + query({ page_size: pageSize, start_cursor: cursor }));
  if (raw.object !== "list") return { type: String(raw.type ?? ""), value: propertyValue(raw), nextPageToken: null };
  const results = Array.isArray(raw.results) ? (raw.results as Json[]) : [];
  const type = String((raw.property_item as Json | undefined)?.type ?? results[0]?.type ?? "");
  const values = results.map((r) => r[String(r.type)]);
  const value = type === "title" || type === "rich_text" ? values.map((v) => String((v as Json | undefined)?.plain_text ?? "")).join("") : type === "people" || type === "relation" ? values.map((v) => (v as Json | undefined)?.id ?? null) : values;
  return { type, value, nextPageToken: raw.has_more === false ? null : typeof raw.next_cursor === "string" ? raw.next_cursor : null };
}

// ---- page Markdown ----

/**
 * Append Markdown to a page (at the end, or after the content matching `after`).
 * @param pageId Page id or URL.
 * @param markdown Notion-flavoured Markdown.
 * @param options `after`: a selection of existing text ("start text...end text") to insert after.
 * @returns The page's Markdown after the change.
 * @capability svc/notion.appendPageMarkdown { pageId }
 */
export function appendPageMarkdown(pageId: string, markdown: string, options?: { after?: string | null } | null): PageMarkdown {
  const page = idArg(pageId, "pageId");
  const content = textArg(markdown, "markdown");
  const after = optionalTextArg(optionsArg(options).after, "options.after");
  check("svc/notion.appendPageMarkdown", { pageId: page });
  return toMarkdown(notionPatch(`pages/${page}/markdown`, { type: "insert_content", insert_content: { content, ...(after ? { after } : {}) } }));
}

/**
 * Replace a page's whole content with Markdown.
 * @param pageId Page id or URL.
 * @param markdown The new content.
 * @param options `allowDeletingContent`: allow removing child pages and databases (default false).
 * @returns The page's Markdown after the change.
 * @capability svc/notion.replacePageMarkdown { pageId }
 */
export function replacePageMarkdown(pageId: string, markdown: string, options?: { allowDeletingContent?: boolean | null } | null): PageMarkdown {
  const page = idArg(pageId, "pageId");
  if (typeof markdown !== "string") throw new NotionError("invalid_argument", "markdown must be a string");
  const content = markdown;
  const allow = flagArg(optionsArg(options).allowDeletingContent, "options.allowDeletingContent");
  check("svc/notion.replacePageMarkdown", { pageId: page });
  return toMarkdown(notionPatch(`pages/${page}/markdown`, { type: "replace_content", replace_content: { new_str: content, ...(allow !== undefined ? { allow_deleting_content: allow } : {}) } }));
}

/**
 * Edit a page's Markdown with search-and-replace operations; each `oldStr` must match exactly once unless `replaceAll`.
 * @param pageId Page id or URL.
 * @param updates Up to 100 `{ oldStr, newStr, replaceAll? }`.
 * @param options `allowDeletingContent` (default false).
 * @returns The page's Markdown after the change.
 * @capability svc/notion.updatePageMarkdown { pageId }
 */
export function updatePageMarkdown(pageId: string, updates: Array<{ oldStr: string; newStr: string; replaceAll?: boolean | null }>, options?: { allowDeletingContent?: boolean | null } | null): PageMarkdown {
  const page = idArg(pageId, "pageId");
  const edits = listArg(updates, "updates", MAX_BATCH).map((u, i) => {
    const o = objectArg(u, `updates[${i}]`);
    if (typeof o.newStr !== "string") throw new NotionError("invalid_argument", `updates[${i}].newStr must be a string`);
    const replaceAll = flagArg(o.replaceAll, `updates[${i}].replaceAll`);
    return { old_str: textArg(o.oldStr, `updates[${i}].oldStr`), new_str: o.newStr, ...(replaceAll !== undefined ? { replace_all_matches: replaceAll } : {}) };
  });
  const allow = flagArg(optionsArg(options).allowDeletingContent, "options.allowDeletingContent");
  check("svc/notion.updatePageMarkdown", { pageId: page });
  return toMarkdown(notionPatch(`pages/${page}/markdown`, { type: "update_content", update_content: { content_updates: edits, ...(allow !== undefined ? { allow_deleting_content: allow } : {}) } }));
}

// ---- blocks ----

/**
 * Append blocks to a page, or to a block inside it (`options.blockId`).
 * @param pageId The page (rules are written per page).
 * @param children Up to 100 Notion block objects.
 * @param options `blockId` (a block in the page; default the page itself), `after` (id of the sibling to insert after).
 * @returns The blocks created.
 * @capability svc/notion.appendBlockChildren { pageId }
 */
export function appendBlockChildren(pageId: string, children: Record<string, unknown>[], options?: { blockId?: string | null; after?: string | null } | null): Block[] {
  const page = idArg(pageId, "pageId");
  const blocks = objectsArg(children, "children");
  if (!blocks || blocks.length === 0) throw new NotionError("invalid_argument", "children must be a non-empty array of block objects");
  const o = optionsArg(options);
  const block = o.blockId == null ? page : idArg(o.blockId, "options.blockId");
  const after = o.after == null ? undefined : idArg(o.after, "options.after");
  check("svc/notion.appendBlockChildren", { pageId: page });
  blockInPage(page, block);
  return toList(notionPatch(`blocks/${block}/children`, { children: blocks, ...(after ? { after } : {}) }), toBlock).items;
}

/**
 * List the child blocks of a page, or of a block inside it, one page at a time.
 * @param pageId The page.
 * @param options `blockId` (default the page itself), `pageSize`, `pageToken`.
 * @returns A page of blocks.
 * @capability svc/notion.listBlockChildren { pageId }
 */
export function listBlockChildren(pageId: string, options?: ({ blockId?: string | null } & PageOptions) | null): Page<Block> {
  const page = idArg(pageId, "pageId");
  const o = optionsArg(options);
  const block = o.blockId == null ? page : idArg(o.blockId, "options.blockId");
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.listBlockChildren", { pageId: page });
  blockInPage(page, block);
  return toList(notionGet(`blocks/${block}/children` + query({ page_size: pageSize, start_cursor: cursor })), toBlock);
}

/**
 * Fetch one block of a page.
 * @param pageId The page that contains the block.
 * @param blockId The block.
 * @returns The block.
 * @capability svc/notion.getBlock { pageId }
 */
export function getBlock(pageId: string, blockId: string): Block {
  const page = idArg(pageId, "pageId");
  const block = idArg(blockId, "blockId");
  check("svc/notion.getBlock", { pageId: page });
  return toBlock(blockInPage(page, block) ?? notionGet("blocks/" + block));
}

/**
 * Change a block's content, e.g. `{ paragraph: { rich_text: [{ text: { content: "new" } }] } }` or `{ to_do: { checked: true } }`.
 * @param pageId The page that contains the block.
 * @param blockId The block.
 * @param content The type key with the fields to change, in Notion's request format.
 * @returns The updated block.
 * @capability svc/notion.updateBlock { pageId }
 */
export function updateBlock(pageId: string, blockId: string, content: Record<string, unknown>): Block {
  const page = idArg(pageId, "pageId");
  const block = idArg(blockId, "blockId");
  const body = objectArg(content, "content");
  if (block === page) throw new NotionError("invalid_argument", "blockId names the page itself; use updatePage");
  check("svc/notion.updateBlock", { pageId: page });
  blockInPage(page, block);
  return toBlock(notionPatch("blocks/" + block, body));
}

/**
 * Move a block of a page to the trash.
 * @param pageId The page that contains the block.
 * @param blockId The block.
 * @returns The trashed block.
 * @capability svc/notion.trashBlock { pageId }
 */
export function trashBlock(pageId: string, blockId: string): Block {
  const page = idArg(pageId, "pageId");
  const block = idArg(blockId, "blockId");
  if (block === page) throw new NotionError("invalid_argument", "blockId names the page itself; use trashPage");
  check("svc/notion.trashBlock", { pageId: page });
  blockInPage(page, block);
  return toBlock(notionPatch("blocks/" + block, { in_trash: true }));
}

/**
 * Restore a trashed block of a page.
 * @param pageId The page that contains the block.
 * @param blockId The block.
 * @returns The restored block.
 * @capability svc/notion.restoreBlock { pageId }
 */
export function restoreBlock(pageId: string, blockId: string): Block {
  const page = idArg(pageId, "pageId");
  const block = idArg(blockId, "blockId");
  if (block === page) throw new NotionError("invalid_argument", "blockId names the page itself; use restorePage");
  check("svc/notion.restoreBlock", { pageId: page });
  blockInPage(page, block);
  return toBlock(notionPatch("blocks/" + block, { in_trash: false }));
}

// ---- comments ----

/**
 * Comment on a page, on a block in it, or reply in a discussion of the page.
 * @param pageId The page.
 * @param text The comment as plain text.
 * @param options `blockId` (comment on a block of the page) or `discussionId` (reply in a discussion found on the page).
 * @returns The comment.
 * @capability svc/notion.createComment { pageId }
 */
export function createComment(pageId: string, text: string, options?: { blockId?: string | null; discussionId?: string | null } | null): Comment {
  const page = idArg(pageId, "pageId");
  const content = textArg(text, "text", 100000);
  const o = optionsArg(options);
  const block = o.blockId == null ? undefined : idArg(o.blockId, "options.blockId");
  const discussion = o.discussionId == null ? undefined : idArg(o.discussionId, "options.discussionId");
  if (block && discussion) throw new NotionError("invalid_argument", "options: give blockId or discussionId, not both");
  check("svc/notion.createComment", { pageId: page });
  if (discussion) {
    // The discussion must be one of this page's, so the page rule covers the reply.
    const known = toList(notionGet("comments" + query({ block_id: page, page_size: 100 })), toComment).items.some((c) => c.discussionId?.replace(/-/g, "") === discussion.replace(/-/g, ""));
    if (!known) throw new NotionError("invalid_argument", `discussion ${discussion} is not a discussion of page ${page}`);
    return toComment(notionPost("comments", { discussion_id: discussion, rich_text: richText(content) }));
  }
  if (block) {
    blockInPage(page, block);
    return toComment(notionPost("comments", { parent: { block_id: block }, rich_text: richText(content) }));
  }
  return toComment(notionPost("comments", { parent: { page_id: page }, rich_text: richText(content) }));
}

/**
 * List the open comments of a page, or of a block in it, one page at a time.
 * @param pageId The page.
 * @param options `blockId`, `pageSize`, `pageToken`.
 * @returns A page of comments.
 * @capability svc/notion.getComments { pageId }
 */
export function getComments(pageId: string, options?: ({ blockId?: string | null } & PageOptions) | null): Page<Comment> {
  const page = idArg(pageId, "pageId");
  const o = optionsArg(options);
  const block = o.blockId == null ? page : idArg(o.blockId, "options.blockId");
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.getComments", { pageId: page });
  blockInPage(page, block);
  return toList(notionGet("comments" + query({ block_id: block, page_size: pageSize, start_cursor: cursor })), toComment);
}

// ---- users ----

/**
 * The connection's own bot user.
 * @returns The bot user.
 * @capability svc/notion.getSelf {}
 */
export function getSelf(): User {
  check("svc/notion.getSelf", {});
  return toUser(notionGet("users/me"));
}

/**
 * Fetch a user of the workspace.
 * @param userId The user id.
 * @returns The user.
 * @capability svc/notion.getUser { userId }
 */
export function getUser(userId: string): User {
  const user = idArg(userId, "userId");
  check("svc/notion.getUser", { userId: user });
  return toUser(notionGet("users/" + user));
}

/**
 * List the workspace's people and bots, one page at a time.
 * @param options `pageSize`, `pageToken`.
 * @returns A page of users.
 * @capability svc/notion.listUsers {}
 */
export function listUsers(options?: PageOptions | null): Page<User> {
  const o = optionsArg(options);
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.listUsers", {});
  return toList(notionGet("users" + query({ page_size: pageSize, start_cursor: cursor })), toUser);
}

// ---- databases ----

/**
 * Fetch a database: title, parent and its data sources (query those).
 * @param databaseId Database id or URL.
 * @returns The database.
 * @capability svc/notion.fetchDatabase { databaseId }
 */
export function fetchDatabase(databaseId: string): Database {
  const database = idArg(databaseId, "databaseId");
  check("svc/notion.fetchDatabase", { databaseId: database });
  return toDatabase(notionGet("databases/" + database));
}

/**
 * Create a database under a page, with its first data source's properties.
 * @param parentId The parent page.
 * @param title The database title.
 * @param properties Property schema in Notion's format, e.g. `{ Name: { title: {} }, Done: { checkbox: {} } }`.
 * @param options `isInline`, `icon`.
 * @returns The database.
 * @capability svc/notion.createDatabase { parentId }
 */
export function createDatabase(parentId: string, title: string, properties: Record<string, unknown>, options?: { isInline?: boolean | null; icon?: Record<string, unknown> | null } | null): Database {
  const parent = idArg(parentId, "parentId");
  const name = textArg(title, "title", 2000);
  const schema = objectArg(properties, "properties");
  const o = optionsArg(options);
  const isInline = flagArg(o.isInline, "options.isInline");
  const icon = optionalObjectArg(o.icon, "options.icon");
  check("svc/notion.createDatabase", { parentId: parent });
  const body: Json = { parent: { type: "page_id", page_id: parent }, title: richText(name), initial_data_source: { properties: schema } };
  if (isInline !== undefined) body.is_inline = isInline;
  if (icon) body.icon = icon;
  return toDatabase(notionPost("databases", body));
}

/**
 * Move a database to the trash.
 * @param databaseId Database id or URL.
 * @returns The database.
 * @capability svc/notion.trashDatabase { databaseId }
 */
export function trashDatabase(databaseId: string): Database {
  const database = idArg(databaseId, "databaseId");
  check("svc/notion.trashDatabase", { databaseId: database });
  return toDatabase(notionPatch("databases/" + database, { in_trash: true }));
}

/**
 * Restore a database from the trash.
 * @param databaseId Database id or URL.
 * @returns The database.
 * @capability svc/notion.restoreDatabase { databaseId }
 */
export function restoreDatabase(databaseId: string): Database {
  const database = idArg(databaseId, "databaseId");
  check("svc/notion.restoreDatabase", { databaseId: database });
  return toDatabase(notionPatch("databases/" + database, { in_trash: false }));
}

// ---- data sources ----

/**
 * Fetch a data source: its title and property schema (names, types, select options).
 * @param dataSourceId Data source id.
 * @returns The data source.
 * @capability svc/notion.fetchDataSource { dataSourceId }
 */
export function fetchDataSource(dataSourceId: string): DataSource {
  const source = idArg(dataSourceId, "dataSourceId");
  check("svc/notion.fetchDataSource", { dataSourceId: source });
  return toDataSource(notionGet("data_sources/" + source));
}

/**
 * Query the rows (pages) of a data source with Notion's filter and sorts.
 * @param dataSourceId Data source id.
 * @param options `filter` and `sorts` in Notion's format, `filterProperties` (property ids to return), `pageSize`, `pageToken`.
 * @returns A page of rows.
 * @capability svc/notion.queryDataSource { dataSourceId }
 */
export function queryDataSource(dataSourceId: string, options?: ({ filter?: Record<string, unknown> | null; sorts?: Record<string, unknown>[] | null; filterProperties?: string[] | null } & PageOptions) | null): Page<NotionPage> {
  const source = idArg(dataSourceId, "dataSourceId");
  const o = optionsArg(options);
  const filter = optionalObjectArg(o.filter, "options.filter");
  const sorts = objectsArg(o.sorts, "options.sorts");
  if (o.filterProperties != null && (!Array.isArray(o.filterProperties) || o.filterProperties.some((p) => typeof p !== "string"))) throw new NotionError("invalid_argument", "options.filterProperties must be an array of property ids");
  const filterProperties = o.filterProperties as string[] | undefined;
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.queryDataSource", { dataSourceId: source });
  const body: Json = {};
  if (filter) body.filter = filter;
  if (sorts) body.sorts = sorts;
  if (pageSize) body.page_size = pageSize;
  if (cursor) body.start_cursor = cursor;
  return toList(notionPost(`data_sources/${source}/query` + query({ filter_properties: filterProperties }), body), toPage);
}

/**
 * Change a data source's title, icon or property schema (add, rename, retype, or remove with `null`).
 * @param dataSourceId Data source id.
 * @param changes `title`, `icon`, `properties` in Notion's format.
 * @returns The updated data source.
 * @capability svc/notion.updateDataSource { dataSourceId }
 */
export function updateDataSource(dataSourceId: string, changes: { title?: string | null; icon?: Record<string, unknown> | null; properties?: Record<string, unknown> | null }): DataSource {
  const source = idArg(dataSourceId, "dataSourceId");
  const o = objectArg(changes, "changes");
  const title = optionalTextArg(o.title, "changes.title");
  const icon = optionalObjectArg(o.icon, "changes.icon");
  const properties = optionalObjectArg(o.properties, "changes.properties");
  check("svc/notion.updateDataSource", { dataSourceId: source });
  const body: Json = {};
  if (title !== undefined) body.title = richText(title);
  if (icon) body.icon = icon;
  if (properties) body.properties = properties;
  return toDataSource(notionPatch("data_sources/" + source, body));
}

/**
 * List the page templates of a data source.
 * @param dataSourceId Data source id.
 * @param options `name` (filter by name), `pageSize`, `pageToken`.
 * @returns A page of templates.
 * @capability svc/notion.listDataSourceTemplates { dataSourceId }
 */
export function listDataSourceTemplates(dataSourceId: string, options?: ({ name?: string | null } & PageOptions) | null): Page<Template> {
  const source = idArg(dataSourceId, "dataSourceId");
  const o = optionsArg(options);
  const name = optionalTextArg(o.name, "options.name");
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.listDataSourceTemplates", { dataSourceId: source });
  return toList(notionGet(`data_sources/${source}/templates` + query({ name, page_size: pageSize, start_cursor: cursor })), (raw) => {
    const t = raw as Json;
    return { id: String(t.id ?? ""), name: String(t.name ?? ""), isDefault: t.is_default === true };
  }, "templates");
}

// ---- views ----

/**
 * List a database's views, one page at a time.
 * @param databaseId Database id or URL.
 * @param options `pageSize`, `pageToken`.
 * @returns A page of views.
 * @capability svc/notion.listViews { databaseId }
 */
export function listViews(databaseId: string, options?: PageOptions | null): Page<View> {
  const database = idArg(databaseId, "databaseId");
  const o = optionsArg(options);
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.listViews", { databaseId: database });
  return toList(notionGet("views" + query({ database_id: database, page_size: pageSize, start_cursor: cursor })), toView);
}

/**
 * Add a view (table, board, calendar, ...) over one data source of a database.
 * @param dataSourceId The data source the view shows.
 * @param databaseId The database the view belongs to.
 * @param view `name`, `type`, and optional `filter`, `sorts`, `configuration` in Notion's format.
 * @returns The view.
 * @capability svc/notion.createView { dataSourceId, databaseId }
 */
export function createView(dataSourceId: string, databaseId: string, view: { name: string; type: string; filter?: Record<string, unknown> | null; sorts?: Record<string, unknown>[] | null; configuration?: Record<string, unknown> | null }): View {
  const source = idArg(dataSourceId, "dataSourceId");
  const database = idArg(databaseId, "databaseId");
  const o = objectArg(view, "view");
  const name = textArg(o.name, "view.name", 500);
  const type = choiceArg(o.type, "view.type", ["table", "board", "list", "calendar", "timeline", "gallery", "form", "chart", "map", "dashboard"] as const, "table");
  const filter = optionalObjectArg(o.filter, "view.filter");
  const sorts = objectsArg(o.sorts, "view.sorts");
  const configuration = optionalObjectArg(o.configuration, "view.configuration");
  check("svc/notion.createView", { dataSourceId: source, databaseId: database });
  const body: Json = { data_source_id: source, database_id: database, name, type };
  if (filter) body.filter = filter;
  if (sorts) body.sorts = sorts;
  if (configuration) body.configuration = configuration;
  return toView(notionPost("views", body));
}

/**
 * Change a view's name, filter, sorts or configuration.
 * @param viewId View id.
 * @param changes `name`, `filter`, `sorts`, `configuration`.
 * @returns The updated view.
 * @capability svc/notion.updateView { viewId }
 */
export function updateView(viewId: string, changes: { name?: string | null; filter?: Record<string, unknown> | null; sorts?: Record<string, unknown>[] | null; configuration?: Record<string, unknown> | null }): View {
  const view = idArg(viewId, "viewId");
  const o = objectArg(changes, "changes");
  const name = optionalTextArg(o.name, "changes.name");
  const filter = optionalObjectArg(o.filter, "changes.filter");
  const sorts = objectsArg(o.sorts, "changes.sorts");
  const configuration = optionalObjectArg(o.configuration, "changes.configuration");
  check("svc/notion.updateView", { viewId: view });
  const body: Json = {};
  if (name !== undefined) body.name = name;
  if (filter) body.filter = filter;
  if (sorts) body.sorts = sorts;
  if (configuration) body.configuration = configuration;
  return toView(notionPatch("views/" + view, body));
}

/**
 * Run a view's query (its filter and sorts) and return the first page of row ids.
 * @param viewId View id.
 * @param options `pageSize`.
 * @returns The query id, total count, row page ids and the next page token.
 * @capability svc/notion.queryView { viewId }
 */
export function queryView(viewId: string, options?: { pageSize?: number | null } | null): ViewQuery {
  const view = idArg(viewId, "viewId");
  const pageSize = pageSizeArg(optionsArg(options).pageSize);
  check("svc/notion.queryView", { viewId: view });
  return toViewQuery(notionPost(`views/${view}/queries`, pageSize ? { page_size: pageSize } : {}), view);
}

/**
 * Read the next page of a view query started with `queryView`.
 * @param viewId View id.
 * @param queryId The `queryId` from `queryView`.
 * @param pageToken The `nextPageToken` of the previous page.
 * @param options `pageSize`.
 * @returns The next page of row ids.
 * @capability svc/notion.continueViewQuery { viewId }
 */
export function continueViewQuery(viewId: string, queryId: string, pageToken: string, options?: { pageSize?: number | null } | null): ViewQuery {
  const view = idArg(viewId, "viewId");
  const queryRef = idArg(queryId, "queryId");
  const cursor = pageTokenArg(pageToken, "pageToken");
  if (cursor === undefined) throw new NotionError("invalid_argument", "pageToken must be the nextPageToken of the previous page");
  const pageSize = pageSizeArg(optionsArg(options).pageSize);
  check("svc/notion.continueViewQuery", { viewId: view });
  return toViewQuery(notionGet(`views/${view}/queries/${queryRef}` + query({ start_cursor: cursor, page_size: pageSize })), view, queryRef);
}

// ---- meeting notes ----

/**
 * Find meeting notes (AI meeting transcription blocks), optionally filtered by title, attendees or dates.
 * @param options `filter` and `sort` in Notion's meeting-notes format, `limit`.
 * @returns The meeting notes with the ids of their summary, notes and transcript blocks.
 * @capability svc/notion.queryMeetingNotes {}
 */
export function queryMeetingNotes(options?: { filter?: Record<string, unknown> | null; sort?: Record<string, unknown> | null; limit?: number | null } | null): MeetingNote[] {
  const o = optionsArg(options);
  const filter = optionalObjectArg(o.filter, "options.filter");
  const sort = optionalObjectArg(o.sort, "options.sort");
  const limit = pageSizeArg(o.limit, "options.limit");
  check("svc/notion.queryMeetingNotes", {});
  const body: Json = {};
  if (filter) body.filter = filter;
  if (sort) body.sort = sort;
  if (limit) body.limit = limit;
  return toList(notionPost("blocks/meeting_notes/query", body), toMeetingNote).items;
}

// ---- file uploads ----

/**
 * Upload a file of the file area to Notion (at most 20 MiB), ready to attach to a page or block. The caller's own `fs.read` rule for `path` is checked too.
 * @param path File-area path of the file.
 * @param options `filename` (default the path's last segment), `contentType` (default from the extension).
 * @returns The upload, `status: "uploaded"` once sent.
 * @capability svc/notion.uploadFile { path }
 */
export function uploadFile(path: string, options?: { filename?: string | null; contentType?: string | null } | null): FileUpload {
  const source = pathArg(path);
  const o = optionsArg(options);
  const filename = optionalTextArg(o.filename, "options.filename") ?? source.split("/").pop() ?? "";
  if (filename === "") throw new NotionError("invalid_argument", "options.filename is needed when the path ends with /");
  const type = optionalTextArg(o.contentType, "options.contentType") ?? contentType(filename);
  if (!type) throw new NotionError("invalid_argument", `cannot tell the content type of ${filename}; give options.contentType`);
  check("svc/notion.uploadFile", { path: source });
  check("fs.read", { path: source });
  const info = stat(source);
  if (info == null || info.kind !== "file") throw new NotionError("invalid_argument", `${source} is not a file`);
  if (info.size > MAX_UPLOAD) throw new NotionError("invalid_argument", `${source} has ${info.size} bytes; uploadFile sends at most ${MAX_UPLOAD}`);
  const bytes = read(source);
  if (bytes == null) throw new NotionError("invalid_argument", `${source} is too large to read`);
  const created = notionPost("file_uploads", { mode: "single_part", filename, content_type: type });
  const id = typeof created.id === "string" ? created.id : "";
  if (id === "") throw new NotionError("invalid_response", "Notion created a file upload without an id", 200);
  const { body, boundary } = multipart(filename, type, bytes);
  return toFileUpload(notionPostMultipart(`file_uploads/${id}/send`, body, boundary));
}

/**
 * Fetch a file upload's status.
 * @param uploadId The upload id.
 * @returns The upload.
 * @capability svc/notion.getFileUpload { uploadId }
 */
export function getFileUpload(uploadId: string): FileUpload {
  const upload = idArg(uploadId, "uploadId");
  check("svc/notion.getFileUpload", { uploadId: upload });
  return toFileUpload(notionGet("file_uploads/" + upload));
}

/**
 * List the connection's file uploads, one page at a time.
 * @param options `status` (`pending`, `uploaded`, `expired`, `failed`), `pageSize`, `pageToken`.
 * @returns A page of uploads.
 * @capability svc/notion.listFileUploads {}
 */
export function listFileUploads(options?: ({ status?: "pending" | "uploaded" | "expired" | "failed" | null } & PageOptions) | null): Page<FileUpload> {
  const o = optionsArg(options);
  const status = choiceArg(o.status, "options.status", ["pending", "uploaded", "expired", "failed"] as const);
  const pageSize = pageSizeArg(o.pageSize);
  const cursor = pageTokenArg(o.pageToken);
  check("svc/notion.listFileUploads", {});
  return toList(notionGet("file_uploads" + query({ status, page_size: pageSize, start_cursor: cursor })), toFileUpload);
}
