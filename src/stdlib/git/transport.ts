// The HTTP client isomorphic-git talks through: undici over the egress-guarded
// dispatcher, 60 s per operation, credentials only when the remote asks for them.
import { request, type Dispatcher } from 'undici';
import type { HttpClient, GitHttpRequest, GitHttpResponse } from 'isomorphic-git';

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
      const response = await request(req.url, {
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: req.headers,
        body: await collect(req.body),
        dispatcher,
        signal: AbortSignal.any([signal, AbortSignal.timeout(GIT_TIMEOUT_MS)]),
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const content = Buffer.from(await response.body.arrayBuffer());
      return {
        url: req.url,
        method: req.method,
        statusCode: response.statusCode,
        statusMessage: '',
        headers,
        body: (async function* () {
          yield new Uint8Array(content);
        })(),
      };
    },
  };
}
