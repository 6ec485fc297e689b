// Query-string and page helpers shared by the operations.
import { invalidArgument } from "./errors";
import { crossQuery, isoDate, login, options as optionsArg } from "./args";
import { nextPageToken, pagePosition, type Answer } from "./client";
import { array, object } from "./normalize";
import type { Page, SearchPage } from "./types";

/** `per_page=…&page=…`. */
export function pageQuery(perPage: number, page: number): string {
  return `per_page=${perPage}&page=${page}`;
}

/** `&sort=…&order=…` from options, with the sort keys this endpoint accepts. */
export function sortQuery(o: Record<string, unknown>, allowed: readonly string[]): string {
  const sort = o.sort ?? null;
  const order = o.order ?? null;
  if (sort !== null && (typeof sort !== "string" || !allowed.includes(sort))) throw invalidArgument(`options.sort: expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
  if (order !== null && order !== "asc" && order !== "desc") throw invalidArgument('options.order: expected "asc" or "desc"');
  return (sort !== null ? `&sort=${encodeURIComponent(sort as string)}` : "") + (order !== null ? `&order=${order}` : "");
}

/** A list answer (a JSON array) as a Page. */
export function listPage<T>(answer: Answer, page: number, perPage: number, what: string, map: (value: unknown, what: string) => T): Page<T> {
  return { items: array(answer.data, what).map((v) => map(v, what)), nextPageToken: nextPageToken(answer.response, page, perPage) };
}

/** A search answer (`total_count`, `incomplete_results`, `items`) as a SearchPage. */
export function searchPage<T>(answer: Answer, page: number, perPage: number, what: string, map: (value: unknown, what: string) => T): SearchPage<T> {
  const data = object(answer.data, what);
  return {
    totalCount: typeof data.total_count === "number" ? data.total_count : 0,
    incompleteResults: data.incomplete_results === true,
    items: array(data.items, what).map((v) => map(v, what)),
    nextPageToken: nextPageToken(answer.response, page, perPage),
  };
}

/** Sort keys of the issue and pull request searches. */
export const ISSUE_SORTS = ["comments", "reactions", "created", "updated"] as const;

/** The checked fields and GitHub query text of a cross-repository search. */
export function crossSearch(query: unknown, options: unknown, kind: "issue" | "pr"): { query: string; author: string | null; createdSince: string | null; createdUntil: string | null; url: string; page: number; perPage: number } {
  const q = crossQuery(query);
  const o = optionsArg(options);
  const author = o.author == null ? null : login(o.author, "options.author");
  const createdSince = isoDate(o.createdSince, "options.createdSince");
  const createdUntil = isoDate(o.createdUntil, "options.createdUntil");
  const sort = sortQuery(o, ISSUE_SORTS);
  const { perPage, page } = pagePosition(o);
  let full = `${q} is:${kind}`;
  if (author !== null) full += ` author:${author}`;
  if (createdSince !== null && createdUntil !== null) full += ` created:${createdSince}..${createdUntil}`;
  else if (createdSince !== null) full += ` created:>=${createdSince}`;
  else if (createdUntil !== null) full += ` created:<=${createdUntil}`;
  return { query: q, author, createdSince, createdUntil, url: `search/issues?q=${encodeURIComponent(full)}${sort}&${pageQuery(perPage, page)}`, page, perPage };
}

