// A node-style promise file system confined to one place of a file area, for libraries
// that compose host paths themselves (isomorphic-git). Every call resolves its path with
// the area's walk (no component a symbolic link, never above the place's root); reads
// and writes open with O_NOFOLLOW; `symlink` writes a plain file holding the link's
// target text (git's core.symlinks=false), so a checkout never creates a link.
import fs from 'node:fs';
import type { FileArea, Place } from './file-area';
import { createExclusive, FileAreaError, readNoFollow, writeNoFollow } from './beneath';

type Encoding = BufferEncoding | { encoding?: BufferEncoding | null; mode?: number } | undefined;

function encodingOf(options: Encoding): BufferEncoding | null {
  if (typeof options === 'string') return options;
  return options?.encoding ?? null;
}

export interface PlaceFs {
  readFile(path: string, options?: Encoding): Promise<Buffer | string>;
  writeFile(path: string, data: Uint8Array | string, options?: Encoding): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void>;
  rmdir(path: string): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  unlink(path: string): Promise<void>;
  stat(path: string): Promise<fs.Stats>;
  lstat(path: string): Promise<fs.Stats>;
  readdir(path: string): Promise<string[]>;
  readlink(path: string, options?: Encoding): Promise<Buffer | string>;
  symlink(target: string, path: string): Promise<void>;
}

/** The place's file system as isomorphic-git (or any node-style caller) uses it. */
export function placeFs(files: FileArea, place: Place): PlaceFs {
  const located = (p: string) => files.resolveHost(place, p);
  const at = (p: string) => located(p).hostPath;
  const itself = (p: string) => files.resolveHost(place, p, 'itself').hostPath;
  const statItself = (p: string) => {
    let hostPath: string;
    try {
      hostPath = itself(p);
    } catch (error) {
      if (error instanceof FileAreaError) throw Object.assign(new Error(error.message), { code: 'ENOENT' });
      throw error;
    }
    return fs.lstatSync(hostPath);
  };
  return {
    async readFile(p, options) {
      const content = readNoFollow(located(p));
      const encoding = encodingOf(options);
      return encoding ? content.toString(encoding) : content;
    },
    async writeFile(p, data, options) {
      const mode = typeof options === 'object' && options?.mode ? options.mode : 0o644;
      writeNoFollow(located(p), data, mode);
    },
    async mkdir(p, options) {
      fs.mkdirSync(at(p), { recursive: options?.recursive ?? false });
    },
    async rmdir(p) {
      fs.rmdirSync(itself(p));
    },
    async rm(p, options) {
      // fs.rm removes a link itself and never descends through one.
      fs.rmSync(itself(p), { recursive: options?.recursive ?? false, force: options?.force ?? false });
    },
    async unlink(p) {
      fs.unlinkSync(itself(p));
    },
    // Links are never followed here: stat answers like lstat, and a path beyond a link
    // does not exist (as git says of paths "beyond a symbolic link").
    async stat(p) {
      return statItself(p);
    },
    async lstat(p) {
      return statItself(p);
    },
    async readdir(p) {
      return fs.readdirSync(at(p));
    },
    async readlink(p, options) {
      const target = fs.readlinkSync(itself(p), { encoding: 'buffer' });
      const encoding = encodingOf(options);
      return encoding && encoding !== ('buffer' as BufferEncoding) ? target.toString(encoding) : target;
    },
    async symlink(target, p) {
      createExclusive(located(p), Buffer.from(target, 'utf8'), 0o644);
    },
  };
}
