// Blocks and comments of @svc/notion. Each names its page, and the block is confirmed to
// lie in it first, so a rule on the page covers its blocks and their comments.
import { check } from "svc:security";
import { NotionError, notionGet, notionPatch, notionPost, query, type Json } from "./client";
import { idArg, objectArg, objectsArg, optionsArg, pageSizeArg, pageTokenArg, textArg, type PageOptions } from "./args";
import { richText, toBlock, toComment, toList, toParent, type Block, type Comment, type Page } from "./model";

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
