// Pages of @svc/notion: create (one or a batch), read, update, trash, restore, move,
// their properties, and their content as Notion-flavoured Markdown.
import { check } from "svc:security";
import { NotionError, notionGet, notionPatch, notionPost, query, type Json } from "./client";
import { choiceArg, flagArg, idArg, listArg, objectArg, objectsArg, optionalObjectArg, optionalTextArg, optionsArg, pageSizeArg, pageTokenArg, textArg, type PageOptions } from "./args";
import { richText, toMarkdown, toPage, propertyValue, type NotionPage, type Page, type PageMarkdown } from "./model";

/** Most items the batch operations take. */
const MAX_BATCH = 100;

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

/** A batch stops at its first failure: a NotionError becomes the batch's `failed`; anything else is thrown. */
function batchFailure(index: number, error: unknown): BatchResult["failed"] {
  if (error instanceof NotionError) return { index, code: error.code, status: error.status, message: error.message };
  throw error;
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
