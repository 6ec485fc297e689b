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

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

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

/** A host path found by the walk, with the real path of the place's root it must stay beneath. */
export interface Located {
  hostPath: string;
  /** fs.realpathSync of the place's root. */
  root: string;
}

// Linux names what a descriptor really opened: a directory swapped for a link between the
// walk and the open is caught there, before a byte is read or written.
const openedPaths = fs.existsSync('/proc/self/fd');

function leftTheArea(): FileAreaError {
  return new FileAreaError('the path changed into a symbolic link while it was being opened; file operations never follow links');
}

/** Closes and refuses a descriptor that was opened outside `at.root`; `created` files are removed again. */
function checkOpened(fd: number, at: Located, created: boolean): void {
  if (!openedPaths) return;
  let real: string;
  try {
    real = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return;
  }
  if (real === at.root || real.startsWith(at.root.endsWith(path.sep) ? at.root : at.root + path.sep)) return;
  fs.closeSync(fd);
  if (created) fs.rmSync(real, { force: true });
  throw leftTheArea();
}

/** Opens for writing without following a link: the existing file, else a new one created exclusively. */
function openForWrite(at: Located, flags: number, mode: number): number {
  let fd: number;
  let created = false;
  try {
    fd = fs.openSync(at.hostPath, O_WRONLY | O_NOFOLLOW | flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fd = fs.openSync(at.hostPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | flags, mode);
    created = true;
  }
  checkOpened(fd, at, created);
  return fd;
}

/** A read descriptor opened without following a link, checked to lie beneath the root (the caller closes it). */
export function openReadNoFollow(at: Located): number {
  const fd = fs.openSync(at.hostPath, O_RDONLY | O_NOFOLLOW);
  checkOpened(fd, at, false);
  return fd;
}

/** A whole file, opened without following a link; EISDIR for a directory. */
export function readNoFollow(at: Located): Buffer {
  const fd = openReadNoFollow(at);
  try {
    if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Appends, creating the file if missing; a link at the path is refused (ELOOP), never followed. */
export function appendNoFollow(at: Located, content: Uint8Array): void {
  const fd = openForWrite(at, O_APPEND, 0o600);
  try {
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates or replaces a file's content in place; a link at the path is refused (ELOOP), never followed. */
export function writeNoFollow(at: Located, content: Uint8Array | string, mode = 0o600): void {
  const fd = openForWrite(at, 0, mode);
  try {
    // Truncated only once the descriptor is known to be inside the area.
    fs.ftruncateSync(fd, 0);
    fs.writeFileSync(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
  } finally {
    fs.closeSync(fd);
  }
}

/** A write descriptor of a new file (O_CREAT|O_EXCL: fails on anything already there, a dangling link included), checked like every open. */
export function openExclusive(at: Located, mode = 0o600): number {
  const fd = fs.openSync(at.hostPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  checkOpened(fd, at, true);
  return fd;
}

/** Creates a new file with `content` (see openExclusive). */
export function createExclusive(at: Located, content: Uint8Array, mode = 0o600): void {
  const fd = openExclusive(at, mode);
  try {
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

// Asynchronous reads and writes on a checked descriptor: a file of tens of MB moves in
// chunks on libuv's thread pool, never in one system call on the server's event loop.
const CHUNK = 4 * 1024 * 1024;

function readAt(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buffer, offset, length, position, (error, read) => (error ? reject(error) : resolve(read))));
}

function writeAt(fd: number, buffer: Uint8Array, offset: number, length: number): Promise<number> {
  return new Promise((resolve, reject) => fs.write(fd, buffer, offset, length, null, (error, written) => (error ? reject(error) : resolve(written))));
}

/** Reads a descriptor's whole content (its size now), chunk by chunk, asynchronously. */
export async function readFdAsync(fd: number, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size);
  let at = 0;
  while (at < size) {
    const read = await readAt(fd, buffer, at, Math.min(CHUNK, size - at), at);
    if (read === 0) break; // shrank meanwhile
    at += read;
  }
  return at === size ? buffer : buffer.subarray(0, at);
}

/** Writes all of `content` at the descriptor's position, chunk by chunk, asynchronously. */
export async function writeFdAsync(fd: number, content: Uint8Array): Promise<void> {
  for (let at = 0; at < content.length; ) at += await writeAt(fd, content, at, Math.min(CHUNK, content.length - at));
}

/** appendNoFollow with the bytes written asynchronously. */
export async function appendNoFollowAsync(at: Located, content: Uint8Array): Promise<void> {
  const fd = openForWrite(at, O_APPEND, 0o600);
  try {
    await writeFdAsync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/** createExclusive with the bytes written asynchronously; a file left half-written (a full disk) is removed. */
export async function createExclusiveAsync(at: Located, content: Uint8Array, mode = 0o600): Promise<void> {
  const fd = openExclusive(at, mode);
  try {
    await writeFdAsync(fd, content);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(at.hostPath, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}
