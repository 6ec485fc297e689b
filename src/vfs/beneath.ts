// The one way host code reaches a path inside a file area: walk from the place's root one
// component at a time with lstat and never pass through a symbolic link; open files with
// O_NOFOLLOW and create them with O_EXCL, so a link (dangling or not) met at the last
// step is refused instead of followed. svc never follows a link in a file area, wherever
// it points: what an operation touches is exactly the path the policy judged.
import fs from 'node:fs';
import path from 'node:path';

export class FileAreaError extends Error {}

/** What the last component may be: refused when a link, or a link taken as itself (never followed). */
export type FinalLink = 'refuse' | 'itself';

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_TRUNC, O_NOFOLLOW } = fs.constants;

export function linkRefused(guestPath: string): FileAreaError {
  return new FileAreaError(`${guestPath} is a symbolic link; file operations never follow links`);
}

/**
 * The host path of `components` beneath `root`, with no symbolic link on the way. Existing
 * components are looked at with lstat (one call each); from the first missing one on the
 * rest is joined as is: whatever creates it makes real directories and files, never
 * links. `guestOf(i)` names the path up to component i for the error.
 */
export function beneath(root: string, components: readonly string[], guestOf: (i: number) => string, finalLink: FinalLink = 'refuse'): string {
  components.forEach((name, i) => {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) throw new FileAreaError(`${guestOf(i)}: not a plain path component`);
  });
  let current = root;
  for (let i = 0; i < components.length; i++) {
    current = path.join(current, components[i]);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(current, { throwIfNoEntry: false });
    } catch {
      stat = undefined; // ENOTDIR and friends: the operation itself reports it
    }
    if (!stat) return path.join(current, ...components.slice(i + 1));
    if (stat.isSymbolicLink() && !(finalLink === 'itself' && i === components.length - 1)) throw linkRefused(guestOf(i));
    if (!stat.isDirectory()) return path.join(current, ...components.slice(i + 1));
  }
  return current;
}

/** A whole file, opened without following a link; EISDIR for a directory. */
export function readNoFollow(hostPath: string): Buffer {
  const fd = fs.openSync(hostPath, O_RDONLY | O_NOFOLLOW);
  try {
    if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A read descriptor opened without following a link (the caller closes it). */
export function openReadNoFollow(hostPath: string): number {
  return fs.openSync(hostPath, O_RDONLY | O_NOFOLLOW);
}

/** Appends, creating the file if missing; a link at the path is refused (ELOOP), never followed. */
export function appendNoFollow(hostPath: string, content: Uint8Array): void {
  const fd = fs.openSync(hostPath, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates or truncates a file; a link at the path is refused (ELOOP), never followed. */
export function writeNoFollow(hostPath: string, content: Uint8Array | string, mode = 0o600): void {
  const fd = fs.openSync(hostPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode);
  try {
    fs.writeSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates a new file (O_CREAT|O_EXCL: fails on anything already there, a dangling link included). */
export function createExclusive(hostPath: string, content: Uint8Array, mode = 0o600): void {
  fs.writeFileSync(hostPath, content, { mode, flag: 'wx' });
}
