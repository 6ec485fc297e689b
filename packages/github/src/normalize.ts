// GitHub's JSON answers → the small types of types.ts. A value of the wrong shape is
// `invalid_response` rather than a TypeError deep inside an operation.
import { GitHubError } from "./errors";
import type * as T from "./types";

type Json = Record<string, unknown>;

export function object(value: unknown, what: string): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new GitHubError("invalid_response", `GitHub ${what}: expected a JSON object in the answer`);
  return value as Json;
}

export function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new GitHubError("invalid_response", `GitHub ${what}: expected a JSON array in the answer`);
  return value;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const bool = (v: unknown): boolean => v === true;
const loginOf = (v: unknown): string | null => (v !== null && typeof v === "object" ? str((v as Json).login) : null);
const names = (v: unknown, key: string): string[] =>
  Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : x !== null && typeof x === "object" ? str((x as Json)[key]) : null)).filter((x): x is string => x !== null) : [];

function required<V>(value: V | null, field: string, what: string): V {
  if (value === null) throw new GitHubError("invalid_response", `GitHub ${what}: the answer lacks \`${field}\``);
  return value;
}

export function userSummary(value: unknown, what: string): T.UserSummary {
  const u = object(value, what);
  return { login: required(str(u.login), "login", what), id: num(u.id) ?? 0, type: str(u.type) ?? "User", htmlUrl: str(u.html_url) ?? "" };
}

export function viewer(value: unknown, what: string): T.Viewer {
  const u = object(value, what);
  return { ...userSummary(u, what), name: str(u.name), email: str(u.email), company: str(u.company), bio: str(u.bio), publicRepos: num(u.public_repos), createdAt: str(u.created_at) };
}

export function repository(value: unknown, what: string): T.Repository {
  const r = object(value, what);
  const fullName = required(str(r.full_name), "full_name", what);
  return {
    id: num(r.id) ?? 0,
    owner: loginOf(r.owner) ?? fullName.split("/")[0],
    name: str(r.name) ?? fullName.split("/")[1] ?? "",
    fullName,
    description: str(r.description),
    private: bool(r.private),
    visibility: str(r.visibility),
    fork: bool(r.fork),
    archived: bool(r.archived),
    defaultBranch: str(r.default_branch),
    language: str(r.language),
    topics: names(r.topics, "name"),
    stars: num(r.stargazers_count) ?? 0,
    forks: num(r.forks_count) ?? 0,
    openIssues: num(r.open_issues_count) ?? 0,
    htmlUrl: str(r.html_url) ?? "",
    cloneUrl: str(r.clone_url),
    createdAt: str(r.created_at),
    updatedAt: str(r.updated_at),
    pushedAt: str(r.pushed_at),
  };
}

export function branch(value: unknown, what: string): T.Branch {
  const b = object(value, what);
  const commit = object(b.commit, what);
  return { name: required(str(b.name), "name", what), sha: required(str(commit.sha), "commit.sha", what), protected: bool(b.protected) };
}

function identity(value: unknown): T.GitIdentity {
  const i = value !== null && typeof value === "object" ? (value as Json) : {};
  return { name: str(i.name), email: str(i.email), date: str(i.date) };
}

export function changedFile(value: unknown, what: string): T.ChangedFile {
  const f = object(value, what);
  return {
    filename: required(str(f.filename), "filename", what),
    status: str(f.status) ?? "modified",
    additions: num(f.additions) ?? 0,
    deletions: num(f.deletions) ?? 0,
    changes: num(f.changes) ?? 0,
    patch: str(f.patch),
    previousFilename: str(f.previous_filename),
    sha: str(f.sha),
  };
}

export function commit(value: unknown, what: string, withFiles: boolean): T.Commit {
  const c = object(value, what);
  const inner = object(c.commit, what);
  const tree = inner.tree !== null && typeof inner.tree === "object" ? (inner.tree as Json) : {};
  return {
    sha: required(str(c.sha), "sha", what),
    message: str(inner.message) ?? "",
    author: identity(inner.author),
    committer: identity(inner.committer),
    authorLogin: loginOf(c.author),
    parents: names(c.parents, "sha"),
    treeSha: str(tree.sha),
    htmlUrl: str(c.html_url),
    files: withFiles ? (Array.isArray(c.files) ? c.files.map((f) => changedFile(f, what)) : []) : null,
  };
}

export function release(value: unknown, what: string): T.Release {
  const r = object(value, what);
  return {
    id: num(r.id) ?? 0,
    tagName: required(str(r.tag_name), "tag_name", what),
    name: str(r.name),
    body: str(r.body),
    draft: bool(r.draft),
    prerelease: bool(r.prerelease),
    author: loginOf(r.author),
    createdAt: str(r.created_at),
    publishedAt: str(r.published_at),
    htmlUrl: str(r.html_url),
    assets: Array.isArray(r.assets)
      ? r.assets.map((a) => {
          const x = object(a, what);
          return { name: str(x.name) ?? "", size: num(x.size) ?? 0, contentType: str(x.content_type), downloadCount: num(x.download_count) ?? 0, downloadUrl: str(x.browser_download_url) };
        })
      : [],
  };
}

export function directoryEntry(value: unknown, what: string): T.DirectoryEntry {
  const e = object(value, what);
  return { name: str(e.name) ?? "", path: required(str(e.path), "path", what), type: str(e.type) ?? "file", size: num(e.size) ?? 0, sha: str(e.sha) ?? "" };
}

export function tree(value: unknown, what: string): T.Tree {
  const t = object(value, what);
  return {
    sha: required(str(t.sha), "sha", what),
    truncated: bool(t.truncated),
    entries: array(t.tree, what).map((e) => {
      const x = object(e, what);
      return { path: required(str(x.path), "tree[].path", what), mode: str(x.mode) ?? "", type: str(x.type) ?? "blob", sha: str(x.sha) ?? "", size: num(x.size) };
    }),
  };
}

export function label(value: unknown, what: string): T.Label {
  const l = object(value, what);
  return { name: required(str(l.name), "name", what), color: str(l.color), description: str(l.description) };
}

/** `owner/name` from a repository API URL (`https://api.github.com/repos/o/n`). */
function repositoryFromUrl(url: unknown): string | null {
  const match = typeof url === "string" ? /\/repos\/([^/]+\/[^/]+)$/.exec(url) : null;
  return match ? match[1] : null;
}

export function issue(value: unknown, what: string): T.Issue {
  const i = object(value, what);
  const milestone = i.milestone !== null && typeof i.milestone === "object" ? str((i.milestone as Json).title) : null;
  return {
    number: required(num(i.number), "number", what),
    title: str(i.title) ?? "",
    body: str(i.body),
    state: str(i.state) ?? "open",
    stateReason: str(i.state_reason),
    author: loginOf(i.user),
    assignees: names(i.assignees, "login"),
    labels: names(i.labels, "name"),
    milestone,
    comments: num(i.comments) ?? 0,
    isPullRequest: i.pull_request !== undefined && i.pull_request !== null,
    locked: bool(i.locked),
    createdAt: str(i.created_at),
    updatedAt: str(i.updated_at),
    closedAt: str(i.closed_at),
    htmlUrl: str(i.html_url),
    repository: repositoryFromUrl(i.repository_url),
  };
}

export function issueComment(value: unknown, what: string): T.IssueComment {
  const c = object(value, what);
  return { id: required(num(c.id), "id", what), author: loginOf(c.user), body: str(c.body) ?? "", createdAt: str(c.created_at), updatedAt: str(c.updated_at), htmlUrl: str(c.html_url) };
}

function pullRef(value: unknown, what: string): T.PullRequestRef {
  const r = object(value, what);
  const repo = r.repo !== null && typeof r.repo === "object" ? str((r.repo as Json).full_name) : null;
  return { ref: str(r.ref) ?? "", sha: str(r.sha) ?? "", repository: repo, label: str(r.label) };
}

export function pullRequest(value: unknown, what: string): T.PullRequest {
  const p = object(value, what);
  return {
    number: required(num(p.number), "number", what),
    title: str(p.title) ?? "",
    body: str(p.body),
    state: str(p.state) ?? "open",
    draft: bool(p.draft),
    merged: bool(p.merged) || str(p.merged_at) !== null,
    mergeable: typeof p.mergeable === "boolean" ? p.mergeable : null,
    mergeableState: str(p.mergeable_state),
    author: loginOf(p.user),
    head: pullRef(p.head, what),
    base: pullRef(p.base, what),
    labels: names(p.labels, "name"),
    assignees: names(p.assignees, "login"),
    requestedReviewers: names(p.requested_reviewers, "login"),
    additions: num(p.additions),
    deletions: num(p.deletions),
    changedFiles: num(p.changed_files),
    commits: num(p.commits),
    createdAt: str(p.created_at),
    updatedAt: str(p.updated_at),
    closedAt: str(p.closed_at),
    mergedAt: str(p.merged_at),
    mergeCommitSha: str(p.merge_commit_sha),
    htmlUrl: str(p.html_url),
  };
}

export function reaction(value: unknown, what: string): T.Reaction {
  const r = object(value, what);
  return { content: required(str(r.content), "content", what), user: loginOf(r.user), createdAt: str(r.created_at) };
}

export function review(value: unknown, what: string): T.Review {
  const r = object(value, what);
  return { id: required(num(r.id), "id", what), author: loginOf(r.user), state: str(r.state) ?? "", body: str(r.body), commitId: str(r.commit_id), submittedAt: str(r.submitted_at), htmlUrl: str(r.html_url) };
}

export function reviewComment(value: unknown, what: string): T.ReviewComment {
  const c = object(value, what);
  return {
    id: required(num(c.id), "id", what),
    author: loginOf(c.user),
    body: str(c.body) ?? "",
    path: str(c.path) ?? "",
    line: num(c.line),
    startLine: num(c.start_line),
    side: str(c.side),
    commitId: str(c.commit_id),
    inReplyToId: num(c.in_reply_to_id),
    createdAt: str(c.created_at),
    updatedAt: str(c.updated_at),
    htmlUrl: str(c.html_url),
  };
}

export function codeItem(value: unknown, what: string): T.CodeSearchItem {
  const c = object(value, what);
  const repo = c.repository !== null && typeof c.repository === "object" ? str((c.repository as Json).full_name) : null;
  return { name: str(c.name) ?? "", path: required(str(c.path), "path", what), sha: str(c.sha) ?? "", repository: repo ?? "", htmlUrl: str(c.html_url) };
}

export function team(value: unknown, what: string): T.Team {
  const t = object(value, what);
  return {
    id: num(t.id) ?? 0,
    slug: required(str(t.slug), "slug", what),
    name: str(t.name) ?? "",
    description: str(t.description),
    org: loginOf(t.organization),
    privacy: str(t.privacy),
    htmlUrl: str(t.html_url),
  };
}

export function rateLimit(value: unknown, what: string): T.RateLimit {
  const r = object(value, what);
  const resources: Record<string, T.RateLimitBucket> = {};
  for (const [name, bucket] of Object.entries(object(r.resources, what))) {
    const b = object(bucket, what);
    resources[name] = { limit: num(b.limit) ?? 0, remaining: num(b.remaining) ?? 0, used: num(b.used) ?? 0, reset: num(b.reset) ?? 0 };
  }
  return { resources };
}

export function pullSummary(value: unknown, what: string): T.PullRequestSummary {
  const p = object(value, what);
  const labels = p.labels !== null && typeof p.labels === "object" ? names((p.labels as Json).nodes, "name") : [];
  return {
    number: required(num(p.number), "number", what),
    title: str(p.title) ?? "",
    state: str(p.state) ?? "",
    isDraft: bool(p.isDraft),
    author: loginOf(p.author),
    createdAt: str(p.createdAt),
    mergedAt: str(p.mergedAt),
    additions: num(p.additions) ?? 0,
    deletions: num(p.deletions) ?? 0,
    changedFiles: num(p.changedFiles) ?? 0,
    reviewDecision: str(p.reviewDecision),
    headRef: str(p.headRefName),
    baseRef: str(p.baseRefName),
    labels,
    url: str(p.url),
  };
}
