// Pull requests: reads, writes, merge, diff, files, reviews, review comments, reactions and
// searches. Numbered checks send {owner, repo, number, base}; `base` is the new base branch
// for updatePullRequest and null elsewhere.
import { check } from "svc:security";
import { apiGet, apiList, apiPatch, apiPost, apiPut, cursorFromToken, cursorToken, graphql, pagePosition } from "./client";
import {
  branchName, issueNumber, login, options as optionsArg, optionalBoolean, optionalEnum, optionalString, paging, repoPath, repository as repositoryArg, requiredString, scopedQuery, sha as shaArg, filePath,
  type RepositoryRef,
} from "./args";
import { GitHubError, invalidArgument } from "./errors";
import * as N from "./normalize";
import { ISSUE_SORTS, crossSearch, listPage, pageQuery, searchPage, sortQuery } from "./query";
import type { ListOptions } from "./account";
import type { CrossSearchOptions, IssueSearchOptions } from "./issues";
import type { ChangedFile, Issue, MergeResult, Page, PullRequest, PullRequestSummary, ReactionPage, Review, ReviewComment, SearchPage } from "./types";

/**
 * One pull request with its merge state and size; null when it does not exist.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @returns The pull request, or null.
 * @capability github.com/pulls.get { owner: string, repo: string, number: number, base: null }
 */
export function getPullRequest(repository: RepositoryRef, number: number): PullRequest | null {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  check("github.com/pulls.get", { owner, repo, number: n, base: null });
  const answer = apiGet(`${repoPath({ owner, repo })}/pulls/${n}`, "getPullRequest", { nullOn: [404] });
  return answer ? N.pullRequest(answer.data, "getPullRequest") : null;
}

/** Changes of updatePullRequest; fields left out stay as they are. */
export interface PullRequestUpdate {
  title?: string | null;
  body?: string | null;
  /** `open` or `closed`. */
  state?: "open" | "closed" | null;
  /** New base branch (the check's `base` field). */
  base?: string | null;
  maintainerCanModify?: boolean | null;
}

/**
 * Changes a pull request's title, body, state or base branch.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param changes The fields to change.
 * @returns The updated pull request.
 * @capability github.com/pulls.update { owner: string, repo: string, number: number, base: string }
 */
export function updatePullRequest(repository: RepositoryRef, number: number, changes: PullRequestUpdate): PullRequest {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const c = optionsArg(changes, "changes");
  const body: Record<string, unknown> = {};
  const title = optionalString(c.title, "changes.title", 256);
  if (title !== null) body.title = title;
  const text = optionalString(c.body, "changes.body");
  if (text !== null) body.body = text;
  const state = optionalEnum(c.state, "changes.state", ["open", "closed"] as const);
  if (state !== null) body.state = state;
  const base = c.base == null ? null : branchName(c.base, "changes.base");
  if (base !== null) body.base = base;
  const modify = optionalBoolean(c.maintainerCanModify, "changes.maintainerCanModify");
  if (modify !== null) body.maintainer_can_modify = modify;
  if (Object.keys(body).length === 0) throw invalidArgument("changes: give at least one of title, body, state, base, maintainerCanModify");
  check("github.com/pulls.update", { owner, repo, number: n, base });
  return N.pullRequest(apiPatch(`${repoPath({ owner, repo })}/pulls/${n}`, body, "updatePullRequest").data, "updatePullRequest");
}

/** Options of mergePullRequest. */
export interface MergeOptions {
  /** `merge` (default), `squash` or `rebase`. */
  method?: "merge" | "squash" | "rebase" | null;
  commitTitle?: string | null;
  commitMessage?: string | null;
  /** Merge only if the head is still this SHA (else `branch_moved`). */
  expectedHeadSha?: string | null;
}

/**
 * Merges a pull request. Throws `not_mergeable` when GitHub refuses (conflicts, failing
 * required checks) and `branch_moved` when the head is not `expectedHeadSha`.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param options Merge method, commit text and the expected head SHA.
 * @returns The merge result.
 * @capability github.com/pulls.merge { owner: string, repo: string, number: number, base: null }
 */
export function mergePullRequest(repository: RepositoryRef, number: number, options?: MergeOptions | null): MergeResult {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const o = optionsArg(options);
  const body: Record<string, unknown> = {};
  const method = optionalEnum(o.method, "options.method", ["merge", "squash", "rebase"] as const);
  if (method !== null) body.merge_method = method;
  const title = optionalString(o.commitTitle, "options.commitTitle", 1024);
  if (title !== null) body.commit_title = title;
  const message = optionalString(o.commitMessage, "options.commitMessage");
  if (message !== null) body.commit_message = message;
  const expected = o.expectedHeadSha == null ? null : shaArg(o.expectedHeadSha, "options.expectedHeadSha");
  if (expected !== null) body.sha = expected;
  check("github.com/pulls.merge", { owner, repo, number: n, base: null });
  let answer;
  try {
    answer = apiPut(`${repoPath({ owner, repo })}/pulls/${n}/merge`, body, "mergePullRequest");
  } catch (error) {
    // 405: not mergeable; 409: the head moved away from `sha`.
    if (error instanceof GitHubError && (error.status === 405 || error.status === 409)) {
      throw new GitHubError(error.status === 405 ? "not_mergeable" : "branch_moved", error.message, error.status, { requestId: error.requestId, documentationUrl: error.documentationUrl, errors: error.errors });
    }
    throw error;
  }
  const data = N.object(answer.data, "mergePullRequest");
  return { merged: data.merged === true, sha: typeof data.sha === "string" ? data.sha : null, message: typeof data.message === "string" ? data.message : "" };
}

/**
 * A pull request's unified diff; null when the pull request does not exist.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @returns The diff text, or null.
 * @capability github.com/pulls.diff { owner: string, repo: string, number: number, base: null }
 */
export function getPullRequestDiff(repository: RepositoryRef, number: number): string | null {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  check("github.com/pulls.diff", { owner, repo, number: n, base: null });
  const answer = apiGet(`${repoPath({ owner, repo })}/pulls/${n}`, "getPullRequestDiff", { nullOn: [404], accept: "application/vnd.github.diff", json: false });
  return answer ? answer.response.body : null;
}

/** Options of listPullRequests. */
export interface ListPullRequestsOptions extends ListOptions {
  /** `open` (default), `closed` or `all`. */
  state?: "open" | "closed" | "all" | null;
  /** Head filter: `branch` or `owner:branch` (the check's `head` field). */
  head?: string | null;
  /** Base branch filter (the check's `base` field). */
  base?: string | null;
  /** `created` (default), `updated`, `popularity` or `long-running`. */
  sort?: "created" | "updated" | "popularity" | "long-running" | null;
  /** `asc` or `desc`. */
  direction?: "asc" | "desc" | null;
}

/** `branch` or `owner:branch`, as GitHub's head parameters take it. */
function headRef(value: unknown, field: string): string {
  if (typeof value === "string" && value.includes(":")) {
    const at = value.indexOf(":");
    return `${login(value.slice(0, at), field + " (owner part)")}:${branchName(value.slice(at + 1), field)}`;
  }
  return branchName(value, field);
}

/**
 * The repository's pull requests.
 * @param repository `{owner, name}`.
 * @param options State, head and base filters, order and paging.
 * @returns One page of pull requests (without size and merge state).
 * @capability github.com/pulls.list { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: string, base: string }
 */
export function listPullRequests(repository: RepositoryRef, options?: ListPullRequestsOptions | null): Page<PullRequest> {
  const { owner, repo } = repositoryArg(repository);
  const o = optionsArg(options);
  let query = "";
  const state = optionalEnum(o.state, "options.state", ["open", "closed", "all"] as const);
  if (state !== null) query += `&state=${state}`;
  const head = o.head == null ? null : headRef(o.head, "options.head");
  // GitHub's head filter needs `owner:branch`; a bare branch means one in this repository.
  if (head !== null) query += `&head=${encodeURIComponent(head.includes(":") ? head : `${owner}:${head}`)}`;
  const base = o.base == null ? null : branchName(o.base, "options.base");
  if (base !== null) query += `&base=${encodeURIComponent(base)}`;
  const sort = optionalEnum(o.sort, "options.sort", ["created", "updated", "popularity", "long-running"] as const);
  if (sort !== null) query += `&sort=${sort}`;
  const direction = optionalEnum(o.direction, "options.direction", ["asc", "desc"] as const);
  if (direction !== null) query += `&direction=${direction}`;
  const { perPage, page } = pagePosition(o);
  check("github.com/pulls.list", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head, base });
  return listPage(apiList(`${repoPath({ owner, repo })}/pulls?${pageQuery(perPage, page)}${query}`, "listPullRequests"), page, perPage, "listPullRequests", N.pullRequest);
}

/**
 * Searches the repository's pull requests, e.g. `review:required draft:false`.
 * Qualifiers that leave the repository (repo:, org:, user:, is:issue, is:pr, OR) are refused.
 * @param repository `{owner, name}`.
 * @param query Search text.
 * @param options Sort, order and paging.
 * @returns One page of pull requests as issues (`isPullRequest` true).
 * @capability github.com/pulls.search { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function searchPullRequests(repository: RepositoryRef, query: string, options?: IssueSearchOptions | null): SearchPage<Issue> {
  const q = scopedQuery(query);
  const { owner, repo } = repositoryArg(repository);
  const o = optionsArg(options);
  const sort = sortQuery(o, ISSUE_SORTS);
  const { perPage, page } = pagePosition(o);
  check("github.com/pulls.search", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const full = `${q} repo:${owner}/${repo} is:pr`;
  return searchPage(apiList(`search/issues?q=${encodeURIComponent(full)}${sort}&${pageQuery(perPage, page)}`, "searchPullRequests"), page, perPage, "searchPullRequests", N.issue);
}

/** A new pull request. */
export interface PullRequestInput {
  title: string;
  /** Branch with the changes: `branch`, or `owner:branch` for a fork. */
  head: string;
  /** Branch to merge into. */
  base: string;
  body?: string | null;
  draft?: boolean | null;
  maintainerCanModify?: boolean | null;
}

/**
 * Opens a pull request.
 * @param repository `{owner, name}`.
 * @param input Title, head, base, body and draft flag.
 * @returns The new pull request.
 * @capability github.com/pulls.create { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: string, base: string }
 */
export function createPullRequest(repository: RepositoryRef, input: PullRequestInput): PullRequest {
  const { owner, repo } = repositoryArg(repository);
  const i = optionsArg(input, "input");
  const title = requiredString(i.title, "input.title", 256);
  const head = headRef(i.head, "input.head");
  const base = branchName(i.base, "input.base");
  const text = optionalString(i.body, "input.body");
  const draft = optionalBoolean(i.draft, "input.draft");
  const modify = optionalBoolean(i.maintainerCanModify, "input.maintainerCanModify");
  check("github.com/pulls.create", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head, base });
  const body: Record<string, unknown> = { title, head, base };
  if (text !== null) body.body = text;
  if (draft !== null) body.draft = draft;
  if (modify !== null) body.maintainer_can_modify = modify;
  return N.pullRequest(apiPost(`${repoPath({ owner, repo })}/pulls`, body, "createPullRequest").data, "createPullRequest");
}

/**
 * The reactions on a pull request (its opening post), with counts per kind.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param options Paging.
 * @returns One page of reactions.
 * @capability github.com/pulls.getReactions { owner: string, repo: string, number: number }
 */
export function getPullRequestReactions(repository: RepositoryRef, number: number, options?: ListOptions | null): ReactionPage {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/pulls.getReactions", { owner, repo, number: n });
  const result = listPage(apiList(`${repoPath({ owner, repo })}/issues/${n}/reactions?${pageQuery(perPage, page)}`, "getPullRequestReactions"), page, perPage, "getPullRequestReactions", N.reaction);
  const counts: Record<string, number> = {};
  for (const r of result.items) counts[r.content] = (counts[r.content] ?? 0) + 1;
  return { ...result, counts };
}

const SUMMARY_QUERY = `query($q: String!, $first: Int!, $after: String) {
  search(query: $q, type: ISSUE, first: $first, after: $after) {
    issueCount
    pageInfo { hasNextPage endCursor }
    nodes { ... on PullRequest { number title state isDraft author { login } createdAt mergedAt additions deletions changedFiles reviewDecision headRefName baseRefName labels(first: 20) { nodes { name } } url } }
  }
}`;

/**
 * Compact summaries (size, review decision, labels) of the repository's pull requests
 * matching a search, through GraphQL. Repository-leaving qualifiers are refused.
 * @param repository `{owner, name}`.
 * @param query Search text (may be empty for all pull requests).
 * @param options `perPage` (1–100) and `pageToken`.
 * @returns One page of summaries.
 * @capability github.com/pulls.searchSummaries { owner: string, repo: string }
 */
export function searchPullRequestSummaries(repository: RepositoryRef, query?: string | null, options?: ListOptions | null): SearchPage<PullRequestSummary> {
  const q = query == null || (typeof query === "string" && query.trim() === "") ? "" : scopedQuery(query);
  const { owner, repo } = repositoryArg(repository);
  const { perPage, pageToken } = paging(optionsArg(options));
  const after = cursorFromToken(pageToken);
  check("github.com/pulls.searchSummaries", { owner, repo });
  const full = `${q === "" ? "" : q + " "}repo:${owner}/${repo} is:pr`;
  const data = graphql(SUMMARY_QUERY, { q: full, first: perPage, after }, "searchPullRequestSummaries");
  const search = N.object(data.search, "searchPullRequestSummaries");
  const info = N.object(search.pageInfo, "searchPullRequestSummaries");
  const nodes = N.array(search.nodes, "searchPullRequestSummaries").filter((node) => node !== null && typeof node === "object" && "number" in (node as object));
  return {
    totalCount: typeof search.issueCount === "number" ? search.issueCount : 0,
    incompleteResults: false,
    items: nodes.map((node) => N.pullSummary(node, "searchPullRequestSummaries")),
    nextPageToken: cursorToken(info.hasNextPage === true, info.endCursor),
  };
}

/**
 * Searches pull requests across every repository the token can see (a broader grant than
 * searchPullRequests); repo:, org: and user: qualifiers are allowed, author and dates are options.
 * @param query Search text, e.g. `dependency bump org:acme`.
 * @param options Author, creation dates, sort and paging.
 * @returns One page of pull requests as issues (see `repository` on each).
 * @capability github.com/pulls.searchAcrossRepositories { query: string, author: string, createdSince: string, createdUntil: string }
 */
export function searchPullRequestsAcrossRepositories(query: string, options?: CrossSearchOptions | null): SearchPage<Issue> {
  const s = crossSearch(query, options, "pr");
  const { author, createdSince, createdUntil, url, page, perPage } = s;
  const q = s.query;
  check("github.com/pulls.searchAcrossRepositories", { query: q, author, createdSince, createdUntil });
  return searchPage(apiList(url, "searchPullRequestsAcrossRepositories"), page, perPage, "searchPullRequestsAcrossRepositories", N.issue);
}

/**
 * The files a pull request changes, with patches (at most 3,000 files in total).
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param options Paging.
 * @returns One page of changed files.
 * @capability github.com/pullFiles.list { owner: string, repo: string, number: number, base: null }
 */
export function listPullRequestFiles(repository: RepositoryRef, number: number, options?: ListOptions | null): Page<ChangedFile> {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/pullFiles.list", { owner, repo, number: n, base: null });
  return listPage(apiList(`${repoPath({ owner, repo })}/pulls/${n}/files?${pageQuery(perPage, page)}`, "listPullRequestFiles"), page, perPage, "listPullRequestFiles", N.changedFile);
}

/**
 * A pull request's reviews (oldest first).
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param options Paging.
 * @returns One page of reviews.
 * @capability github.com/pullReviews.list { owner: string, repo: string, number: number, base: null }
 */
export function listPullRequestReviews(repository: RepositoryRef, number: number, options?: ListOptions | null): Page<Review> {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/pullReviews.list", { owner, repo, number: n, base: null });
  return listPage(apiList(`${repoPath({ owner, repo })}/pulls/${n}/reviews?${pageQuery(perPage, page)}`, "listPullRequestReviews"), page, perPage, "listPullRequestReviews", N.review);
}

/** A line comment inside a new review. */
export interface ReviewLineComment {
  /** File path in the pull request. */
  path: string;
  /** Line of the file the comment is on (new side unless `side` is LEFT). */
  line: number;
  /** `RIGHT` (default, the new file) or `LEFT` (the old file). */
  side?: "LEFT" | "RIGHT" | null;
  /** First line of a multi-line comment. */
  startLine?: number | null;
  body: string;
}

/** A new review. */
export interface ReviewInput {
  /** `APPROVE`, `REQUEST_CHANGES` or `COMMENT`. */
  event: "APPROVE" | "REQUEST_CHANGES" | "COMMENT";
  /** Review text; required for REQUEST_CHANGES and COMMENT. */
  body?: string | null;
  /** Line comments (at most 100). */
  comments?: ReviewLineComment[] | null;
  /** Commit the review is about (default: the current head). */
  commitId?: string | null;
}

function lineNumber(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) throw invalidArgument(`${field}: expected a positive line number`);
  return value;
}

/**
 * Submits a review: approve, request changes or comment, with optional line comments.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param input Event, body and line comments.
 * @returns The submitted review.
 * @capability github.com/pullReviews.create { owner: string, repo: string, number: number, base: null }
 */
export function createPullRequestReview(repository: RepositoryRef, number: number, input: ReviewInput): Review {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const i = optionsArg(input, "input");
  const event = optionalEnum(i.event, "input.event", ["APPROVE", "REQUEST_CHANGES", "COMMENT"] as const);
  if (event === null) throw invalidArgument('input.event: expected one of "APPROVE", "REQUEST_CHANGES", "COMMENT"');
  const text = optionalString(i.body, "input.body");
  if (event !== "APPROVE" && (text === null || text.trim() === "")) throw invalidArgument(`input.body: a ${event} review needs a body`);
  const commitId = i.commitId == null ? null : shaArg(i.commitId, "input.commitId");
  const rawComments = i.comments ?? [];
  if (!Array.isArray(rawComments) || rawComments.length > 100) throw invalidArgument("input.comments: expected an array of at most 100 line comments");
  const comments = rawComments.map((entry: unknown, index: number) => {
    const field = `input.comments[${index}]`;
    const c = optionsArg(entry, field);
    const out: Record<string, unknown> = { path: filePath(c.path, `${field}.path`), line: lineNumber(c.line, `${field}.line`), body: requiredString(c.body, `${field}.body`) };
    const side = optionalEnum(c.side, `${field}.side`, ["LEFT", "RIGHT"] as const);
    if (side !== null) out.side = side;
    if (c.startLine != null) out.start_line = lineNumber(c.startLine, `${field}.startLine`);
    return out;
  });
  check("github.com/pullReviews.create", { owner, repo, number: n, base: null });
  const body: Record<string, unknown> = { event };
  if (text !== null) body.body = text;
  if (commitId !== null) body.commit_id = commitId;
  if (comments.length > 0) body.comments = comments;
  return N.review(apiPost(`${repoPath({ owner, repo })}/pulls/${n}/reviews`, body, "createPullRequestReview").data, "createPullRequestReview");
}

/**
 * The review comments (line comments) of a pull request.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param options Paging.
 * @returns One page of review comments.
 * @capability github.com/pullComments.list { owner: string, repo: string, number: number, base: null }
 */
export function listPullRequestComments(repository: RepositoryRef, number: number, options?: ListOptions | null): Page<ReviewComment> {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/pullComments.list", { owner, repo, number: n, base: null });
  return listPage(apiList(`${repoPath({ owner, repo })}/pulls/${n}/comments?${pageQuery(perPage, page)}`, "listPullRequestComments"), page, perPage, "listPullRequestComments", N.reviewComment);
}

/** A new review comment: a reply (`inReplyTo`) or a comment on a line (`path`, `line`). */
export interface ReviewCommentInput {
  body: string;
  /** Id of the review comment to reply to (then path and line are not needed). */
  inReplyTo?: number | null;
  path?: string | null;
  line?: number | null;
  /** `RIGHT` (default) or `LEFT`. */
  side?: "LEFT" | "RIGHT" | null;
  /** First line of a multi-line comment. */
  startLine?: number | null;
  /** Commit to comment on (default: the pull request's current head). */
  commitId?: string | null;
}

/**
 * Adds a review comment on a line of the diff, or a reply to one.
 * @param repository `{owner, name}`.
 * @param number Pull request number.
 * @param input Body and either `inReplyTo` or `path` and `line`.
 * @returns The new review comment.
 * @capability github.com/pullComments.create { owner: string, repo: string, number: number, base: null }
 */
export function addPullRequestComment(repository: RepositoryRef, number: number, input: ReviewCommentInput): ReviewComment {
  const { owner, repo } = repositoryArg(repository);
  const n = issueNumber(number);
  const i = optionsArg(input, "input");
  const text = requiredString(i.body, "input.body");
  const replyTo = i.inReplyTo == null ? null : lineNumber(i.inReplyTo, "input.inReplyTo");
  const path = replyTo !== null ? null : filePath(i.path, "input.path");
  const line = replyTo !== null ? null : lineNumber(i.line, "input.line");
  const side = optionalEnum(i.side, "input.side", ["LEFT", "RIGHT"] as const);
  const startLine = i.startLine == null ? null : lineNumber(i.startLine, "input.startLine");
  let commitId = i.commitId == null ? null : shaArg(i.commitId, "input.commitId");
  check("github.com/pullComments.create", { owner, repo, number: n, base: null });
  const base = repoPath({ owner, repo });
  const body: Record<string, unknown> = { body: text };
  if (replyTo !== null) body.in_reply_to = replyTo;
  else {
    if (commitId === null) {
      // GitHub needs the commit; default to the pull request's current head.
      commitId = N.pullRequest(apiList(`${base}/pulls/${n}`, "addPullRequestComment (read head)").data, "addPullRequestComment").head.sha;
    }
    Object.assign(body, { path, line, commit_id: commitId, side: side ?? "RIGHT" });
    if (startLine !== null) body.start_line = startLine;
  }
  return N.reviewComment(apiPost(`${base}/pulls/${n}/comments`, body, "addPullRequestComment").data, "addPullRequestComment");
}
