// A real smart-HTTP git server for tests: HTTPS (self-signed, trusted by the server under
// test through NODE_EXTRA_CA_CERTS) in front of `git http-backend` run as CGI.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir } from '../harness';
import { selfSignedCertificate } from './tls';

export interface GitServer {
  url: string;
  root: string;
  certFile: string;
  requests: string[];
  close(): void;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } });
}

/** A bare repository `name.git` with one commit on main holding `files` and symbolic `links` (name → target). */
export function seedRepository(root: string, name: string, files: Record<string, string>, links: Record<string, string> = {}): void {
  const work = tempDir('svc-git-work-');
  git(work, 'init', '-q', '-b', 'main');
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(work, file), content);
  for (const [link, target] of Object.entries(links)) fs.symlinkSync(target, path.join(work, link));
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'seed');
  git(root, 'clone', '-q', '--bare', work, `${name}.git`);
  git(path.join(root, `${name}.git`), 'config', 'http.receivepack', 'true');
}

export async function startGitServer(): Promise<GitServer> {
  const root = tempDir('svc-git-root-');
  const dir = tempDir('svc-git-tls-');
  const { certFile, keyFile } = selfSignedCertificate(dir, 'git');
  const backend = path.join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
  const requests: string[] = [];
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const cgi = spawn(backend, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
        PATH: process.env.PATH ?? '/usr/bin:/bin',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('utf8').split('\r\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://localhost:${(server.address() as AddressInfo).port}`, root, certFile, requests, close: () => server.close() };
}
