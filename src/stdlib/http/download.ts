// `http.download`: streams a response into a file of the file area. Gated as
// `http.download` and `fs.write` before anything is sent; written through a temporary
// file and renamed, so a failure (size cap, quota, denied hop) leaves no file.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { QuotaExceededError } from '../../policy';
import { openExclusive, type FileArea } from '../../vfs';
import { allowedPath, area, hostWork, requireWritable } from '../fs/area';
import type { AllowedGate, GateRequest, HostCall, RunContext } from '../types';
import { follow, headersOf, hostOf, parseUrl, portOf, services, type HttpServices } from './client';

const MAX_DOWNLOAD_BYTES = 52_428_800;
const DEFAULT_TIMEOUT_MS = 60_000;

interface DownloadOptions {
  overwrite?: boolean;
  maxBytes?: number;
  headers?: unknown;
  timeout?: number;
  decompress?: boolean;
}

function decoderFor(encoding: string | undefined, urlPath: string): Transform | null {
  const kind = (encoding ?? '').toLowerCase().trim();
  if (kind === 'gzip' || (!kind && urlPath.endsWith('.gz'))) return zlib.createGunzip();
  if (kind === 'deflate') return zlib.createInflate();
  if (kind === 'br') return zlib.createBrotliDecompress();
  if (kind === 'zstd' || (!kind && urlPath.endsWith('.zst'))) {
    const create = (zlib as unknown as { createZstdDecompress?: () => Transform }).createZstdDecompress;
    if (!create) throw new Error('http.download: zstd decompression is not available on this server\'s Node.js version');
    return create();
  }
  return null;
}

export interface DownloadParams {
  http: HttpServices;
  files: FileArea;
  url: URL;
  headers: Record<string, string>;
  maxBytes: number;
  timeout: number;
  overwrite: boolean;
  decompress: boolean;
  /** `http.download` then `fs.write`, both decided before anything is sent. */
  gates: GateRequest[];
}

export function prepareDownload(run: RunContext, args: unknown[]): DownloadParams {
  const http = services(run);
  const files = area(run, 'download');
  const url = parseUrl(args[0], http, 'download');
  if (typeof args[1] !== 'string' || args[1] === '') throw new TypeError('http.download: path must be a non-empty string');
  const rawPath = args[1];
  const options = (args[2] ?? {}) as DownloadOptions;
  if (typeof options !== 'object') throw new TypeError('http.download: options must be an object');
  const maxBytes = options.maxBytes ?? MAX_DOWNLOAD_BYTES;
  if (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes < 0 || maxBytes > MAX_DOWNLOAD_BYTES) throw new RangeError(`http.download: maxBytes must be a whole number from 0 to ${MAX_DOWNLOAD_BYTES}`);
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeout !== 'number' || timeout <= 0) throw new RangeError('http.download: timeout must be a positive number of milliseconds');
  const overwrite = options.overwrite === true;
  const decompress = options.decompress === true;
  const headers = headersOf(options.headers, 'download');
  headers['user-agent'] ??= http.userAgent;
  const gates = [
    { capability: 'http.download', context: { host: hostOf(url), port: portOf(url), url_path: url.pathname, vfs_path: rawPath, max_bytes: maxBytes, overwrite, decompress } },
    { capability: 'fs.write', context: { path: rawPath, max_bytes: maxBytes } },
  ];
  return { http, files, url, headers, maxBytes, timeout, overwrite, decompress, gates };
}

export async function download(call: HostCall, params: DownloadParams, allowed: readonly AllowedGate[]) {
  const { http, files, url, headers, maxBytes, timeout, overwrite, decompress } = params;
  const context = allowed[0].context;
  const writeContext = allowed[1].context;
  const target = allowedPath(allowed, 'path', 1);
  const { hostPath, place, root } = hostWork('download', target, () => files.resolve(target));
  requireWritable(call, place, 'fs.write', writeContext, target);
  if (!overwrite && fs.existsSync(hostPath)) throw new Error(`http.download ${target}: the file exists; pass overwrite: true to replace it`);
  if (!fs.existsSync(path.dirname(hostPath))) throw new Error(`http.download ${target}: the parent directory does not exist`);

  const started = Date.now();
  // The timeout covers waiting for the answer too, not only its body.
  const { response, url: finalUrl } = await follow(call, http, 'download', { verb: 'GET', url, headers, body: null, capability: 'http.download', context, timeoutMs: timeout });
  const room = place.sizeLimit === null ? Number.POSITIVE_INFINITY : place.sizeLimit - (await files.usage(place)) + (fs.lstatSync(hostPath, { throwIfNoEntry: false })?.size ?? 0);
  const temporary = path.join(path.dirname(hostPath), `.svc-write-download-${process.pid}-${Date.now()}`);
  let written = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      if (written > maxBytes) return done(new RangeError(`http.download ${target}: the body is larger than maxBytes (${maxBytes} bytes); nothing was written`));
      if (written > room) {
        const quota = new QuotaExceededError(`http.download ${target}: the filesystem's size limit of ${place.sizeLimit} bytes would be exceeded; nothing was written`);
        return done(call.refuse('fs.write', writeContext, 'quota', quota));
      }
      done(null, chunk);
    },
  });
  let fd: number;
  try {
    // Created exclusively and checked to lie inside the area (src/vfs), never through a link.
    fd = hostWork('download', target, () => openExclusive({ hostPath: temporary, root }));
  } catch (error) {
    response.body.destroy();
    throw error;
  }
  const decoder = decompress ? decoderFor(response.headers['content-encoding'] as string | undefined, finalUrl.pathname) : null;
  const timer = setTimeout(() => response.body.destroy(new Error(`http.download: timed out after ${timeout} ms`)), Math.max(1, timeout - (Date.now() - started)));
  try {
    const stages = [response.body, ...(decoder ? [decoder] : []), counter, fs.createWriteStream('', { fd })] as unknown as Parameters<typeof pipeline>;
    const replacing = fs.lstatSync(hostPath, { throwIfNoEntry: false })?.size ?? 0;
    await pipeline(...stages);
    fs.renameSync(temporary, hostPath);
    files.recordWrite(place, written - replacing);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    clearTimeout(timer);
  }
  call.charge(written / 4);
  return {
    status: response.statusCode,
    bytesWritten: written,
    contentType: String(response.headers['content-type'] ?? ''),
    duration_ms: Date.now() - started,
    finalUrl: finalUrl.href,
    path: target,
  };
}
