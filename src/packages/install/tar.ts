// Extraction of a code host's .tar.gz into a directory (B.7 step 5): the single top-level
// directory stripped; absolute paths, `..` components, links leaving the tree and device
// files refused; at most 200,000 entries. Pax and GNU long names are understood.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export const MAX_ENTRIES = 200_000;

export class ArchiveError extends Error {}

function field(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

function octal(block: Buffer, offset: number, length: number): number {
  const text = field(block, offset, length).trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return out;
}

/** Extracts `archive` (gzip) into `target` (created). Throws ArchiveError naming the bad entry. */
export function extractTarGz(archive: Buffer, target: string): void {
  let data: Buffer;
  try {
    data = gunzipSync(archive, { maxOutputLength: 2 * 1024 * 1024 * 1024 });
  } catch (error) {
    throw new ArchiveError(`the archive is not gzip data (${(error as Error).message})`);
  }
  fs.mkdirSync(target, { recursive: true });
  let offset = 0;
  let entries = 0;
  let longName: string | null = null;
  let pax = new Map<string, string>();
  let prefix: string | null = null;
  while (offset + 512 <= data.length) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 0x30);
    const body = data.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'g') continue; // pax global header (the commit id)
    if (type === 'x') {
      pax = paxRecords(body);
      continue;
    }
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (++entries > MAX_ENTRIES) throw new ArchiveError(`the archive has more than ${MAX_ENTRIES} entries`);
    const ustarPrefix = field(header, 0x101, 6).startsWith('ustar') ? field(header, 345, 155) : '';
    const name = pax.get('path') ?? longName ?? (ustarPrefix ? `${ustarPrefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const linkName = pax.get('linkpath') ?? field(header, 157, 100);
    pax = new Map();
    longName = null;
    if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ArchiveError(`the archive entry '${name}' has an absolute path`);
    const parts = name.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.includes('..')) throw new ArchiveError(`the archive entry '${name}' climbs out with '..'`);
    const top = parts[0];
    if (top === undefined) continue;
    if (prefix === null) prefix = top;
    else if (top !== prefix) throw new ArchiveError(`the archive has more than one top-level directory ('${prefix}', '${top}')`);
    const relative = parts.slice(1);
    if (relative.length === 0) continue;
    const destination = path.join(target, ...relative);
    switch (type) {
      case '0':
      case '\0':
      case '7':
        fs.mkdirSync(path.dirname(destination), { recursive: true });
        fs.writeFileSync(destination, body);
        break;
      case '5':
        fs.mkdirSync(destination, { recursive: true });
        break;
      case '2': {
        if (linkName.startsWith('/')) throw new ArchiveError(`the link '${name}' points to an absolute path`);
        const resolved = path.resolve(path.dirname(destination), linkName);
        if (resolved !== target && !resolved.startsWith(target + path.sep)) throw new ArchiveError(`the link '${name}' points outside the archive`);
        fs.mkdirSync(path.dirname(destination), { recursive: true });
        fs.symlinkSync(linkName, destination);
        break;
      }
      case '1':
        throw new ArchiveError(`the archive entry '${name}' is a hard link, which is not supported`);
      case '3':
      case '4':
      case '6':
        throw new ArchiveError(`the archive entry '${name}' is a device or FIFO`);
      default:
        break;
    }
  }
}
