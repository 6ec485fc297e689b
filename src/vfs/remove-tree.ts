// Removing a directory tree of any size or depth without holding the event loop: every
// step is one asynchronous system call (libuv's thread pool), files go in small parallel
// batches, and nothing recurses. Before a directory is emptied its subdirectories are
// renamed up to the top of the tree, so no path handed to the kernel is longer than the
// top's own plus two names: a tree deeper than PATH_MAX (left by an older server) still goes.
import fs from 'node:fs/promises';
import path from 'node:path';

/** Files unlinked at once. */
const BATCH = 64;

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

/** Removes `top` and everything below it; a missing `top` is fine. Links are removed, never followed. */
export async function removeTree(top: string): Promise<void> {
  let stat;
  try {
    stat = await fs.lstat(top);
  } catch (error) {
    return ignoreMissing(error);
  }
  if (!stat.isDirectory()) return fs.unlink(top).catch(ignoreMissing);
  let lifted = 0;
  const prefix = `.svc-removing-${Math.random().toString(36).slice(2)}-`;
  // Directories still to empty, each directly below `top` (or `top` itself).
  const pending: string[] = [top];
  const emptied: string[] = [];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      ignoreMissing(error);
      continue;
    }
    const files: string[] = [];
    for (const entry of entries) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        const up = path.join(top, `${prefix}${lifted++}`);
        await fs.rename(at, up).catch(ignoreMissing);
        pending.push(up);
      } else files.push(at);
    }
    for (let i = 0; i < files.length; i += BATCH) await Promise.all(files.slice(i, i + BATCH).map((file) => fs.unlink(file).catch(ignoreMissing)));
    emptied.push(dir);
  }
  // Children were lifted into `top`, so every directory but `top` is empty now; `top` last.
  for (const dir of emptied.reverse()) await fs.rmdir(dir).catch(ignoreMissing);
}
