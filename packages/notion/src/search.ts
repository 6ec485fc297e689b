// Search and the generic fetch of @svc/notion: anything shared with the connection, by title or by id.
import { check } from "svc:security";
import { NotionError, notionGet, notionPost, query, type Json } from "./client";
import { choiceArg, idArg, optionsArg, pageSizeArg, pageTokenArg, type PageOptions } from "./args";
import { toBlock, toDatabase, toDataSource, toList, toPage, toUser, toView, type Page } from "./model";

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
