// The code host (GitHub or GitHub Enterprise Server through `github_api_url`): resolve a ref
// to a commit and download the commit's tarball, following its redirect.
// Failures become the install error codes.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Agent, fetch, type Response } from 'undici';
import { PackageError, type PackageErrorCode } from '../errors';

export const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface CodeHostOptions {
  /** e.g. https://api.github.com (no trailing slash needed). */
  apiUrl: string;
  /** github_token_file, read afresh per install; null = anonymous (unless `token`). */
  tokenFile: string | null;
  /** A token given directly (the CLI's GH_TOKEN / GITHUB_TOKEN); the file wins when both are set. */
  token?: string | null;
  userAgent: string;
}

export interface Download {
  archive: Buffer;
  /** `sha256:` + hex of the bytes as received. */
  digest: string;
}

/** The token of this install: the file re-read now, whitespace trimmed. */
export function readToken(tokenFile: string | null): string | null {
  if (tokenFile === null) return null;
  try {
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    if (token === '') throw new Error('the file is empty');
    return token;
  } catch (error) {
    // The message names the setting, never the token.
    throw new PackageError('github_token_unavailable', `github_token_file could not be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function rateLimited(response: Response): boolean {
  return response.status === 429 || (response.status === 403 && response.headers.get('x-ratelimit-remaining') === '0');
}

export class CodeHost {
  private readonly token: string | null;
  private readonly base: string;
  /** Connections of this install only: nothing idle is reused across installs. */
  private readonly agent = new Agent({ keepAliveTimeout: 1_000 });

  constructor(private readonly options: CodeHostOptions) {
    this.token = readToken(options.tokenFile) ?? options.token ?? null;
    this.base = options.apiUrl.replace(/\/+$/, '');
  }

  private headers(accept: string): Record<string, string> {
    return { accept, 'user-agent': this.options.userAgent, ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) };
  }

  private async send(url: string, accept: string, failure: PackageErrorCode, what: string): Promise<Response> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      let response: Response;
      try {
        // The token goes only to the API origin, never to a redirect target elsewhere.
        const sameOrigin = new URL(current).origin === new URL(this.base).origin;
        response = await fetch(current, { headers: sameOrigin ? this.headers(accept) : { accept, 'user-agent': this.options.userAgent }, redirect: 'manual', dispatcher: this.agent });
      } catch (error) {
        throw new PackageError(failure, `${what}: the code host could not be reached (${(error as Error).cause ? ((error as Error).cause as Error).message : (error as Error).message})`);
      }
      if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
        await response.body?.cancel();
        current = new URL(response.headers.get('location')!, current).toString();
        continue;
      }
      return response;
    }
    throw new PackageError(failure, `${what}: too many redirects`);
  }

  private async refuse(response: Response, failure: PackageErrorCode, what: string): Promise<never> {
    await response.body?.cancel();
    if (rateLimited(response)) throw new PackageError('github_rate_limited', `${what}: the code host's rate limit is exhausted (HTTP ${response.status}); retry later or configure github_token_file`);
    if (response.status === 404 || response.status === 401 || response.status === 403 || response.status === 422) {
      throw new PackageError('github_access', `${what}: not found or not accessible (HTTP ${response.status}); check the repository and ref${this.token ? '' : ', and configure github_token_file for a private repository'}`);
    }
    throw new PackageError(failure, `${what}: the code host answered HTTP ${response.status}`);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** A 40-hex ref as is; otherwise GET {api}/repos/{owner}/{repo}/commits/{ref} (HEAD = default branch). */
  async resolve(owner: string, repo: string, ref: string | null, failure: PackageErrorCode = 'resolve_failed'): Promise<string> {
    if (ref !== null && /^[0-9a-f]{40}$/i.test(ref)) return ref.toLowerCase();
    const what = `resolving ${owner}/${repo}@${ref ?? 'HEAD'}`;
    const url = `${this.base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/commits/${encodeURIComponent(ref ?? 'HEAD')}`;
    const response = await this.send(url, 'application/vnd.github.sha', failure, what);
    if (!response.ok) return this.refuse(response, failure, what);
    const text = (await response.text()).trim();
    if (!/^[0-9a-f]{40}$/i.test(text)) throw new PackageError(failure, `${what}: the code host did not answer a commit id`);
    return text.toLowerCase();
  }

  /** GET {api}/repos/{owner}/{repo}/tarball/{sha}, at most 512 MiB, digest of the bytes as received. */
  async download(owner: string, repo: string, sha: string, failure: PackageErrorCode = 'download_failed'): Promise<Download> {
    const what = `downloading ${owner}/${repo}@${sha}`;
    const url = `${this.base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/tarball/${sha}`;
    const response = await this.send(url, 'application/vnd.github+json', failure, what);
    if (!response.ok || !response.body) return this.refuse(response, failure, what);
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > MAX_ARCHIVE_BYTES) {
      await response.body.cancel();
      throw new PackageError(failure, `${what}: the archive is larger than 512 MiB`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const hash = createHash('sha256');
    try {
      for await (const chunk of response.body) {
        total += chunk.byteLength;
        if (total > MAX_ARCHIVE_BYTES) throw new PackageError(failure, `${what}: the archive is larger than 512 MiB`);
        const buffer = Buffer.from(chunk);
        hash.update(buffer);
        chunks.push(buffer);
      }
    } catch (error) {
      if (error instanceof PackageError) throw error;
      throw new PackageError(failure, `${what}: the transfer failed (${(error as Error).message})`);
    }
    return { archive: Buffer.concat(chunks), digest: `sha256:${hash.digest('hex')}` };
  }
}
