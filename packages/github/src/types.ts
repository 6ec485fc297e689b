// The normalised shapes every operation returns (plain JSON: no Maps, no Dates).

/** One page of a list; pass `nextPageToken` back as `options.pageToken` for the next one. */
export interface Page<T> {
  items: T[];
  /** Opaque token of the next page; null on the last page. */
  nextPageToken: string | null;
}

/** One page of search results. */
export interface SearchPage<T> extends Page<T> {
  /** GitHub's total match count (search APIs return at most 1,000 of them). */
  totalCount: number;
  /** True when GitHub stopped the search early (results may be missing). */
  incompleteResults: boolean;
}

/** A user or organisation, as other objects mention it. */
export interface UserSummary {
  login: string;
  id: number;
  /** `User`, `Organization` or `Bot`. */
  type: string;
  htmlUrl: string;
}

/** The authenticated user. */
export interface Viewer extends UserSummary {
  name: string | null;
  email: string | null;
  company: string | null;
  bio: string | null;
  publicRepos: number | null;
  createdAt: string | null;
}

/** A repository. */
export interface Repository {
  id: number;
  owner: string;
  name: string;
  /** `owner/name`. */
  fullName: string;
  description: string | null;
  private: boolean;
  /** `public`, `private` or `internal`. */
  visibility: string | null;
  fork: boolean;
  archived: boolean;
  defaultBranch: string | null;
  language: string | null;
  topics: string[];
  stars: number;
  forks: number;
  openIssues: number;
  htmlUrl: string;
  cloneUrl: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  pushedAt: string | null;
}

/** A branch and its head commit. */
export interface Branch {
  name: string;
  /** Head commit SHA. */
  sha: string;
  protected: boolean;
}

/** A person in a commit (name, email and time as git records them). */
export interface GitIdentity {
  name: string | null;
  email: string | null;
  date: string | null;
}

/** A file changed by a commit or a pull request. */
export interface ChangedFile {
  filename: string;
  /** `added`, `removed`, `modified`, `renamed`, `copied`, `changed` or `unchanged`. */
  status: string;
  additions: number;
  deletions: number;
  changes: number;
  /** Unified diff of the file; null for binary or very large changes. */
  patch: string | null;
  previousFilename: string | null;
  sha: string | null;
}

/** A commit. */
export interface Commit {
  sha: string;
  message: string;
  author: GitIdentity;
  committer: GitIdentity;
  /** GitHub login of the author, when GitHub matched one. */
  authorLogin: string | null;
  parents: string[];
  treeSha: string | null;
  htmlUrl: string | null;
  /** Changed files (getCommit only; null in lists). */
  files: ChangedFile[] | null;
}

/** What commitFiles created. */
export interface CommitResult {
  /** The new commit's SHA, now the branch head. */
  sha: string;
  treeSha: string;
  branch: string;
  /** The head the commit was built on (equals expectedHeadSha). */
  parentSha: string;
  htmlUrl: string | null;
}

/** A release asset. */
export interface ReleaseAsset {
  name: string;
  size: number;
  contentType: string | null;
  downloadCount: number;
  downloadUrl: string | null;
}

/** A release. */
export interface Release {
  id: number;
  tagName: string;
  name: string | null;
  body: string | null;
  draft: boolean;
  prerelease: boolean;
  author: string | null;
  createdAt: string | null;
  publishedAt: string | null;
  htmlUrl: string | null;
  assets: ReleaseAsset[];
}

/** A file's bytes, base64-encoded. */
export interface FileContent {
  path: string;
  /** Blob SHA. */
  sha: string;
  /** Size in bytes. */
  size: number;
  /** The file's bytes in standard base64 (no line breaks). */
  contentBase64: string;
}

/** An entry of a directory listing. */
export interface DirectoryEntry {
  name: string;
  path: string;
  /** `file`, `dir`, `symlink` or `submodule`. */
  type: string;
  size: number;
  sha: string;
}

/** An entry of a git tree. */
export interface TreeEntry {
  path: string;
  /** File mode, e.g. `100644`, `100755`, `040000`, `120000`. */
  mode: string;
  /** `blob`, `tree` or `commit`. */
  type: string;
  sha: string;
  /** Size in bytes for blobs; null otherwise. */
  size: number | null;
}

/** A git tree. */
export interface Tree {
  sha: string;
  entries: TreeEntry[];
  /** True when GitHub cut a recursive listing short. */
  truncated: boolean;
}

/** A label. */
export interface Label {
  name: string;
  color: string | null;
  description: string | null;
}

/** An issue (GitHub also lists pull requests as issues; see `isPullRequest`). */
export interface Issue {
  number: number;
  title: string;
  body: string | null;
  /** `open` or `closed`. */
  state: string;
  /** `completed`, `not_planned`, `reopened` or null. */
  stateReason: string | null;
  author: string | null;
  assignees: string[];
  labels: string[];
  milestone: string | null;
  comments: number;
  isPullRequest: boolean;
  locked: boolean;
  createdAt: string | null;
  updatedAt: string | null;
  closedAt: string | null;
  htmlUrl: string | null;
  /** Owner and name of the repository (useful in cross-repository searches). */
  repository: string | null;
}

/** A comment on an issue or pull request conversation. */
export interface IssueComment {
  id: number;
  author: string | null;
  body: string;
  createdAt: string | null;
  updatedAt: string | null;
  htmlUrl: string | null;
}

/** One side of a pull request. */
export interface PullRequestRef {
  /** Branch name. */
  ref: string;
  sha: string;
  /** `owner/name` of the repository holding the branch (null when it was deleted). */
  repository: string | null;
  /** `owner:branch` as GitHub labels it. */
  label: string | null;
}

/** A pull request. */
export interface PullRequest {
  number: number;
  title: string;
  body: string | null;
  /** `open` or `closed`. */
  state: string;
  draft: boolean;
  merged: boolean;
  /** True/false once GitHub computed it; null while unknown (and in lists). */
  mergeable: boolean | null;
  /** e.g. `clean`, `dirty`, `blocked`, `behind`, `unstable`, `unknown`; null in lists. */
  mergeableState: string | null;
  author: string | null;
  head: PullRequestRef;
  base: PullRequestRef;
  labels: string[];
  assignees: string[];
  requestedReviewers: string[];
  additions: number | null;
  deletions: number | null;
  changedFiles: number | null;
  commits: number | null;
  createdAt: string | null;
  updatedAt: string | null;
  closedAt: string | null;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  htmlUrl: string | null;
}

/** The answer of a merge. */
export interface MergeResult {
  merged: boolean;
  /** The merge (or squash/rebase) commit SHA. */
  sha: string | null;
  message: string;
}

/** A reaction on a pull request. */
export interface Reaction {
  /** `+1`, `-1`, `laugh`, `confused`, `heart`, `hooray`, `rocket` or `eyes`. */
  content: string;
  user: string | null;
  createdAt: string | null;
}

/** Reactions on a pull request, with counts per kind. */
export interface ReactionPage extends Page<Reaction> {
  /** Count per reaction kind over this page. */
  counts: Record<string, number>;
}

/** A pull request review. */
export interface Review {
  id: number;
  author: string | null;
  /** `APPROVED`, `CHANGES_REQUESTED`, `COMMENTED`, `DISMISSED` or `PENDING`. */
  state: string;
  body: string | null;
  commitId: string | null;
  submittedAt: string | null;
  htmlUrl: string | null;
}

/** A review comment on a line of a pull request's diff. */
export interface ReviewComment {
  id: number;
  author: string | null;
  body: string;
  path: string;
  /** Line in the file (new side for RIGHT, old side for LEFT); null when outdated. */
  line: number | null;
  startLine: number | null;
  /** `LEFT` or `RIGHT`. */
  side: string | null;
  commitId: string | null;
  inReplyToId: number | null;
  createdAt: string | null;
  updatedAt: string | null;
  htmlUrl: string | null;
}

/** A code search match. */
export interface CodeSearchItem {
  name: string;
  path: string;
  sha: string;
  repository: string;
  htmlUrl: string | null;
}

/** A compact pull request line of searchPullRequestSummaries (GraphQL). */
export interface PullRequestSummary {
  number: number;
  title: string;
  /** `OPEN`, `CLOSED` or `MERGED`. */
  state: string;
  isDraft: boolean;
  author: string | null;
  createdAt: string | null;
  mergedAt: string | null;
  additions: number;
  deletions: number;
  changedFiles: number;
  /** `APPROVED`, `CHANGES_REQUESTED`, `REVIEW_REQUIRED` or null. */
  reviewDecision: string | null;
  headRef: string | null;
  baseRef: string | null;
  labels: string[];
  url: string | null;
}

/** A team. */
export interface Team {
  id: number;
  slug: string;
  name: string;
  description: string | null;
  /** Organisation login. */
  org: string | null;
  privacy: string | null;
  htmlUrl: string | null;
}

/** One rate-limit bucket. */
export interface RateLimitBucket {
  limit: number;
  remaining: number;
  used: number;
  /** Unix seconds when the bucket refills. */
  reset: number;
}

/** The token's rate limits, per resource (`core`, `search`, `graphql`, `code_search`, ...). */
export interface RateLimit {
  resources: Record<string, RateLimitBucket>;
}
