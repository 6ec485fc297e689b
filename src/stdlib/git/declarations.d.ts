declare module "svc:git" {
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
