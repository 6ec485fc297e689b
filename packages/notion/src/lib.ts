// @svc/notion: Notion's REST API (version 2025-09-03: databases hold data sources) with the
// workspace connection's token NOTION_ACCESS_TOKEN. Every operation checks its own
// capability `svc/notion.<function>` before the first request.
export { NotionError } from "./client";
export type { Block, Comment, DataSource, Database, FileUpload, MeetingNote, NotionPage, Page, PageMarkdown, Parent, Template, User, View, ViewQuery } from "./model";
export type { PageOptions } from "./args";
export * from "./search";
export * from "./pages";
export * from "./blocks";
export * from "./users";
export * from "./databases";
export * from "./uploads";
