// Issues and their comments: repository-scoped reads, writes and searches, and the broader
// cross-repository issue search. Numbered checks send {owner, repo, number, base}.
import { check } from "svc:security";
import { apiGet, apiList, apiPatch, apiPost, pagePosition } from "./client";
import {
  isoDate, issueNumber, login, options as optionsArg, optionalEnum, optionalString, repoPath, repository as repositoryArg, requiredString, scopedQuery, stringList,
  type RepositoryRef,
} from "./args";
import { invalidArgument } from "./errors";
import * as N from "./normalize";
import { ISSUE_SORTS, crossSearch, listPage, pageQuery, searchPage, sortQuery } from "./query";
import type { ListOptions } from "./account";
import type { Issue, IssueComment, Page, SearchPage } from "./types";

/**
 * One issue (pull requests are issues too: see `isPullRequest`); null when it does not exist.
 * @param repository `{owner, name}`.
 * @param number Issue number.
 * @returns The issue, or null.
 * @capability github.com/issues.get { owner: string, repo: string, number: number, base: null }
 */
export function getIssue(repository: RepositoryRef, number: number): Issue | null {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  check("github.com/issues.get", { owner, repo, number: n, base: null });
  const answer = apiGet(`${repoPath({ owner, repo })}/issues/${n}`, "getIssue", { nullOn: [404, 410] });
  return answer ? N.issue(answer.data, "getIssue") : null;
}

/** Changes of updateIssue; fields left out stay as they are. */
export interface IssueUpdate {
  title?: string | null;
  body?: string | null;
  /** `open` or `closed`. */
  state?: "open" | "closed" | null;
  /** With `state: "closed"`: `completed` or `not_planned`; with reopening: `reopened`. */
  stateReason?: "completed" | "not_planned" | "reopened" | null;
  /** Replaces all labels. */
  labels?: string[] | null;
  /** Replaces all assignees (logins). */
  assignees?: string[] | null;
}

function issueFields(o: Record<string, unknown>, creating: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const title = creating ? requiredString(o.title, "input.title", 256) : optionalString(o.title, "changes.title", 256);
  if (title !== null) body.title = title;
  const text = optionalString(o.body, creating ? "input.body" : "changes.body");
  if (text !== null) body.body = text;
  const labels = stringList(o.labels, creating ? "input.labels" : "changes.labels");
  if (labels !== null) body.labels = labels;
  const assignees = stringList(o.assignees, creating ? "input.assignees" : "changes.assignees", 10);
  if (assignees !== null) body.assignees = assignees.map((a, i) => login(a, `assignees[${i}]`));
  if (!creating) {
    const state = optionalEnum(o.state, "changes.state", ["open", "closed"] as const);
    if (state !== null) body.state = state;
    const reason = optionalEnum(o.stateReason, "changes.stateReason", ["completed", "not_planned", "reopened"] as const);
    if (reason !== null) body.state_reason = reason;
    if (Object.keys(body).length === 0) throw invalidArgument("changes: give at least one of title, body, state, stateReason, labels, assignees");
  }
  return body;
}

/**
 * Changes an issue's title, body, state, labels or assignees.
 * @param repository `{owner, name}`.
 * @param number Issue number.
 * @param changes The fields to change.
 * @returns The updated issue.
 * @capability github.com/issues.update { owner: string, repo: string, number: number, base: null }
 */
export function updateIssue(repository: RepositoryRef, number: number, changes: IssueUpdate): Issue {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const body = issueFields(optionsArg(changes, "changes"), false);
  check("github.com/issues.update", { owner, repo, number: n, base: null });
  return N.issue(apiPatch(`${repoPath({ owner, repo })}/issues/${n}`, body, "updateIssue").data, "updateIssue");
}

/** Options of listIssues. */
export interface ListIssuesOptions extends ListOptions {
  /** `open` (default), `closed` or `all`. */
  state?: "open" | "closed" | "all" | null;
  /** Only issues with all these labels. */
  labels?: string[] | null;
  /** Login, `none` or `*`. */
  assignee?: string | null;
  /** Login of the author. */
  creator?: string | null;
  /** Login mentioned. */
  mentioned?: string | null;
  /** ISO date: only issues updated after it. */
  since?: string | null;
  /** `created` (default), `updated` or `comments`. */
  sort?: "created" | "updated" | "comments" | null;
  /** `asc` or `desc` (default). */
  direction?: "asc" | "desc" | null;
}

/**
 * The repository's issues (pull requests are left out, so a page may hold fewer than `perPage`).
 * @param repository `{owner, name}`.
 * @param options Filters, order and paging.
 * @returns One page of issues.
 * @capability github.com/issues.list { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function listIssues(repository: RepositoryRef, options?: ListIssuesOptions | null): Page<Issue> {
  const { owner, repo } = repositoryArg(repository);
  const o = optionsArg(options);
  let query = "";
  const state = optionalEnum(o.state, "options.state", ["open", "closed", "all"] as const);
  if (state !== null) query += `&state=${state}`;
  const labels = stringList(o.labels, "options.labels");
  if (labels !== null) query += `&labels=${encodeURIComponent(labels.join(","))}`;
  const assignee = o.assignee == null ? null : o.assignee === "none" || o.assignee === "*" ? (o.assignee as string) : login(o.assignee, "options.assignee");
  if (assignee !== null) query += `&assignee=${encodeURIComponent(assignee)}`;
  const creator = o.creator == null ? null : login(o.creator, "options.creator");
  if (creator !== null) query += `&creator=${encodeURIComponent(creator)}`;
  const mentioned = o.mentioned == null ? null : login(o.mentioned, "options.mentioned");
  if (mentioned !== null) query += `&mentioned=${encodeURIComponent(mentioned)}`;
  const since = isoDate(o.since, "options.since");
  if (since !== null) query += `&since=${encodeURIComponent(since)}`;
  const sort = optionalEnum(o.sort, "options.sort", ["created", "updated", "comments"] as const);
  if (sort !== null) query += `&sort=${sort}`;
  const direction = optionalEnum(o.direction, "options.direction", ["asc", "desc"] as const);
  if (direction !== null) query += `&direction=${direction}`;
  const { perPage, page } = pagePosition(o);
  check("github.com/issues.list", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const result = listPage(apiList(`${repoPath({ owner, repo })}/issues?${pageQuery(perPage, page)}${query}`, "listIssues"), page, perPage, "listIssues", N.issue);
  return { items: result.items.filter((i) => !i.isPullRequest), nextPageToken: result.nextPageToken };
}

/** Options of the issue and pull request searches. */
export interface IssueSearchOptions extends ListOptions {
  /** `comments`, `reactions`, `created`, `updated` (default best match). */
  sort?: "comments" | "reactions" | "created" | "updated" | null;
  /** `asc` or `desc` (default). */
  order?: "asc" | "desc" | null;
}

/**
 * Searches the repository's issues (not pull requests), e.g. `crash label:bug state:open`.
 * Qualifiers that leave the repository (repo:, org:, user:, is:issue, is:pr, OR) are refused.
 * @param repository `{owner, name}`.
 * @param query Search text.
 * @param options Sort, order and paging.
 * @returns One page of issues.
 * @capability github.com/issues.search { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function searchIssues(repository: RepositoryRef, query: string, options?: IssueSearchOptions | null): SearchPage<Issue> {
  const q = scopedQuery(query);
  const { owner, repo } = repositoryArg(repository);
  const o = optionsArg(options);
  const sort = sortQuery(o, ISSUE_SORTS);
  const { perPage, page } = pagePosition(o);
  check("github.com/issues.search", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const full = `${q} repo:${owner}/${repo} is:issue`;
  return searchPage(apiList(`search/issues?q=${encodeURIComponent(full)}${sort}&${pageQuery(perPage, page)}`, "searchIssues"), page, perPage, "searchIssues", N.issue);
}

/** A new issue. */
export interface IssueInput {
  title: string;
  body?: string | null;
  labels?: string[] | null;
  /** Logins to assign (at most 10). */
  assignees?: string[] | null;
}

/**
 * Opens an issue.
 * @param repository `{owner, name}`.
 * @param input Title, body, labels and assignees.
 * @returns The new issue.
 * @capability github.com/issues.create { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function createIssue(repository: RepositoryRef, input: IssueInput): Issue {
  const { owner, repo } = repositoryArg(repository);
  const body = issueFields(optionsArg(input, "input"), true);
  check("github.com/issues.create", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  return N.issue(apiPost(`${repoPath({ owner, repo })}/issues`, body, "createIssue").data, "createIssue");
}

/** Options of listIssueComments. */
export interface ListCommentsOptions extends ListOptions {
  /** ISO date: only comments updated after it. */
  since?: string | null;
}

/**
 * The conversation comments of an issue or pull request (oldest first).
 * @param repository `{owner, name}`.
 * @param number Issue or pull request number.
 * @param options `since` and paging.
 * @returns One page of comments.
 * @capability github.com/issueComments.list { owner: string, repo: string, number: number, base: null }
 */
export function listIssueComments(repository: RepositoryRef, number: number, options?: ListCommentsOptions | null): Page<IssueComment> {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const o = optionsArg(options);
  const since = isoDate(o.since, "options.since");
  const { perPage, page } = pagePosition(o);
  check("github.com/issueComments.list", { owner, repo, number: n, base: null });
  const filter = since === null ? "" : `&since=${encodeURIComponent(since)}`;
  return listPage(apiList(`${repoPath({ owner, repo })}/issues/${n}/comments?${pageQuery(perPage, page)}${filter}`, "listIssueComments"), page, perPage, "listIssueComments", N.issueComment);
}

/**
 * Adds a comment to an issue or pull request conversation.
 * @param repository `{owner, name}`.
 * @param number Issue or pull request number.
 * @param body Comment text (Markdown).
 * @returns The new comment.
 * @capability github.com/issueComments.create { owner: string, repo: string, number: number, base: null }
 */
export function addIssueComment(repository: RepositoryRef, number: number, body: string): IssueComment {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const text = requiredString(body, "body");
  check("github.com/issueComments.create", { owner, repo, number: n, base: null });
  return N.issueComment(apiPost(`${repoPath({ owner, repo })}/issues/${n}/comments`, { body: text }, "addIssueComment").data, "addIssueComment");
}

/** Options of the cross-repository searches. */
export interface CrossSearchOptions extends IssueSearchOptions {
  /** Only items opened by this login. */
  author?: string | null;
  /** ISO date: only items created on or after it. */
  createdSince?: string | null;
  /** ISO date: only items created on or before it. */
  createdUntil?: string | null;
}

/**
 * Searches issues across every repository the token can see (a broader grant than
 * searchIssues); repo:, org: and user: qualifiers are allowed, author and dates are options.
 * @param query Search text, e.g. `memory leak org:acme`.
 * @param options Author, creation dates, sort and paging.
 * @returns One page of issues (see `repository` on each).
 * @capability github.com/issues.searchAcrossRepositories { query: string, author: string, createdSince: string, createdUntil: string }
 */
export function searchIssuesAcrossRepositories(query: string, options?: CrossSearchOptions | null): SearchPage<Issue> {
  const s = crossSearch(query, options, "issue");
  const { author, createdSince, createdUntil, url, page, perPage } = s;
  const q = s.query;
  check("github.com/issues.searchAcrossRepositories", { query: q, author, createdSince, createdUntil });
  return searchPage(apiList(url, "searchIssuesAcrossRepositories"), page, perPage, "searchIssuesAcrossRepositories", N.issue);
}
