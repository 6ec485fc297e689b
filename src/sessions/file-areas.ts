// Per-session directories (`vfs_session_dir/<session_id>/`) as the session lifecycle sees
// them: prepare at open, check at boot, remove at the end, list for the orphan sweep.
// src/vfs owns what happens inside them; this is the narrow part sessions need.
import fs from 'node:fs';
import path from 'node:path';

export interface SessionFileAreas {
  /** Creates the session's directory (mode `per_session` only). */
  prepare(sessionId: string): void;
  exists(sessionId: string): boolean;
  /** Deletes the directory and everything below; a missing directory is fine. */
  remove(sessionId: string): void;
  /** Names of every per-session directory present. */
  list(): string[];
}

/** The plain directory layout: one directory per session id under the root. */
export class SessionDirectories implements SessionFileAreas {
  constructor(private readonly root: string) {}

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

  remove(sessionId: string): void {
    fs.rmSync(this.directoryOf(sessionId), { recursive: true, force: true });
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
