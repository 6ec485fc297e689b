// Per-session directories (`vfs_session_dir/<session_id>/`) as the session lifecycle sees
// them: prepare at open, check at boot, remove at the end, list for the orphan sweep.
// src/vfs owns what happens inside them; this is the narrow part sessions need.
import fs from 'node:fs';
import path from 'node:path';
import { removeTree } from '../vfs';

export interface SessionFileAreas {
  /** Creates the session's directory (mode `per_session` only). */
  prepare(sessionId: string): void;
  exists(sessionId: string): boolean;
  /**
   * Deletes the directory and everything below; a missing directory is fine. The directory
   * leaves its place at once; its contents go asynchronously (the promise), off the event loop.
   */
  remove(sessionId: string): Promise<void>;
  /** Finishes removals an earlier server left unfinished (at boot). */
  sweepRemovals(): Promise<void>;
  /** Names of every per-session directory present. */
  list(): string[];
}

/** The plain directory layout: one directory per session id under the root. */
export class SessionDirectories implements SessionFileAreas {
  /** Where a deleted session's directory waits while its contents are removed: beside the root, so listings never see it. */
  private readonly removing: string;

  constructor(private readonly root: string) {
    this.removing = path.join(path.dirname(root), `.removing-${path.basename(root)}`);
  }

  private directoryOf(sessionId: string): string {
    // Ids come from our records or the directory listing; never let one reach outside.
    if (sessionId === '' || sessionId.includes('/') || sessionId.includes('\\') || sessionId === '.' || sessionId === '..') {
      throw new Error('not a session directory name');
    }
    return path.join(this.root, sessionId);
  }

  prepare(sessionId: string): void {
    fs.mkdirSync(this.directoryOf(sessionId), { recursive: true, mode: 0o700 });
  }

  exists(sessionId: string): boolean {
    try {
      return fs.statSync(this.directoryOf(sessionId)).isDirectory();
    } catch {
      return false;
    }
  }

  remove(sessionId: string): Promise<void> {
    const dir = this.directoryOf(sessionId);
    if (!fs.existsSync(dir)) return Promise.resolve();
    // One rename takes the directory out of the session's place; a tree of any size then
    // goes step by step (src/vfs/remove-tree.ts).
    let aside = dir;
    try {
      fs.mkdirSync(this.removing, { recursive: true, mode: 0o700 });
      aside = path.join(this.removing, `${sessionId}-${Date.now().toString(36)}`);
      fs.renameSync(dir, aside);
    } catch {
      aside = dir; // another file system: removed where it is
    }
    return removeTree(aside);
  }

  async sweepRemovals(): Promise<void> {
    let names: string[];
    try {
      names = fs.readdirSync(this.removing);
    } catch {
      return;
    }
    for (const name of names) await removeTree(path.join(this.removing, name));
  }

  list(): string[] {
    if (!fs.existsSync(this.root)) return [];
    return fs
      .readdirSync(this.root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  }
}
