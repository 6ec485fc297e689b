// Extraction of a code host's .tar.gz into a directory, strictly: the gzip
// stream is inflated chunk by chunk under a bound on the unpacked bytes (never whole into
// memory); every header's checksum and ustar magic is verified; an archive that ends
// before its end-of-archive blocks is truncated. Only regular files and directories are
// accepted: links (symbolic or hard), devices and any other entry type are refused naming
// the entry, so nothing written can lead out of the target. The single top-level
// directory is stripped; absolute paths and `..` components are refused. Pax extended
// headers (`path`, `size`) and GNU long names are understood.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export const MAX_ENTRIES = 200_000;
/** Bytes the gzip stream may inflate to (the tar stream, headers and padding included). */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** A pax extended header or GNU long name larger than this is refused. */
const MAX_META_BYTES = 1024 * 1024;
const BLOCK = 512;
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

function text(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

/** A ustar numeric field: octal digits, optionally padded with spaces and ended by NUL or space. Base-256 is refused. */
function octal(block: Buffer, offset: number, length: number, what: string): number {
  const raw = block.subarray(offset, offset + length);
  if (raw[0]! & 0x80) throw new ArchiveError(`the archive header's ${what} uses the base-256 form, which is not accepted`);
  const digits = raw.toString('latin1').replace(/[\0 ]+$/, '').replace(/^ +/, '');
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new ArchiveError(`the archive header's ${what} is not an octal number ('${shown(digits.slice(0, 20))}')`);
  return parseInt(digits, 8);
}

/** The header checksum (bytes 148-155 counted as spaces), unsigned as POSIX says, or signed as some old tars wrote it. */
function checksumMatches(header: Buffer): boolean {
  const stored = octal(header, 148, 8, 'checksum');
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : header[i]!;
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

function isZeroBlock(block: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/** Pax records `<length> <key>=<value>\n`; anything malformed is refused. */
function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    if (data[at] === 0) break; // NUL padding after the last record
    const space = data.indexOf(0x20, at);
    const lengthText = space < 0 ? '' : data.subarray(at, space).toString('latin1');
    const length = /^[1-9][0-9]{0,8}$/.test(lengthText) ? Number(lengthText) : NaN;
    if (!Number.isFinite(length) || at + length > data.length || data[at + length - 1] !== 0x0a) throw new ArchiveError('the archive has a malformed pax extended header');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq <= 0) throw new ArchiveError('the archive has a malformed pax extended header');
    out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

/** Data still to read after a header: an extended header's text, or a file's bytes; then its padding. */
type Pending = { kind: 'pax' | 'global' | 'longname'; size: number; have: number; chunks: Buffer[]; padding: number } | { kind: 'file'; name: string; fd: number; remaining: number; padding: number };

/** Parses the tar stream block by block and writes what it accepts beneath `target`. */
class StrictTarWriter {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private pending: Pending | null = null;
  /** Padding still to skip after an entry's data. */
  private padding = 0;
  private entries = 0;
  private zeroBlocks = 0;
  private prefix: string | null = null;
  private pax = new Map<string, string>();
  private longName: string | null = null;
  private readonly seen = new Set<string>();

  constructor(
    private readonly target: string,
    private readonly limits: ExtractLimits,
  ) {}

  get finished(): boolean {
    return this.zeroBlocks >= 2;
  }

  write(chunk: Buffer): void {
    if (this.finished) return; // bytes after the end-of-archive blocks (record padding)
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    while (!this.finished && this.step()) {
      /* keep consuming */
    }
  }

  /** Checks the stream ended where an archive may end. */
  end(): void {
    if (!this.finished) throw new ArchiveError('the archive is truncated (it ends before its end-of-archive blocks)');
  }

  closeFile(): void {
    if (this.pending?.kind === 'file') {
      fs.closeSync(this.pending.fd);
      this.pending = null;
    }
  }

  private take(length: number): Buffer {
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered, this.bufferedBytes);
    const taken = all.subarray(0, length);
    const rest = all.subarray(length);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.bufferedBytes = rest.length;
    return taken;
  }

  /** Consumes what it can; false when more input is needed. */
  private step(): boolean {
    if (this.bufferedBytes === 0) return false;
    if (this.padding > 0) {
      this.padding -= this.take(Math.min(this.padding, this.bufferedBytes)).length;
      return true;
    }
    const pending = this.pending;
    if (pending === null) {
      if (this.bufferedBytes < BLOCK) return false;
      this.header(Buffer.from(this.take(BLOCK)));
      return true;
    }
    if (pending.kind === 'file') {
      const piece = this.take(Math.min(pending.remaining, this.bufferedBytes));
      this.writeAll(pending.fd, piece, pending.name);
      pending.remaining -= piece.length;
      if (pending.remaining === 0) {
        this.closeFile();
        this.padding = pending.padding;
      }
      return true;
    }
    const piece = this.take(Math.min(pending.size - pending.have, this.bufferedBytes));
    pending.chunks.push(Buffer.from(piece));
    pending.have += piece.length;
    if (pending.have < pending.size) return true;
    this.pending = null;
    this.padding = pending.padding;
    const data = Buffer.concat(pending.chunks);
    if (pending.kind === 'pax') this.pax = paxRecords(data);
    else if (pending.kind === 'global') paxRecords(data); // validated, then ignored (the commit id)
    else this.longName = data.toString('utf8').replace(/\0+$/, '');
    return true;
  }

  private writeAll(fd: number, data: Buffer, name: string): void {
    let at = 0;
    try {
      while (at < data.length) at += fs.writeSync(fd, data, at, data.length - at);
    } catch (error) {
      throw new ArchiveError(`the archive entry '${shown(name)}' could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }

  private header(block: Buffer): void {
    if (isZeroBlock(block)) {
      if (this.pax.size > 0 || this.longName !== null) throw new ArchiveError('the archive ends right after an extended header');
      this.zeroBlocks++;
      return;
    }
    if (this.zeroBlocks > 0) throw new ArchiveError('the archive has a lone zero block before more entries');
    const shownName = text(block, 0, 100);
    if (!checksumMatches(block)) throw new ArchiveError(`the archive has a header with a bad checksum (entry '${shown(shownName)}')`);
    const magic = block.subarray(257, 265).toString('latin1');
    if (magic !== 'ustar\u000000' && magic !== 'ustar  \u0000') throw new ArchiveError(`the archive entry '${shown(shownName)}' is not in ustar format`);
    const type = String.fromCharCode(block[156]!);
    const headerSize = octal(block, 124, 12, 'size');
    const paxSize = type === 'x' || type === 'g' ? undefined : this.pax.get('size');
    if (paxSize !== undefined && !/^[0-9]{1,15}$/.test(paxSize)) throw new ArchiveError(`the archive's pax size '${shown(paxSize.slice(0, 20))}' is not a number`);
    const size = paxSize !== undefined ? Number(paxSize) : headerSize;
    if (size > this.limits.maxUnpackedBytes) throw new ArchiveError(`the archive entry '${shown(shownName)}' declares ${size} bytes, more than the ${this.limits.maxUnpackedBytes} bytes an archive may unpack to`);
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'x' || type === 'g' || type === 'L') {
      if (size > MAX_META_BYTES) throw new ArchiveError(`the archive has an extended header of ${size} bytes (at most ${MAX_META_BYTES})`);
      if (size === 0) throw new ArchiveError('the archive has an empty extended header');
      this.pending = { kind: type === 'x' ? 'pax' : type === 'g' ? 'global' : 'longname', size, have: 0, chunks: [], padding };
      return;
    }
    const ustarPrefix = text(block, 345, 155);
    const name = this.pax.get('path') ?? this.longName ?? (ustarPrefix ? `${ustarPrefix}/${shownName}` : shownName);
    const linkName = this.pax.get('linkpath') ?? text(block, 157, 100);
    this.pax = new Map();
    this.longName = null;
    if (++this.entries > this.limits.maxEntries) throw new ArchiveError(`the archive has more than ${this.limits.maxEntries} entries`);
    this.entry(type, name, linkName, size, padding);
  }

  private entry(type: string, name: string, linkName: string, size: number, padding: number): void {
    switch (type) {
      case '0':
      case '\0':
      case '7':
        break;
      case '5':
        if (size !== 0) throw new ArchiveError(`the archive entry '${shown(name)}' is a directory with ${size} bytes of data`);
        break;
      case '1':
        throw new ArchiveError(`the archive entry '${shown(name)}' is a hard link (to '${shown(linkName)}'); links are not accepted in a Package archive`);
      case '2':
        throw new ArchiveError(`the archive entry '${shown(name)}' is a symbolic link (to '${shown(linkName)}'); links are not accepted in a Package archive`);
      case 'K':
        throw new ArchiveError(`the archive has a GNU long link name; links are not accepted in a Package archive`);
      case '3':
      case '4':
      case '6':
        throw new ArchiveError(`the archive entry '${shown(name)}' is a device or FIFO, which is not accepted`);
      default:
        throw new ArchiveError(`the archive entry '${shown(name)}' has type '${type.replace(/[^\x20-\x7e]/g, '?')}', which is not accepted (only regular files and directories are)`);
    }
    const relative = this.relativeParts(name);
    if (relative === null) {
      if (type === '5') return; // the top-level directory itself
      throw new ArchiveError(`the archive entry '${shown(name)}' is not inside the top-level directory`);
    }
    const key = relative.join('/');
    if (this.seen.has(key)) throw new ArchiveError(`the archive entry '${shown(name)}' appears more than once`);
    this.seen.add(key);
    const destination = path.join(this.target, ...relative);
    try {
      if (type === '5') {
        fs.mkdirSync(destination, { recursive: true });
        return;
      }
      fs.mkdirSync(path.dirname(destination), { recursive: true });
      // Never through a link, never over something that exists.
      const fd = fs.openSync(destination, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
      if (size === 0) fs.closeSync(fd);
      else this.pending = { kind: 'file', name, fd, remaining: size, padding };
    } catch (error) {
      throw new ArchiveError(`the archive entry '${shown(name)}' could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
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

/**
 * Extracts `archive` (gzip'd tar) into `target` (created). Throws ArchiveError naming the
 * bad entry; on error, what was written stays in `target` for the caller to remove.
 */
export async function extractTarGz(archive: Buffer, target: string, limits: ExtractLimits = defaultLimits): Promise<void> {
  fs.mkdirSync(target, { recursive: true });
  const writer = new StrictTarWriter(target, limits);
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
  try {
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        unpacked += chunk.length;
        if (unpacked > limits.maxUnpackedBytes) throw new ArchiveError(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
        writer.write(chunk);
      }
    } catch (error) {
      if (error instanceof ArchiveError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR') throw new ArchiveError('the archive is truncated (the gzip stream ends early)');
      throw new ArchiveError(`the archive is not valid gzip data (${(error as Error).message})`);
    }
    writer.end();
  } finally {
    writer.closeFile();
    source.unpipe(gunzip);
    source.destroy();
    gunzip.destroy();
  }
}
