// Repository-scoped reads and writes: repository, branches, commits (commitFiles through the
// git data API), releases, contents, trees, labels and code search. Every check sends
// {owner, repo, branch, path, ref, treeSha, head, base} with null for unnamed fields.
import { check } from "svc:security";
import { apiDelete, apiGet, apiList, apiPatch, apiPost, pagePosition, type Answer } from "./client";
import {
  branchName, encodePath, filePath, isoDate, login, options as optionsArg, refName, repoPath, repository as repositoryArg, requiredString, scopedQuery, sha as shaArg,
  type RepositoryRef,
} from "./args";
import { MAX_FILE_BYTES, base64ToBytes, utf8OrNull } from "./bytes";
import { GitHubError, invalidArgument } from "./errors";
import * as N from "./normalize";
import { listPage, pageQuery, searchPage } from "./query";
import type { ListOptions } from "./account";
import type { Branch, CodeSearchItem, Commit, CommitResult, DirectoryEntry, FileContent, Label, Page, Release, Repository, SearchPage, Tree } from "./types";

/**
 * A repository's details; null when it does not exist or the token cannot see it.
 * @param repository `{owner, name}`.
 * @returns The repository, or null.
 * @capability github.com/repositories.get { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function getRepository(repository: RepositoryRef): Repository | null {
  const { owner, repo } = repositoryArg(repository);
  check("github.com/repositories.get", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const answer = apiGet(repoPath({ owner, repo }), "getRepository", { nullOn: [404] });
  return answer ? N.repository(answer.data, "getRepository") : null;
}

/**
 * Searches code in one repository (GitHub code search syntax without repo:, org:, user:, OR).
 * @param repository `{owner, name}`.
 * @param query Search text, e.g. `parseConfig language:ts path:src`.
 * @param options Paging.
 * @returns One page of matching files.
 * @capability github.com/code.search { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function searchCode(repository: RepositoryRef, query: string, options?: ListOptions | null): SearchPage<CodeSearchItem> {
  const q = scopedQuery(query);
  const { owner, repo } = repositoryArg(repository);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/code.search", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const full = `${q} repo:${owner}/${repo}`;
  return searchPage(apiList(`search/code?q=${encodeURIComponent(full)}&${pageQuery(perPage, page)}`, "searchCode"), page, perPage, "searchCode", N.codeItem);
}

/**
 * One branch and its head commit; null when the branch (or repository) does not exist.
 * @param repository `{owner, name}`.
 * @param branch Branch name, e.g. `main`.
 * @returns The branch, or null.
 * @capability github.com/branches.get { owner: string, repo: string, branch: string, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function getBranch(repository: RepositoryRef, branch: string): Branch | null {
  const { owner, repo } = repositoryArg(repository);
  const name = branchName(branch);
  check("github.com/branches.get", { owner, repo, branch: name, path: null, ref: null, treeSha: null, head: null, base: null });
  const answer = apiGet(`${repoPath({ owner, repo })}/branches/${encodePath(name)}`, "getBranch", { nullOn: [404] });
  return answer ? N.branch(answer.data, "getBranch") : null;
}

/** Options of listBranches. */
export interface ListBranchesOptions extends ListOptions {
  /** Only protected (true) or unprotected (false) branches. */
  protected?: boolean | null;
}

/**
 * The repository's branches.
 * @param repository `{owner, name}`.
 * @param options Paging and a protection filter.
 * @returns One page of branches.
 * @capability github.com/branches.list { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function listBranches(repository: RepositoryRef, options?: ListBranchesOptions | null): Page<Branch> {
  const { owner, repo } = repositoryArg(repository);
  const o = optionsArg(options);
  const onlyProtected = o.protected ?? null;
  if (onlyProtected !== null && typeof onlyProtected !== "boolean") throw invalidArgument("options.protected: expected true or false");
  const { perPage, page } = pagePosition(o);
  check("github.com/branches.list", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const filter = onlyProtected === null ? "" : `&protected=${onlyProtected}`;
  return listPage(apiList(`${repoPath({ owner, repo })}/branches?${pageQuery(perPage, page)}${filter}`, "listBranches"), page, perPage, "listBranches", N.branch);
}

/**
 * Creates a branch pointing at a commit.
 * @param repository `{owner, name}`.
 * @param branch New branch name.
 * @param fromSha Full SHA of the commit the branch starts at (e.g. another branch's `sha`).
 * @returns The new branch.
 * @capability github.com/branches.create { owner: string, repo: string, branch: string, path: null, ref: string, treeSha: null, head: null, base: null }
 */
export function createBranch(repository: RepositoryRef, branch: string, fromSha: string): Branch {
  const { owner, repo } = repositoryArg(repository);
  const name = branchName(branch);
  const start = shaArg(fromSha, "fromSha");
  check("github.com/branches.create", { owner, repo, branch: name, path: null, ref: start, treeSha: null, head: null, base: null });
  const created = N.object(apiPost(`${repoPath({ owner, repo })}/git/refs`, { ref: "refs/heads/" + name, sha: start }, "createBranch").data, "createBranch");
  const target = N.object(created.object, "createBranch");
  return { name, sha: typeof target.sha === "string" ? target.sha : start, protected: false };
}

/**
 * Deletes a branch.
 * @param repository `{owner, name}`.
 * @param branch Branch to delete.
 * @capability github.com/branches.delete { owner: string, repo: string, branch: string, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function deleteBranch(repository: RepositoryRef, branch: string): void {
  const { owner, repo } = repositoryArg(repository);
  const name = branchName(branch);
  check("github.com/branches.delete", { owner, repo, branch: name, path: null, ref: null, treeSha: null, head: null, base: null });
  apiDelete(`${repoPath({ owner, repo })}/git/refs/heads/${encodePath(name)}`, "deleteBranch");
}

/** Options of listCommits. */
export interface ListCommitsOptions extends ListOptions {
  /** Branch, tag or SHA to list from (default: the default branch). */
  sha?: string | null;
  /** Only commits touching this path. */
  path?: string | null;
  /** Only commits by this GitHub login. */
  author?: string | null;
  /** ISO date: only commits after it. */
  since?: string | null;
  /** ISO date: only commits before it. */
  until?: string | null;
}

/**
 * Commits of a branch (newest first).
 * @param repository `{owner, name}`.
 * @param options Start ref (`sha`), path, author, dates and paging.
 * @returns One page of commits (without files).
 * @capability github.com/commits.list { owner: string, repo: string, branch: null, path: string, ref: string, treeSha: null, head: null, base: null }
 */
export function listCommits(repository: RepositoryRef, options?: ListCommitsOptions | null): Page<Commit> {
  const { owner, repo } = repositoryArg(repository);
  const o = optionsArg(options);
  const ref = o.sha == null ? null : refName(o.sha, "options.sha");
  const path = o.path == null ? null : filePath(o.path, "options.path");
  const author = o.author == null ? null : login(o.author, "options.author");
  const since = isoDate(o.since, "options.since");
  const until = isoDate(o.until, "options.until");
  const { perPage, page } = pagePosition(o);
  check("github.com/commits.list", { owner, repo, branch: null, path, ref, treeSha: null, head: null, base: null });
  let query = pageQuery(perPage, page);
  if (ref !== null) query += `&sha=${encodeURIComponent(ref)}`;
  if (path !== null) query += `&path=${encodeURIComponent(path)}`;
  if (author !== null) query += `&author=${encodeURIComponent(author)}`;
  if (since !== null) query += `&since=${encodeURIComponent(since)}`;
  if (until !== null) query += `&until=${encodeURIComponent(until)}`;
  return listPage(apiList(`${repoPath({ owner, repo })}/commits?${query}`, "listCommits"), page, perPage, "listCommits", (v, w) => N.commit(v, w, false));
}

/**
 * One commit with its changed files; null when no such commit exists.
 * @param repository `{owner, name}`.
 * @param ref Commit SHA, branch or tag.
 * @returns The commit, or null.
 * @capability github.com/commits.get { owner: string, repo: string, branch: null, path: null, ref: string, treeSha: null, head: null, base: null }
 */
export function getCommit(repository: RepositoryRef, ref: string): Commit | null {
  const { owner, repo } = repositoryArg(repository);
  const target = refName(ref);
  check("github.com/commits.get", { owner, repo, branch: null, path: null, ref: target, treeSha: null, head: null, base: null });
  // GitHub answers 422 for a well-formed SHA that names no commit.
  const answer = apiGet(`${repoPath({ owner, repo })}/commits/${encodePath(target)}`, "getCommit", { nullOn: [404, 422] });
  return answer ? N.commit(answer.data, "getCommit", true) : null;
}

/** One file change of commitFiles: give `content` (UTF-8 text) or `contentBase64` (bytes), or `delete: true`. */
export interface FileChange {
  /** Path inside the repository. */
  path: string;
  /** New text content (UTF-8). */
  content?: string | null;
  /** New content as base64 bytes (binary files). */
  contentBase64?: string | null;
  /** `100644` (default) or `100755` (executable). */
  mode?: "100644" | "100755" | null;
  /** Remove the file instead. */
  delete?: boolean | null;
}

/** Arguments of commitFiles. */
export interface CommitFilesInput {
  /** Commit message. */
  message: string;
  /** The changes (1–1000). */
  files: FileChange[];
  /** The branch head you based the change on; the commit is refused (`branch_moved`) if the branch moved. */
  expectedHeadSha: string;
}

interface CheckedChange {
  path: string;
  mode: string;
  remove: boolean;
  content: string | null;
  encoding: "utf-8" | "base64";
}

function fileChanges(value: unknown): CheckedChange[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 1000) throw invalidArgument("input.files: expected an array of 1 to 1000 file changes");
  const seen = new Set<string>();
  return value.map((entry: unknown, index: number) => {
    const field = `input.files[${index}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw invalidArgument(`${field}: expected {path, content} or {path, contentBase64} or {path, delete: true}`);
    const e = entry as Record<string, unknown>;
    const path = filePath(e.path, `${field}.path`);
    if (seen.has(path)) throw invalidArgument(`${field}.path: "${path}" appears twice`);
    seen.add(path);
    const remove = e.delete === true;
    const text = e.content ?? null;
    const base64 = e.contentBase64 ?? null;
    const given = (text !== null ? 1 : 0) + (base64 !== null ? 1 : 0) + (remove ? 1 : 0);
    if (given !== 1) throw invalidArgument(`${field}: give exactly one of content, contentBase64 or delete: true`);
    const mode = e.mode ?? "100644";
    if (mode !== "100644" && mode !== "100755") throw invalidArgument(`${field}.mode: expected "100644" or "100755"`);
    if (text !== null && (typeof text !== "string" || text.length > MAX_FILE_BYTES)) throw invalidArgument(`${field}.content: expected a string of at most ${MAX_FILE_BYTES} characters`);
    if (base64 !== null && (typeof base64 !== "string" || base64.length > Math.ceil(MAX_FILE_BYTES / 3) * 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64.replace(/\s+/g, "")))) throw invalidArgument(`${field}.contentBase64: expected standard base64 of at most ${MAX_FILE_BYTES} bytes`);
    return { path, mode, remove, content: remove ? null : text !== null ? (text as string) : (base64 as string).replace(/\s+/g, ""), encoding: text !== null ? "utf-8" : "base64" };
  });
}

/**
 * Commits file changes to a branch in one commit (blobs, tree, commit, then a fast-forward
 * of the branch; never a force update). Throws `branch_moved` when the branch head is not
 * `expectedHeadSha`, before or during the commit.
 * @param repository `{owner, name}`.
 * @param branch Existing branch to commit to.
 * @param input Message, file changes and the expected head SHA.
 * @returns The new commit.
 * @capability github.com/commits.create { owner: string, repo: string, branch: string, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function commitFiles(repository: RepositoryRef, branch: string, input: CommitFilesInput): CommitResult {
  const { owner, repo } = repositoryArg(repository);
  const name = branchName(branch);
  const i = optionsArg(input, "input");
  const message = requiredString(i.message, "input.message");
  const expected = shaArg(i.expectedHeadSha, "input.expectedHeadSha");
  const changes = fileChanges(i.files);
  check("github.com/commits.create", { owner, repo, branch: name, path: null, ref: null, treeSha: null, head: null, base: null });
  const base = repoPath({ owner, repo });
  const refAnswer = apiList(`${base}/git/ref/heads/${encodePath(name)}`, "commitFiles (read branch)");
  const head = N.object(N.object(refAnswer.data, "commitFiles").object, "commitFiles").sha;
  if (typeof head !== "string") throw new GitHubError("invalid_response", "GitHub commitFiles: the branch answer lacks object.sha", refAnswer.response.status);
  if (head.toLowerCase() !== expected) throw new GitHubError("branch_moved", `branch ${name} is at ${head}, not the expected ${expected}; read the branch again, rebase your change and retry`);
  const parent = N.object(apiList(`${base}/git/commits/${head}`, "commitFiles (read head commit)").data, "commitFiles");
  const baseTree = N.object(parent.tree, "commitFiles").sha;
  if (typeof baseTree !== "string") throw new GitHubError("invalid_response", "GitHub commitFiles: the head commit lacks tree.sha");
  const entries = changes.map((c) => {
    if (c.remove) return { path: c.path, mode: c.mode, type: "blob", sha: null };
    const blob = N.object(apiPost(`${base}/git/blobs`, { content: c.content, encoding: c.encoding }, "commitFiles (create blob)").data, "commitFiles");
    if (typeof blob.sha !== "string") throw new GitHubError("invalid_response", "GitHub commitFiles: the blob answer lacks sha");
    return { path: c.path, mode: c.mode, type: "blob", sha: blob.sha };
  });
  const treeAnswer = N.object(apiPost(`${base}/git/trees`, { base_tree: baseTree, tree: entries }, "commitFiles (create tree)").data, "commitFiles");
  if (typeof treeAnswer.sha !== "string") throw new GitHubError("invalid_response", "GitHub commitFiles: the tree answer lacks sha");
  const created = N.object(apiPost(`${base}/git/commits`, { message, tree: treeAnswer.sha, parents: [head] }, "commitFiles (create commit)").data, "commitFiles");
  if (typeof created.sha !== "string") throw new GitHubError("invalid_response", "GitHub commitFiles: the commit answer lacks sha");
  let updated: Answer;
  try {
    updated = apiPatch(`${base}/git/refs/heads/${encodePath(name)}`, { sha: created.sha, force: false }, "commitFiles (update branch)");
  } catch (error) {
    // 422 "Update is not a fast forward": someone pushed after our read.
    if (error instanceof GitHubError && error.status === 422) throw new GitHubError("branch_moved", `branch ${name} moved while committing (the update was not a fast-forward); read the branch again and retry`, 422, { requestId: error.requestId, documentationUrl: error.documentationUrl, errors: error.errors });
    throw error;
  }
  void updated;
  return { sha: created.sha, treeSha: treeAnswer.sha, branch: name, parentSha: head, htmlUrl: typeof created.html_url === "string" ? created.html_url : null };
}

/**
 * The repository's releases (newest first).
 * @param repository `{owner, name}`.
 * @param options Paging.
 * @returns One page of releases.
 * @capability github.com/releases.list { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function listReleases(repository: RepositoryRef, options?: ListOptions | null): Page<Release> {
  const { owner, repo } = repositoryArg(repository);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/releases.list", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  return listPage(apiList(`${repoPath({ owner, repo })}/releases?${pageQuery(perPage, page)}`, "listReleases"), page, perPage, "listReleases", N.release);
}

/**
 * The latest published (non-draft, non-prerelease) release; null when there is none.
 * @param repository `{owner, name}`.
 * @returns The release, or null.
 * @capability github.com/releases.getLatest { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function getLatestRelease(repository: RepositoryRef): Release | null {
  const { owner, repo } = repositoryArg(repository);
  check("github.com/releases.getLatest", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  const answer = apiGet(`${repoPath({ owner, repo })}/releases/latest`, "getLatestRelease", { nullOn: [404] });
  return answer ? N.release(answer.data, "getLatestRelease") : null;
}

/** Options of the content reads. */
export interface RefOptions {
  /** Branch, tag or commit SHA (default: the default branch). */
  ref?: string | null;
}

/**
 * The file's metadata and base64 bytes; null on 404. The contents API's object media type
 * answers for files up to 100 MB (the default type refuses files over 1 MB) but leaves the
 * content out above 1 MB; the blob API then returns it.
 */
function fetchFile(base: string, path: string, ref: string | null, what: string): FileContent | null {
  const query = ref === null ? "" : `?ref=${encodeURIComponent(ref)}`;
  const answer = apiGet(`${base}/contents/${encodePath(path)}${query}`, what, { nullOn: [404], accept: "application/vnd.github.object+json" });
  if (!answer) return null;
  if (Array.isArray(answer.data)) throw new GitHubError("not_a_file", `${path} is a directory; use listDirectory`);
  const file = N.object(answer.data, what);
  if (file.type !== "file") throw new GitHubError("not_a_file", `${path} is a ${String(file.type)}, not a file${file.type === "dir" ? "; use listDirectory" : ""}`);
  const size = typeof file.size === "number" ? file.size : 0;
  const blobSha = typeof file.sha === "string" ? file.sha : "";
  if (size > MAX_FILE_BYTES) throw new GitHubError("too_large", `${path} has ${size} bytes; files over ${MAX_FILE_BYTES} bytes (10 MiB) are not read`);
  let content = typeof file.content === "string" && file.encoding === "base64" ? file.content.replace(/\s+/g, "") : "";
  if (content === "" && size > 0) {
    // Files over 1 MB come without content; the blob API returns them base64-encoded.
    if (!/^[0-9a-f]{40,64}$/.test(blobSha)) throw new GitHubError("invalid_response", `GitHub ${what}: the file answer lacks a blob sha`);
    const blob = N.object(apiList(`${base}/git/blobs/${blobSha}`, what).data, what);
    if (typeof blob.content !== "string" || blob.encoding !== "base64") throw new GitHubError("invalid_response", `GitHub ${what}: the blob answer lacks base64 content`);
    content = blob.content.replace(/\s+/g, "");
  }
  return { path, sha: blobSha, size, contentBase64: content };
}

/**
 * A file's bytes (base64), at most 10 MiB; null when the file does not exist.
 * @param repository `{owner, name}`.
 * @param path File path inside the repository.
 * @param options `ref` to read at.
 * @returns The file, or null.
 * @capability github.com/contents.readFile { owner: string, repo: string, branch: null, path: string, ref: string, treeSha: null, head: null, base: null }
 */
export function readFile(repository: RepositoryRef, path: string, options?: RefOptions | null): FileContent | null {
  const { owner, repo } = repositoryArg(repository);
  const file = filePath(path);
  const o = optionsArg(options);
  const ref = o.ref == null ? null : refName(o.ref, "options.ref");
  check("github.com/contents.readFile", { owner, repo, branch: null, path: file, ref, treeSha: null, head: null, base: null });
  return fetchFile(repoPath({ owner, repo }), file, ref, "readFile");
}

/**
 * A text file's content decoded as UTF-8, at most 10 MiB; null when the file does not exist.
 * Throws `not_text` for content that is not valid UTF-8 (use readFile for binary files).
 * @param repository `{owner, name}`.
 * @param path File path inside the repository.
 * @param options `ref` to read at.
 * @returns The text, or null.
 * @capability github.com/contents.readTextFile { owner: string, repo: string, branch: null, path: string, ref: string, treeSha: null, head: null, base: null }
 */
export function readTextFile(repository: RepositoryRef, path: string, options?: RefOptions | null): string | null {
  const { owner, repo } = repositoryArg(repository);
  const file = filePath(path);
  const o = optionsArg(options);
  const ref = o.ref == null ? null : refName(o.ref, "options.ref");
  check("github.com/contents.readTextFile", { owner, repo, branch: null, path: file, ref, treeSha: null, head: null, base: null });
  const found = fetchFile(repoPath({ owner, repo }), file, ref, "readTextFile");
  if (found === null) return null;
  const bytes = base64ToBytes(found.contentBase64);
  if (bytes === null) throw new GitHubError("invalid_response", "GitHub readTextFile: the content is not valid base64");
  const text = utf8OrNull(bytes);
  if (text === null) throw new GitHubError("not_text", `${file} is not UTF-8 text; use readFile for its bytes`);
  return text;
}

/**
 * The entries of a directory (at most 1,000); null when the directory does not exist.
 * @param repository `{owner, name}`.
 * @param path Directory path; "" for the repository root.
 * @param options `ref` to read at.
 * @returns The entries, or null.
 * @capability github.com/contents.listDirectory { owner: string, repo: string, branch: null, path: string, ref: string, treeSha: null, head: null, base: null }
 */
export function listDirectory(repository: RepositoryRef, path?: string | null, options?: RefOptions | null): DirectoryEntry[] | null {
  const { owner, repo } = repositoryArg(repository);
  const dir = filePath(path ?? "", "path", true);
  const o = optionsArg(options);
  const ref = o.ref == null ? null : refName(o.ref, "options.ref");
  check("github.com/contents.listDirectory", { owner, repo, branch: null, path: dir, ref, treeSha: null, head: null, base: null });
  const query = ref === null ? "" : `?ref=${encodeURIComponent(ref)}`;
  const answer = apiGet(`${repoPath({ owner, repo })}/contents${dir === "" ? "" : "/" + encodePath(dir)}${query}`, "listDirectory", { nullOn: [404] });
  if (!answer) return null;
  if (!Array.isArray(answer.data)) throw new GitHubError("not_a_directory", `${dir} is a file; use readTextFile or readFile`);
  return answer.data.map((e) => N.directoryEntry(e, "listDirectory"));
}

/** Options of getTree. */
export interface TreeOptions {
  /** List every entry below the tree, not only its direct children. */
  recursive?: boolean | null;
}

/**
 * A git tree (by tree SHA, commit SHA or branch name); null when it does not exist.
 * @param repository `{owner, name}`.
 * @param treeSha Tree or commit SHA, or a branch or tag name.
 * @param options `recursive` listing.
 * @returns The tree, or null.
 * @capability github.com/trees.get { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: string, head: null, base: null }
 */
export function getTree(repository: RepositoryRef, treeSha: string, options?: TreeOptions | null): Tree | null {
  const { owner, repo } = repositoryArg(repository);
  const target = refName(treeSha, "treeSha");
  const o = optionsArg(options);
  const recursive = o.recursive ?? false;
  if (typeof recursive !== "boolean") throw invalidArgument("options.recursive: expected true or false");
  check("github.com/trees.get", { owner, repo, branch: null, path: null, ref: null, treeSha: target, head: null, base: null });
  const answer = apiGet(`${repoPath({ owner, repo })}/git/trees/${encodePath(target)}${recursive ? "?recursive=1" : ""}`, "getTree", { nullOn: [404, 422] });
  return answer ? N.tree(answer.data, "getTree") : null;
}

/**
 * The repository's labels.
 * @param repository `{owner, name}`.
 * @param options Paging.
 * @returns One page of labels.
 * @capability github.com/labels.list { owner: string, repo: string, branch: null, path: null, ref: null, treeSha: null, head: null, base: null }
 */
export function listLabels(repository: RepositoryRef, options?: ListOptions | null): Page<Label> {
  const { owner, repo } = repositoryArg(repository);
  const { perPage, page } = pagePosition(optionsArg(options));
  check("github.com/labels.list", { owner, repo, branch: null, path: null, ref: null, treeSha: null, head: null, base: null });
  return listPage(apiList(`${repoPath({ owner, repo })}/labels?${pageQuery(perPage, page)}`, "listLabels"), page, perPage, "listLabels", N.label);
}
