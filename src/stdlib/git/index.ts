// `svc:git`: repositories in the file area, importable only when the Blueprint has a
// `git:` block. The guest side is the `Repository` class over the host operations.
import type { HostModule } from '../types';
import { gitOperations } from './operations';

export type { GitServices } from './operations';

// Trusted guest code: it runs on the primordials `P` only (see src/stdlib/types.ts).
const guest = `function (call, P) {
  class Repository {
    #path;
    constructor(path, opened) { this.#path = opened ? path : call("open", path); }
    static open(path) { return new Repository(path); }
    static init(path, options) { return new Repository(call("init", path, options ?? null), true); }
    static clone(url, path, options) { return new Repository(call("clone", url, path, options ?? null), true); }
    get path() { return this.#path; }
    status() { return call("status", this.#path); }
    log(options) { return call("log", this.#path, options ?? null); }
    diff(options) { return call("diff", this.#path, options ?? null); }
    show(ref, path) { return call("show", this.#path, ref, path); }
    branches() { return call("branches", this.#path); }
    remotes() { return call("remotes", this.#path); }
    add(paths) { call("add", this.#path, paths); }
    commit(message) { return call("commit", this.#path, message); }
    createBranch(name, start) { call("createBranch", this.#path, name, start ?? null); }
    switchBranch(name) { call("switchBranch", this.#path, name); }
    addRemote(name, url) { call("addRemote", this.#path, name, url); }
    setRemoteUrl(name, url) { call("setRemoteUrl", this.#path, name, url); }
    fetch(remote, branch) { return call("fetch", this.#path, remote ?? null, branch ?? null); }
    pull(remote, branch) { return call("pull", this.#path, remote ?? null, branch ?? null); }
  }
  P.ObjectFreeze(Repository.prototype);
  P.ObjectFreeze(Repository);
  return { Repository };
}`;

export const gitModule: HostModule = {
  name: 'svc:git',
  description: 'Git repositories in the file area: init, clone, status, diff, commit, branches, fetch, pull',
  declarations: `declare module "svc:git" {
  export interface StatusEntry { path: string; staged: "" | "added" | "modified" | "deleted"; unstaged: "" | "added" | "modified" | "deleted"; untracked: boolean; }
  export interface CommitInfo { id: string; message: string; authorName: string; authorEmail: string; }
  /**
   * A repository's symbolic links are checked out as plain files holding the link's
   * target text (git's core.symlinks=false); commits made in the clone record those paths
   * as plain files.
   * A link already in the working tree is read as its target text (diff, add), never
   * followed. Working-tree writes obey read-only volumes and size limits.
   */
  export class Repository {
    /** Open an existing repository (Error if path is not a repository root). */
    constructor(path: string);
    static open(path: string): Repository;
    static init(path: string, options?: { branch?: string }): Repository;
    static clone(url: string, path: string, options?: { branch?: string; depth?: number }): Repository;
    readonly path: string;
    status(): { entries: StatusEntry[]; clean: boolean; branch?: string };
    log(options?: { limit?: number; offset?: number }): { commits: CommitInfo[]; nextOffset?: number };
    diff(options?: { mode?: "unstaged" | "staged" | "commits"; from?: string; to?: string }): { patch: string; binaryPaths: string[] };
    show(ref: string, path: string): Uint8Array;
    branches(): { name: string; id: string; current: boolean }[];
    remotes(): { name: string; url: string }[];
    add(paths: string[]): void;
    commit(message: string): string;
    createBranch(name: string, start?: string): void;
    switchBranch(name: string): void;
    addRemote(name: string, url: string): void;
    setRemoteUrl(name: string, url: string): void;
    fetch(remote?: string, branch?: string): { branches: string[] };
    /** Fast-forward only. */
    pull(remote?: string, branch?: string): { previous: string; current: string };
  }
}
`,
  operations: gitOperations,
  guest,
  // The run gets git services only when its Blueprint has a git block.
  availableFor: (services) => services.git !== undefined,
};
