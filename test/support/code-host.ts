// A loopback HTTPS server that plays the code host's REST API for Package installs:
// `GET /repos/{owner}/{repo}/commits/{ref}` answers a commit id, `GET …/tarball/{sha}`
// redirects to a codeload-style URL serving a .tar.gz made at test time from a file map.
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { selfSignedCertificate } from './tls';
import type { FileMap } from './packages';

function header(name: string, size: number, type: string, linkName = ''): Buffer {
  const block = Buffer.alloc(512);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  block.write(base, 0, 100, 'utf8');
  block.write(type === '5' ? '0000755\0' : '0000644\0', 100);
  block.write('0000000\0', 108);
  block.write('0000000\0', 116);
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  block.write('00000000000\0', 136);
  block.write('        ', 148);
  block.write(type, 156);
  block.write(linkName, 157, 100);
  block.write('ustar\0', 257);
  block.write('00', 263);
  block.write(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

export interface TarEntry {
  name: string;
  body?: string | Buffer;
  /** '0' file (default), '5' directory, '2' symlink, '1' hard link, '3' character device, 'x' pax header, 'L' GNU long name. */
  type?: string;
  link?: string;
}

/** Entry types whose body follows the header. */
const WITH_DATA = new Set(['0', 'x', 'g', 'L', 'K']);

/** An uncompressed ustar stream of raw entries (names used as given), with its two end blocks. */
export function tarStream(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const type = entry.type ?? '0';
    const size = WITH_DATA.has(type) ? body.length : 0;
    blocks.push(header(entry.name, size, type, entry.link));
    if (size > 0) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A gzip'd ustar archive of raw entries (names used as given). */
export function tarGz(entries: TarEntry[]): Buffer {
  return gzipSync(tarStream(entries));
}

/** The archive GitHub would serve for a commit: every file under `<owner>-<repo>-<sha7>/`. */
export function repositoryArchive(owner: string, repo: string, sha: string, files: FileMap): Buffer {
  const top = `${owner}-${repo}-${sha.slice(0, 7)}`;
  return tarGz([{ name: `${top}/`, type: '5' }, ...Object.entries(files).map(([name, body]) => ({ name: `${top}/${name}`, body }))]);
}

export function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

export interface Commit {
  sha: string;
  archive: Buffer;
}

export interface CodeHost {
  url: string;
  certFile: string;
  /** `owner/repo` → ref or sha → commit. */
  addCommit(repository: string, refs: string[], files: FileMap | Buffer): Commit;
  /** Answers this status (with headers) for requests whose path matches. */
  failWhen(pattern: RegExp, status: number, headers?: Record<string, string>): void;
  clearFailures(): void;
  /** `METHOD path authorization` of every request. */
  requests: Array<{ path: string; authorization: string | null }>;
  digestOf(commit: Commit): string;
  close(): void;
}

export async function startCodeHost(dir: string): Promise<CodeHost> {
  const { certFile, keyFile } = selfSignedCertificate(dir, 'codehost');
  const commits = new Map<string, Map<string, Commit>>();
  const failures: Array<{ pattern: RegExp; status: number; headers: Record<string, string> }> = [];
  const requests: CodeHost['requests'] = [];
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    requests.push({ path: url.pathname, authorization: req.headers.authorization ?? null });
    const failure = failures.find((f) => f.pattern.test(url.pathname));
    if (failure) {
      res.writeHead(failure.status, failure.headers);
      res.end('{"message":"failure"}');
      return;
    }
    const commitMatch = /^\/repos\/([^/]+)\/([^/]+)\/commits\/(.+)$/.exec(url.pathname);
    if (commitMatch) {
      const commit = commits.get(`${commitMatch[1]}/${commitMatch[2]}`.toLowerCase())?.get(decodeURIComponent(commitMatch[3]));
      if (!commit || req.headers.accept !== 'application/vnd.github.sha') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"message":"Not Found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/vnd.github.sha' });
      res.end(commit.sha);
      return;
    }
    const tarballMatch = /^\/repos\/([^/]+)\/([^/]+)\/tarball\/([0-9a-f]{40})$/.exec(url.pathname);
    if (tarballMatch) {
      if (!commits.get(`${tarballMatch[1]}/${tarballMatch[2]}`.toLowerCase())?.get(tarballMatch[3])) {
        res.writeHead(404);
        res.end('{"message":"Not Found"}');
        return;
      }
      res.writeHead(302, { location: `/codeload/${tarballMatch[1]}/${tarballMatch[2]}/tar.gz/${tarballMatch[3]}` });
      res.end();
      return;
    }
    const codeloadMatch = /^\/codeload\/([^/]+)\/([^/]+)\/tar\.gz\/([0-9a-f]{40})$/.exec(url.pathname);
    const commit = codeloadMatch ? commits.get(`${codeloadMatch[1]}/${codeloadMatch[2]}`.toLowerCase())?.get(codeloadMatch[3]) : undefined;
    if (commit) {
      res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': commit.archive.length });
      res.end(commit.archive);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    certFile,
    requests,
    addCommit(repository, refs, files) {
      const [owner, repo] = repository.split('/');
      const sha = fakeSha(`${repository}:${refs.join(',')}:${Math.random()}`);
      const archive = Buffer.isBuffer(files) ? files : repositoryArchive(owner, repo, sha, files);
      const commit = { sha, archive };
      const byRef = commits.get(repository.toLowerCase()) ?? new Map<string, Commit>();
      for (const ref of [...refs, sha]) byRef.set(ref, commit);
      commits.set(repository.toLowerCase(), byRef);
      return commit;
    },
    failWhen(pattern, status, headers = {}) {
      failures.push({ pattern, status, headers });
    },
    clearFailures() {
      failures.length = 0;
    },
    digestOf(commit) {
      return `sha256:${createHash('sha256').update(commit.archive).digest('hex')}`;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

