// Host side of `svc:fs`, the operation table: every operation validates its arguments,
// asks the policy (`fs.*` with the path context), checks read-only places and size
// limits, then works on the run's file area. Messages name guest paths only.
import fs from 'node:fs';
import path from 'node:path';
import { appendNoFollowAsync, FileAreaError, linkRefused, MAX_PATH_DEPTH, openReadNoFollow, readFdAsync, removeTree, type FileArea } from '../../vfs';
import { TextBytes } from '../../../sandbox';
import { HOST_FUEL } from '../fuel';
import { gated, ungated, type HostCall, type HostOperation, type RunContext } from '../types';
import { allowedPath, area, atomicWriteAsync, copyTree, existingSize, hostWork, hostWorkAsync, MAX_READ_SIZE, requireRoom, requireWritable } from './area';
import { decodeText, describeEncoding } from './encoding';
import { kindOf, walkTree } from './walk';

/** How many directory levels a recursive listing descends below the listed one. */
const MAX_LIST_DEPTH = 32;

function pathArg(value: unknown, fn: string, name = 'path'): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`fs.${fn}: ${name} must be a non-empty string`);
  return value;
}

function boolArg(value: unknown, fn: string, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new TypeError(`fs.${fn}: ${name} must be a boolean`);
  return value;
}

/** A string's UTF-8 bytes; a long one arrives as them already (TextBytes: textAsBytes below). */
function contentArg(value: unknown, fn: string): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value instanceof TextBytes) return Buffer.from(value.bytes.buffer, value.bytes.byteOffset, value.bytes.byteLength);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`fs.${fn}: content must be a string or a Uint8Array`);
}

function writeOperation(fn: string, mode: 'replace' | 'append'): HostOperation {
  return gated({
    textAsBytes: true,
    parse: (args, run) => {
      const files = area(run, fn);
      const raw = pathArg(args[0], fn);
      if (fn.endsWith('Text') && typeof args[1] !== 'string' && !(args[1] instanceof TextBytes)) throw new TypeError(`fs.${fn}: content must be a string`);
      return { files, raw, content: contentArg(args[1], fn) };
    },
    gate: ({ raw, content }) => ({ capability: 'fs.write', context: { path: raw, length: content.length } }),
    run: (call, { files, content }, allowed) => {
      const target = allowedPath(allowed);
      const context = allowed[0].context;
      return hostWorkAsync(fn, target, async () => {
        if (files.isMountPoint(target)) throw new Error(`fs.${fn} ${target}: a mount point or / cannot be written`);
        const resolved = files.resolve(target);
        requireWritable(call, resolved.place, 'fs.write', context, target);
        const replacing = mode === 'replace' ? existingSize(resolved.hostPath) : 0;
        await requireRoom(call, files, resolved.place, fn, target, content.length, replacing, context);
        call.charge(HOST_FUEL.SYSCALL + content.length / 4);
        if (mode === 'replace') await atomicWriteAsync(resolved, content);
        else await appendNoFollowAsync(resolved, content);
        files.recordWrite(resolved.place, content.length - replacing);
        return undefined;
      });
    },
  });
}

/** Runs `work` on a descriptor of the file at `target`, opened without following a link; a directory is EISDIR. */
function withFile<T>(files: FileArea, target: string, work: (fd: number, stat: fs.Stats) => T): T {
  const fd = openReadNoFollow(files.resolve(target));
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    return work(fd, stat);
  } finally {
    fs.closeSync(fd);
  }
}

/** withFile for asynchronous work on the descriptor (closed when the work settles). */
async function withFileAsync<T>(files: FileArea, target: string, work: (fd: number, stat: fs.Stats) => Promise<T>): Promise<T> {
  const fd = openReadNoFollow(files.resolve(target));
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    return await work(fd, stat);
  } finally {
    fs.closeSync(fd);
  }
}

/** A whole file (null past MAX_READ_SIZE), read in chunks off the event loop. */
function readWhole(call: HostCall, files: FileArea, fn: string, target: string): Promise<Buffer | null> {
  return hostWorkAsync(fn, target, () =>
    withFileAsync(files, target, async (fd, stat) => {
      if (stat.size > MAX_READ_SIZE) return null;
      const content = await readFdAsync(fd, stat.size);
      call.charge(HOST_FUEL.SYSCALL + content.length / 4);
      return content;
    }),
  );
}

/** The shape of most fs operations: the file area and one path argument. */
function onePath(fn: string) {
  return (args: unknown[], run: RunContext) => ({ files: area(run, fn), raw: pathArg(args[0], fn) });
}

/** A whole-file read gated as `fs.read {path}`, its content handed to `shape`. */
function readOperation(fn: string, shape: (content: Buffer | null, target: string, call: HostCall) => unknown): HostOperation {
  return gated({
    parse: onePath(fn),
    gate: ({ raw }) => ({ capability: 'fs.read', context: { path: raw } }),
    run: async (call, { files }, allowed) => {
      const target = allowedPath(allowed);
      return shape(await readWhole(call, files, fn, target), target, call);
    },
  });
}

/** An inspection of one path gated as `fs.stat {path}`; `inspect` gets the checked target. */
function statOperation(fn: string, inspect: (call: HostCall, files: FileArea, target: string) => unknown): HostOperation {
  return gated({
    parse: onePath(fn),
    gate: ({ raw }) => ({ capability: 'fs.stat', context: { path: raw } }),
    run: (call, { files }, allowed) => inspect(call, files, allowedPath(allowed)),
  });
}

export const fsOperations: Record<string, HostOperation> = {
  maxReadSize: ungated('a constant of the server', { run: () => MAX_READ_SIZE }),

  cwd: ungated('the working directory is the session\'s own setting, no file is touched', { run: (call) => call.services.files?.cwd ?? '/' }),

  info: ungated('describes the Blueprint\'s file area (mode, mounts, limits), no file is touched', {
    run: (call) => {
      const files = call.services.files;
      const root = files?.root;
      return {
        mode: files?.mode ?? 'none',
        sizeLimit: root?.sizeLimit ?? -1,
        access: root?.access ?? 'read_write',
        volume: files?.mode === 'named' ? (root?.volume ?? '') : '',
        mounts: (files?.mounts() ?? []).map((m) => ({ path: m.guestRoot, mode: 'named', volume: m.volume, access: m.access, sizeLimit: m.sizeLimit ?? -1 })),
      };
    },
  }),

  exists: statOperation('exists', (call, files, target) => {
    call.charge(HOST_FUEL.SYSCALL);
    try {
      fs.lstatSync(files.resolve(target, 'itself').hostPath);
      return true;
    } catch {
      return false;
    }
  }),

  stat: statOperation('stat', (call, files, target) => {
    call.charge(HOST_FUEL.SYSCALL);
    return hostWork('stat', target, () => {
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(files.resolve(target, 'itself').hostPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      const kind = kindOf(stat);
      return { kind, size: kind === 'file' ? stat.size : 0, modifiedAt: Math.floor(stat.mtimeMs) };
    });
  }),

  size: statOperation('size', (call, files, target) => {
    call.charge(HOST_FUEL.SYSCALL);
    return hostWork('size', target, () => withFile(files, target, (_fd, stat) => stat.size));
  }),

  read: readOperation('read', (content) => (content === null ? null : new Uint8Array(content))),

  readText: readOperation('readText', (content) => (content === null ? null : decodeText(content))),

  readBytes: gated({
    parse: (args, run) => {
      const files = area(run, 'readBytes');
      const raw = pathArg(args[0], 'readBytes');
      const offset = args[1];
      const length = args[2];
      if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) throw new RangeError('fs.readBytes: offset must be a non-negative whole number');
      if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || length > MAX_READ_SIZE) throw new RangeError(`fs.readBytes: length must be a whole number from 0 to ${MAX_READ_SIZE}`);
      return { files, raw, offset, length };
    },
    gate: ({ raw, length }) => ({ capability: 'fs.read', context: { path: raw, length } }),
    run: (call, { files, offset, length }, allowed) => {
      const target = allowedPath(allowed);
      return hostWork('readBytes', target, () =>
        withFile(files, target, (fd) => {
          const buffer = Buffer.alloc(length);
          const read = fs.readSync(fd, buffer, 0, length, offset);
          call.charge(HOST_FUEL.SYSCALL + read / 4);
          return new Uint8Array(buffer.subarray(0, read));
        }),
      );
    },
  }),

  bytes: gated({
    parse: (args, run) => {
      const files = area(run, 'bytes');
      const raw = pathArg(args[0], 'bytes');
      const chunkSize = args[1] ?? 65_536;
      if (typeof chunkSize !== 'number' || !Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_READ_SIZE) throw new RangeError(`fs.bytes: chunkSize must be a whole number from 1 to ${MAX_READ_SIZE}`);
      return { files, raw, chunkSize };
    },
    gate: ({ raw, chunkSize }) => ({ capability: 'fs.read', context: { path: raw, chunkSize } }),
    run: (call, { files, chunkSize }, allowed) => {
      const target = allowedPath(allowed);
      return hostWorkAsync('bytes', target, () =>
        withFileAsync(files, target, async (fd, stat) => {
          if (stat.size > MAX_READ_SIZE) throw new RangeError(`fs.bytes ${target}: the file is larger than ${MAX_READ_SIZE} bytes`);
          const content = await readFdAsync(fd, stat.size);
          call.charge(HOST_FUEL.SYSCALL + content.length / 4);
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < content.length; at += chunkSize) chunks.push(new Uint8Array(content.subarray(at, at + chunkSize)));
          return chunks;
        }),
      );
    },
  }),

  lines: readOperation('lines', (content, target, call) => {
    if (content === null) throw new RangeError(`fs.lines ${target}: the file is larger than ${MAX_READ_SIZE} bytes`);
    const text = decodeText(content);
    if (text === '') return [];
    const lines = text.split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    call.charge(HOST_FUEL.ELEM * lines.length);
    return lines;
  }),

  peek: statOperation('peek', (call, files, target) =>
    hostWork('peek', target, () =>
      withFile(files, target, (fd, stat) => {
        const head = Buffer.alloc(Math.min(256, stat.size));
        fs.readSync(fd, head, 0, head.length, 0);
        call.charge(HOST_FUEL.SYSCALL * 2);
        return { ...describeEncoding(head), size: stat.size };
      }),
    ),
  ),

  /** `writer(path)`: gated at open; the checked target stays here behind a handle. */
  openWriter: gated({
    parse: onePath('writer'),
    gate: ({ raw }) => ({ capability: 'fs.write', context: { path: raw } }),
    run: (call, { files }, allowed) => {
      const target = allowedPath(allowed);
      return hostWork('writer', target, () => {
        const { place } = files.resolve(target);
        requireWritable(call, place, 'fs.write', allowed[0].context, target);
        const handle = call.resources.add('writer', { target, context: allowed[0].context } satisfies OpenWriter, 'fs.writer');
        return { handle, path: target };
      });
    },
  }),

  /**
   * The writer's close(): the target comes from the run's handle, never from the guest,
   * and is checked again (policy, read-only, size) before the atomic create-or-replace.
   */
  commitWriter: gated({
    textAsBytes: true,
    parse: (args, run) => {
      const files = area(run, 'writer');
      const content = contentArg(args[1], 'writer');
      const writer = run.resources.take<OpenWriter>('writer', args[0], 'fs.writer');
      return { files, content, writer };
    },
    gate: ({ writer, content }) => ({ capability: 'fs.write', context: { path: writer.target, length: content.length } }),
    run: (call, { files, content, writer }, allowed) => {
      const target = allowedPath(allowed);
      const context = allowed[0].context;
      return hostWorkAsync('writer', target, async () => {
        const resolved = files.resolve(target);
        requireWritable(call, resolved.place, 'fs.write', context, target);
        const replacing = existingSize(resolved.hostPath);
        await requireRoom(call, files, resolved.place, 'writer', target, content.length, replacing, context);
        call.charge(HOST_FUEL.SYSCALL + content.length / 4);
        await atomicWriteAsync(resolved, content);
        files.recordWrite(resolved.place, content.length - replacing);
        void writer;
        return undefined;
      });
    },
  }),

  write: writeOperation('write', 'replace'),
  writeText: writeOperation('writeText', 'replace'),
  append: writeOperation('append', 'append'),
  appendText: writeOperation('appendText', 'append'),

  mkdir: gated({
    parse: (args, run) => ({ ...onePath('mkdir')(args, run), recursive: boolArg(args[1], 'mkdir', 'recursive') }),
    gate: ({ raw, recursive }) => ({ capability: 'fs.mkdir', context: { path: raw, recursive } }),
    run: (call, { files, recursive }, allowed) => {
      const target = allowedPath(allowed);
      return hostWork('mkdir', target, () => {
        const { hostPath, place } = files.resolve(target);
        requireWritable(call, place, 'fs.mkdir', allowed[0].context, target);
        call.charge(HOST_FUEL.SYSCALL);
        fs.mkdirSync(hostPath, { recursive });
        return undefined;
      });
    },
  }),

  remove: gated({
    parse: (args, run) => ({ ...onePath('remove')(args, run), recursive: boolArg(args[1], 'remove', 'recursive') }),
    gate: ({ raw, recursive }) => ({ capability: 'fs.remove', context: { path: raw, recursive } }),
    run: async (call, { files, recursive }, allowed) => {
      const target = allowedPath(allowed);
      const tree = hostWork('remove', target, () => {
        if (files.isMountPoint(target)) throw new Error(`fs.remove ${target}: a mount point or / cannot be removed`);
        // A link is removed itself; the removal never descends through one.
        const { hostPath, place } = files.resolve(target, 'itself');
        requireWritable(call, place, 'fs.remove', allowed[0].context, target);
        call.charge(HOST_FUEL.SYSCALL);
        const stat = fs.lstatSync(hostPath);
        if (!stat.isDirectory()) {
          fs.unlinkSync(hostPath);
          if (stat.isFile()) files.recordWrite(place, -stat.size);
        } else if (!recursive) fs.rmdirSync(hostPath);
        else return { hostPath, place };
        return null;
      });
      // A tree of any size or depth: asynchronous steps, off the event loop.
      if (tree !== null) {
        const freed = await files.treeBytes(tree.hostPath);
        await hostWorkAsync('remove', target, () => removeTree(tree.hostPath));
        files.recordWrite(tree.place, -freed);
      }
      return undefined;
    },
  }),

  move: gated({
    parse: (args, run) => ({ files: area(run, 'move'), rawFrom: pathArg(args[0], 'move', 'from'), rawTo: pathArg(args[1], 'move', 'to') }),
    gate: ({ rawFrom, rawTo }) => ({ capability: 'fs.move', context: { from: rawFrom, to: rawTo } }),
    run: (call, { files }, allowed) => {
      const from = allowedPath(allowed, 'from');
      const to = allowedPath(allowed, 'to');
      const context = allowed[0].context;
      return hostWorkAsync('move', from, async () => {
        if (files.isMountPoint(from) || files.isMountPoint(to)) throw new Error(`fs.move ${from}: a mount point or / cannot be moved or replaced`);
        // rename moves or replaces a link itself, never what it points to.
        const source = files.resolve(from, 'itself');
        const target = files.resolve(to, 'itself');
        requireWritable(call, source.place, 'fs.move', context, from);
        requireWritable(call, target.place, 'fs.move', context, to);
        if (fs.existsSync(target.hostPath) && fs.lstatSync(target.hostPath).isDirectory()) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
        requireDepthAfter(files, source.hostPath, from, to);
        call.charge(HOST_FUEL.SYSCALL * 2);
        if (source.place === target.place) fs.renameSync(source.hostPath, target.hostPath);
        else {
          refuseLinksIn(source.hostPath, from);
          const adding = (await files.treeBytes(source.hostPath)) || existingSize(source.hostPath);
          const replacing = existingSize(target.hostPath);
          await requireRoom(call, files, target.place, 'move', to, adding, replacing, context);
          copyTree(source, target);
          await removeTree(source.hostPath);
          files.recordWrite(target.place, adding - replacing);
          files.recordWrite(source.place, -adding);
        }
        return undefined;
      });
    },
  }),

  copy: gated({
    parse: (args, run) => ({ files: area(run, 'copy'), rawFrom: pathArg(args[0], 'copy', 'from'), rawTo: pathArg(args[1], 'copy', 'to'), recursive: boolArg(args[2], 'copy', 'recursive') }),
    gate: ({ rawFrom, rawTo, recursive }) => ({ capability: 'fs.copy', context: { from: rawFrom, to: rawTo, recursive } }),
    run: (call, { files, recursive }, allowed) => {
      const from = allowedPath(allowed, 'from');
      const to = allowedPath(allowed, 'to');
      const context = allowed[0].context;
      return hostWorkAsync('copy', from, async () => {
        const source = files.resolve(from);
        const target = files.resolve(to);
        requireWritable(call, target.place, 'fs.copy', context, to);
        const stat = fs.lstatSync(source.hostPath);
        if (stat.isDirectory() && !recursive) throw new Error(`fs.copy ${from}: is a directory; pass recursive: true`);
        refuseLinksIn(source.hostPath, from);
        if (fs.existsSync(target.hostPath) && fs.lstatSync(target.hostPath).isDirectory()) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
        requireDepthAfter(files, source.hostPath, from, to);
        const adding = stat.isDirectory() ? await files.treeBytes(source.hostPath) : stat.size;
        const replacing = existingSize(target.hostPath);
        await requireRoom(call, files, target.place, 'copy', to, adding, replacing, context);
        call.charge(HOST_FUEL.SYSCALL * 2 + adding / 4);
        copyTree(source, target);
        files.recordWrite(target.place, adding - replacing);
        return undefined;
      });
    },
  }),

  list: gated({
    parse: (args, run) => ({ files: area(run, 'list'), raw: pathArg(args[0] ?? '.', 'list'), recursive: boolArg(args[1], 'list', 'recursive') }),
    gate: ({ raw, recursive }) => ({ capability: 'fs.list', context: { path: raw, recursive } }),
    run: (call, { files, recursive }, allowed) => {
      const target = allowedPath(allowed);
      return hostWork('list', target, () => {
        const walked = walkTree(files.resolve(target).hostPath, target, { maxDepth: recursive ? MAX_LIST_DEPTH + 1 : 1, rootMustExist: true });
        const out: Array<Record<string, unknown>> = walked.map((e) => ({ kind: e.kind, name: e.name, path: e.guestPath, size: e.size }));
        // Mount points appear in their parent's listing.
        for (const mount of files.mounts()) {
          if (path.posix.dirname(mount.guestRoot) === target && !out.some((e) => e.path === mount.guestRoot)) {
            out.push({ kind: 'directory', name: path.posix.basename(mount.guestRoot), path: mount.guestRoot, size: 0 });
          }
        }
        call.charge(HOST_FUEL.SYSCALL + HOST_FUEL.ELEM * out.length);
        return out;
      });
    },
  }),
};

/** Copies never follow or recreate links: a tree holding one is refused before anything is written. */
function refuseLinksIn(hostPath: string, guestPath: string): void {
  if (fs.lstatSync(hostPath).isSymbolicLink()) throw linkRefused(guestPath);
  const link = walkTree(hostPath, guestPath, { maxDepth: 64 }).find((e) => e.kind === 'symlink');
  if (link) throw linkRefused(link.guestPath);
}

/**
 * A directory moved or copied deeper must not reach below MAX_PATH_DEPTH (src/vfs): only
 * when it goes deeper is its tree looked at, and only as far as the bound.
 */
function requireDepthAfter(files: FileArea, sourceHost: string, from: string, to: string): void {
  const deeper = files.depthOf(to) - files.depthOf(from);
  if (deeper <= 0 || !fs.lstatSync(sourceHost).isDirectory()) return;
  const room = MAX_PATH_DEPTH - files.depthOf(to);
  const tooDeep = walkTree(sourceHost, from, { maxDepth: room + 1 }).find((e) => e.depth > room);
  if (tooDeep) throw new FileAreaError(`the tree would reach ${files.depthOf(tooDeep.guestPath) + deeper} levels; a file area allows at most ${MAX_PATH_DEPTH} levels below its root`);
}

/** What a writer's handle stands for: the target as checked at open. */
interface OpenWriter {
  target: string;
  context: Record<string, unknown>;
}
