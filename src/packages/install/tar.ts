// Extraction of a code host's .tar.gz into a directory, strictly. Tar parsing is node-tar's
// Parser (strict: header checksums, pax and GNU long names, truncation); the rules are ours.
// The gzip stream is inflated here, chunk by chunk, so the unpacked bytes are counted and
// bounded (node-tar bounds only the inflation ratio and keeps what follows the end-of-archive
// blocks in memory); the Parser sees plain tar, with its own decompression sniffing off.
// Only regular files and directories are accepted: links (symbolic or hard), devices and any
// other entry type are refused naming the entry, so nothing written can lead out of the
// target. The single top-level directory is stripped; absolute paths and `..` are refused;
// each file is streamed to a new file opened with O_EXCL|O_NOFOLLOW, never held whole.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';

export const MAX_ENTRIES = 200_000;
/** Bytes the gzip stream may inflate to (the tar stream, headers and padding included). */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** A pax extended header or GNU long name larger than this is refused. */
const MAX_META_BYTES = 1024 * 1024;
const FEED_CHUNK = 64 * 1024;

export class ArchiveError extends Error {}

export interface ExtractLimits {
  maxEntries: number;
  maxUnpackedBytes: number;
}

const defaultLimits: ExtractLimits = { maxEntries: MAX_ENTRIES, maxUnpackedBytes: MAX_UNPACKED_BYTES };

/** A name from the archive as an error message shows it: control characters escaped, at most 200 characters. */
function shown(name: string): string {
  const printable = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return printable.length > 200 ? `${printable.slice(0, 200)}…` : printable;
}

function writeFailure(name: string, error: unknown): ArchiveError {
  return new ArchiveError(`the archive entry '${shown(name)}' could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
}

/** node-tar's strict-mode failures as our errors (its warnings carry `tarCode` and the header). */
function fromParser(error: Error & { tarCode?: string; header?: { path?: string; linkpath?: string } }, sawEnd: boolean): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const name = shown(error.header?.path ?? '');
  if (error.tarCode === 'TAR_ENTRY_INVALID') {
    if (/checksum/.test(error.message)) return new ArchiveError(`the archive has a header with a bad checksum (entry '${name}')`);
    if (/linkpath forbidden/.test(error.message)) return new ArchiveError(`the archive entry '${name}' carries a link name (to '${shown(error.header?.linkpath ?? '')}'); links are not accepted in a Package archive`);
    return new ArchiveError(`the archive has an invalid header (entry '${name}': ${error.message.replace(/^TAR_ENTRY_INVALID: /, '')})`);
  }
  if (error.tarCode === 'TAR_BAD_ARCHIVE' && !sawEnd) return new ArchiveError('the archive is truncated (it ends before its end-of-archive blocks)');
  return new ArchiveError(`the archive is not a valid tar archive (${error.message.replace(/^TAR_[A-Z_]+: /, '')})`);
}

/** Our rules on the entries node-tar reads, and the writing of what they accept beneath `target`. */
class EntryWriter {
  private entries = 0;
  private prefix: string | null = null;
  private readonly seen = new Set<string>();
  /** The file being written, closed when its entry ends or extraction stops. */
  private open: { fd: number; name: string } | null = null;

  constructor(
    private readonly target: string,
    private readonly limits: ExtractLimits,
  ) {}

  /** Checks the entry and starts writing it; throws ArchiveError to refuse it. */
  accept(entry: ReadEntry, onFailure: (error: ArchiveError) => void): void {
    this.close(); // the previous file, had its entry not ended
    const name = entry.path;
    if (++this.entries > this.limits.maxEntries) throw new ArchiveError(`the archive has more than ${this.limits.maxEntries} entries`);
    if (entry.size > this.limits.maxUnpackedBytes) throw new ArchiveError(`the archive entry '${shown(name)}' declares ${entry.size} bytes, more than the ${this.limits.maxUnpackedBytes} bytes an archive may unpack to`);
    const link = shown(entry.linkpath ?? '');
    switch (entry.type) {
      case 'File':
      case 'OldFile':
      case 'ContiguousFile':
      case 'Directory':
        // A GNU long link name or pax linkpath before a file or directory still names a link.
        if (entry.linkpath) throw new ArchiveError(`the archive entry '${shown(name)}' carries a link name (to '${link}'); links are not accepted in a Package archive`);
        break;
      case 'Link':
        throw new ArchiveError(`the archive entry '${shown(name)}' is a hard link (to '${link}'); links are not accepted in a Package archive`);
      case 'SymbolicLink':
        throw new ArchiveError(`the archive entry '${shown(name)}' is a symbolic link (to '${link}'); links are not accepted in a Package archive`);
      case 'CharacterDevice':
      case 'BlockDevice':
      case 'FIFO':
        throw new ArchiveError(`the archive entry '${shown(name)}' is a device or FIFO, which is not accepted`);
      default:
        throw unacceptedType(entry);
    }
    const relative = this.relativeParts(name);
    if (relative === null) {
      if (entry.type === 'Directory') return; // the top-level directory itself
      throw new ArchiveError(`the archive entry '${shown(name)}' is not inside the top-level directory`);
    }
    const key = relative.join('/');
    if (this.seen.has(key)) throw new ArchiveError(`the archive entry '${shown(name)}' appears more than once`);
    this.seen.add(key);
    const destination = path.join(this.target, ...relative);
    try {
      if (entry.type === 'Directory') {
        fs.mkdirSync(destination, { recursive: true });
        return;
      }
      fs.mkdirSync(path.dirname(destination), { recursive: true });
      // Never through a link, never over something that exists.
      const fd = fs.openSync(destination, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
      this.open = { fd, name };
    } catch (error) {
      throw writeFailure(name, error);
    }
    const file = this.open;
    entry.on('data', (chunk: Buffer) => {
      if (this.open !== file) return; // extraction already stopped
      try {
        for (let at = 0; at < chunk.length; ) at += fs.writeSync(file.fd, chunk, at, chunk.length - at);
      } catch (error) {
        onFailure(writeFailure(name, error));
      }
    });
    entry.on('end', () => this.close());
  }

  close(): void {
    if (this.open === null) return;
    fs.closeSync(this.open.fd);
    this.open = null;
  }

  /** The parts below the top-level directory, or null for the top-level directory itself. */
  private relativeParts(name: string): string[] | null {
    if (name.includes('\0')) throw new ArchiveError(`the archive entry '${shown(name)}' has a NUL in its name`);
    if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ArchiveError(`the archive entry '${shown(name)}' has an absolute path`);
    const parts = name.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.includes('..')) throw new ArchiveError(`the archive entry '${shown(name)}' climbs out with '..'`);
    const top = parts[0];
    if (top === undefined) throw new ArchiveError(`the archive has an entry with an empty name`);
    if (this.prefix === null) this.prefix = top;
    else if (top !== this.prefix) throw new ArchiveError(`the archive has more than one top-level directory ('${shown(this.prefix)}', '${shown(top)}')`);
    return parts.length > 1 ? parts.slice(1) : null;
  }
}

function unacceptedType(entry: ReadEntry): ArchiveError {
  const code = entry.header.typeKey.replace(/[^\x20-\x7e]/g, '?');
  return new ArchiveError(`the archive entry '${shown(entry.path)}' has type '${code}', which is not accepted (only regular files and directories are)`);
}

/**
 * Extracts `archive` (gzip'd tar) into `target` (created). Throws ArchiveError naming the
 * bad entry; on error, what was written stays in `target` for the caller to remove.
 */
export async function extractTarGz(archive: Buffer, target: string, limits: ExtractLimits = defaultLimits): Promise<void> {
  fs.mkdirSync(target, { recursive: true });
  const writer = new EntryWriter(target, limits);
  let failure: ArchiveError | null = null;
  let sawEnd = false;
  /** An extended header (pax, GNU long name or link name) not yet followed by its entry. */
  let metaPending = false;
  // brotli/zstd off: the Parser must not decompress the (already inflated) tar stream again.
  const parser = new Parser({ strict: true, brotli: false, zstd: false, maxMetaEntrySize: MAX_META_BYTES });
  const fail = (error: ArchiveError) => {
    failure ??= error;
    writer.close();
    parser.abort(error); // stops reading further blocks; reported through 'error'
  };
  parser.on('error', (error: Error) => fail(fromParser(error, sawEnd)));
  parser.on('meta', () => (metaPending = true));
  parser.on('eof', () => {
    if (metaPending) fail(new ArchiveError('the archive ends right after an extended header'));
    sawEnd = true;
  });
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    // node-tar skips types it does not know, and extended headers over maxMetaEntrySize.
    fail(entry.meta ? new ArchiveError(`the archive has an extended header of ${entry.size} bytes (at most ${MAX_META_BYTES})`) : unacceptedType(entry));
  });
  parser.on('entry', (entry: ReadEntry) => {
    metaPending = false;
    if (failure !== null) return void entry.resume();
    try {
      writer.accept(entry, fail);
    } catch (error) {
      entry.resume();
      fail(error instanceof ArchiveError ? error : writeFailure(entry.path, error));
    }
    // An entry with no data listener (a directory) is drained so the Parser moves on.
    if (entry.listenerCount('data') === 0) entry.resume();
  });

  const gunzip = createGunzip({ chunkSize: FEED_CHUNK });
  const source = Readable.from(
    (function* () {
      for (let at = 0; at < archive.length; at += FEED_CHUNK) yield archive.subarray(at, at + FEED_CHUNK);
    })(),
    { objectMode: false },
  );
  source.on('error', () => undefined);
  source.pipe(gunzip);
  let unpacked = 0;
  /** The first two bytes of the tar stream, to refuse gzip inside gzip before the Parser sniffs them. */
  let head = Buffer.alloc(0);
  try {
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        unpacked += chunk.length;
        if (unpacked > limits.maxUnpackedBytes) throw new ArchiveError(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
        // Bytes after the end-of-archive blocks (record padding) are counted, not parsed.
        if (!sawEnd) {
          if (head.length < 2) {
            head = Buffer.concat([head, chunk.subarray(0, 2 - head.length)]);
            if (head.length === 2 && head[0] === 0x1f && head[1] === 0x8b) throw new ArchiveError('the archive is gzip inside gzip, which is not accepted');
          }
          parser.write(chunk);
        }
        if (failure !== null) throw failure;
      }
    } catch (error) {
      if (error instanceof ArchiveError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR') throw new ArchiveError('the archive is truncated (the gzip stream ends early)');
      throw new ArchiveError(`the archive is not valid gzip data (${(error as Error).message})`);
    }
    parser.end();
    if (failure !== null) throw failure;
    if (!sawEnd) throw new ArchiveError('the archive is truncated (it ends before its end-of-archive blocks)');
  } finally {
    writer.close();
    source.unpipe(gunzip);
    source.destroy();
    gunzip.destroy();
  }
}
