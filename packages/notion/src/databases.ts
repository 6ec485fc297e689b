// Databases of @svc/notion (version 2025-09-03: a database holds data sources), their
// data sources, templates and views, and meeting notes.
import { check } from "svc:security";
import { NotionError, notionGet, notionPatch, notionPost, query, type Json } from "./client";
import { choiceArg, flagArg, idArg, objectArg, objectsArg, optionalObjectArg, optionalTextArg, optionsArg, pageSizeArg, pageTokenArg, textArg, type PageOptions } from "./args";
import { richText, toDatabase, toDataSource, toList, toMeetingNote, toPage, toView, toViewQuery, type DataSource, type Database, type MeetingNote, type NotionPage, type Page, type Template, type View, type ViewQuery } from "./model";

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
