// The harness's HTTP client: node:http(s) with kept-alive connections. undici's fetch cost a
// test process about 0.13 CPU-s to load (111 modules run at startup) in every integration file
// that asks the server anything, and the harness needs none of fetch's features: it sends one
// body, reads the whole answer and hands back its status, headers and text.
// Kept as fetch sent it, since tests assert what the server does with it: a string body
// without a content type is `text/plain;charset=UTF-8`, a POST or PUT without a body says
// `content-length: 0`, a body's length is given (never chunked), redirects are not the
// server's (it answers none; the harness would not follow one).
import http from 'node:http';
import https from 'node:https';

export interface PlainReply {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

// A kept-alive connection is reused only within 1 s (the server closes idle ones after 5 s):
// on a loaded machine a test process stalled between picking an idle connection and writing
// to it met the server closing it. Idle sockets past the agent's timeout are destroyed.
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 1_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 1_000, rejectUnauthorized: false }),
};

/** The response headers as fetch's `Headers.get` reads them: any case, repeated values joined with ", ". */
function headerReader(headers: http.IncomingHttpHeaders): PlainReply['headers'] {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * Sends one request and reads the whole answer. A request of any method that meets a closed
 * connection on a kept-alive socket it reused is sent again (on the next idle socket, at last
 * on a fresh one): the server closes only idle connections, so it never read that request. A
 * test process the machine stalled past the server's 5 s idle timeout took such a socket
 * before its own 1 s timer could drop it, and a POST then failed with ECONNRESET.
 */
export async function sendRequest(url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<PlainReply> {
  for (let attempt = 1; ; attempt++) {
    const reply = await sendOnce(url, method, headers, body, attempt < MAX_ATTEMPTS);
    if (reply !== CLOSED_WHILE_IDLE) return reply;
  }
}

/** Attempts of one request; past the idle sockets an agent keeps, each gets a fresh connection. */
const MAX_ATTEMPTS = 10;
const CLOSED_WHILE_IDLE = Symbol('the reused connection was closed while idle');

/** One attempt; CLOSED_WHILE_IDLE (when `mayRetry`) if it met a reused connection the server had closed. */
function sendOnce(url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined, mayRetry: boolean): Promise<PlainReply | typeof CLOSED_WHILE_IDLE> {
  const target = new URL(url);
  const agent = agents[target.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new Error(`the harness speaks http and https, not ${target.protocol}`));
  const sent: Record<string, string> = { ...headers };
  const has = (name: string) => Object.keys(sent).some((key) => key.toLowerCase() === name);
  if (body !== undefined) {
    if (typeof body === 'string' && !has('content-type')) sent['content-type'] = 'text/plain;charset=UTF-8';
    if (!has('content-length')) sent['content-length'] = String(Buffer.byteLength(body));
  } else if ((method === 'POST' || method === 'PUT') && !has('content-length')) {
    sent['content-length'] = '0';
  }
  const module = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = module.request(target, { method, headers: sent, agent }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => resolve({ status: response.statusCode ?? 0, headers: headerReader(response.headers), text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.once('error', (error: Error) => (mayRetry && request.reusedSocket && !answered && isClosedConnection(error) ? resolve(CLOSED_WHILE_IDLE) : reject(error)));
    request.end(body);
  });
}

/** Whether a request failed because the server closed the kept-alive connection it was sent on. */
function isClosedConnection(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
