// The HTTP client isomorphic-git talks through: undici over the egress-guarded
// dispatcher, 60 s per operation, credentials only when the remote asks for them.
import { request, type Dispatcher } from 'undici';
import type { HttpClient, GitHttpRequest, GitHttpResponse } from 'isomorphic-git';
import { deadlineSignal } from '../../network';

const GIT_TIMEOUT_MS = 60_000;

async function collect(body: GitHttpRequest['body']): Promise<Buffer | undefined> {
  if (!body) return undefined;
  const parts: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

export function gitHttpClient(dispatcher: Dispatcher, signal: AbortSignal): HttpClient {
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const cancel = deadlineSignal([signal], GIT_TIMEOUT_MS);
      try {
        const response = await request(req.url, {
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers: req.headers,
          body: await collect(req.body),
          dispatcher,
          signal: cancel.signal,
        });
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        const content = Buffer.from(await response.body.arrayBuffer());
        return { url: req.url, method: req.method, statusCode: response.statusCode, statusMessage: '', headers, body: oneChunk(content) };
      } finally {
        cancel.release();
      }
    },
  };
}

async function* oneChunk(content: Buffer): AsyncIterableIterator<Uint8Array> {
  yield new Uint8Array(content);
}
