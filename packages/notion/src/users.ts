// Users of @svc/notion: the connection itself, one user, and the workspace's users.
import { check } from "svc:security";
import { notionGet, query } from "./client";
import { idArg, optionsArg, pageSizeArg, pageTokenArg, type PageOptions } from "./args";
import { toList, toUser, type Page, type User } from "./model";

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
