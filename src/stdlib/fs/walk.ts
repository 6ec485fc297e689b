// The one directory walker of the file area: `fs.list` and `svc:code`'s search, glob and
// tree. Siblings come in byte order, depth first; atomic-write temporaries never appear.
import fs from 'node:fs';
import path from 'node:path';
import { TEMPORARY_PREFIX } from './area';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkedEntry {
  name: string;
  guestPath: string;
  hostPath: string;
  kind: EntryKind;
  /** 1 for the entries directly under the walk's root. */
  depth: number;
  size: number;
  modifiedAt: number;
}

export interface WalkOptions {
  /** Deepest level reported (1: the root's own entries only). */
  maxDepth: number;
  /** Skip names starting with a dot (and everything under them). */
  skipHidden?: boolean;
  /** An unreadable root throws (a listing) instead of walking nothing (a search). */
  rootMustExist?: boolean;
  /** Stop descending once this many entries were found. */
  stopAfter?: number;
}

export function kindOf(stat: fs.Stats): EntryKind {
  return stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : 'other';
}

export function walkTree(hostRoot: string, guestRoot: string, options: WalkOptions): WalkedEntry[] {
  const out: WalkedEntry[] = [];
  const stopAfter = options.stopAfter ?? Number.POSITIVE_INFINITY;
  const visit = (hostDir: string, guestDir: string, depth: number) => {
    if (depth > options.maxDepth || out.length > stopAfter) return;
    let names: string[];
    try {
      names = fs.readdirSync(hostDir).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    } catch (error) {
      if (depth === 1 && options.rootMustExist) throw error;
      return; // a walk skips unreadable directories
    }
    for (const name of names) {
      if (name.startsWith(TEMPORARY_PREFIX) || (options.skipHidden && name.startsWith('.'))) continue;
      const hostPath = path.join(hostDir, name);
      const guestPath = guestDir === '/' ? `/${name}` : `${guestDir}/${name}`;
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(hostPath);
      } catch {
        continue;
      }
      const kind = kindOf(stat);
      out.push({ name, guestPath, hostPath, kind, depth, size: kind === 'file' ? stat.size : 0, modifiedAt: Math.floor(stat.mtimeMs) });
      if (kind === 'directory') visit(hostPath, guestPath, depth + 1);
    }
  };
  visit(hostRoot, guestRoot, 1);
  return out;
}
