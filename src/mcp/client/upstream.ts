// One connection to an upstream MCP server with the official SDK client over Streamable
// HTTP: outbound bytes go through the egress guard's dispatcher, response bodies are
// counted against a cap, and servers that never issue a session id are accepted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { EgressBlockedError } from '../../network';

export interface UpstreamOptions {
  url: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  version: string;
  /** Total response bytes this connection may receive. */
  maxBytes: number;
  signal?: AbortSignal;
}

/** A failure reaching or understanding the upstream server (message says which). */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'blocked' | 'http' | 'transport' | 'too_large' | 'invalid' | 'timeout',
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

const EXCERPT = 200;

/** Root cause of a fetch failure (undici wraps the connector's error). */
function cause(error: unknown): unknown {
  let e = error as { cause?: unknown } | undefined;
  for (let i = 0; i < 5 && e && typeof e === 'object' && 'cause' in e && e.cause; i++) e = e.cause as { cause?: unknown };
  return e;
}

export class Upstream {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  private received = 0;
  /** The last HTTP failure seen (status and bounded excerpt), for error messages. */
  lastHttpFailure: string | null = null;
  blocked: EgressBlockedError | null = null;
  tooLarge = false;

  constructor(private readonly options: UpstreamOptions) {
    this.client = new Client({ name: 'svc', version: options.version }, { capabilities: {} });
    this.transport = new StreamableHTTPClientTransport(new URL(options.url), {
      requestInit: { headers: options.headers },
      fetch: (input, init) => this.fetch(input, init),
      // Server-initiated streams are not used (progress is not streamed, notifications ignored).
      reconnectionOptions: { maxReconnectionDelay: 1000, initialReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
    });
  }

  async connect(): Promise<void> {
    try {
      await this.client.connect(this.transport, { signal: this.options.signal });
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** Maps an SDK or fetch failure to an UpstreamError that says what went wrong. */
  explain(error: unknown): Error {
    if (error instanceof UpstreamError) return error;
    if (this.blocked) return new UpstreamError(this.blocked.message, 'blocked');
    if (this.tooLarge) return new UpstreamError(`the response exceeded ${this.options.maxBytes} bytes`, 'too_large');
    if (this.lastHttpFailure) return new UpstreamError(this.lastHttpFailure, 'http');
    const root = cause(error) as Error | undefined;
    if (root instanceof EgressBlockedError) return new UpstreamError(root.message, 'blocked');
    const message = (error as Error)?.message ?? String(error);
    return new UpstreamError(`transport error: ${root && root !== error && root.message ? root.message : message}`, 'transport');
  }

  private async fetch(input: string | URL, init?: RequestInit): Promise<Response> {
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(input, { ...(init as object), dispatcher: this.options.dispatcher } as Parameters<typeof undiciFetch>[1]);
    } catch (error) {
      const root = cause(error);
      if (root instanceof EgressBlockedError) this.blocked = root;
      throw error;
    }
    if (!response.ok && response.status !== 202 && !(init?.method === 'DELETE' && response.status === 405)) {
      const body = await response.text().catch(() => '');
      const excerpt = body.length > EXCERPT ? `${body.slice(0, EXCERPT)}…` : body;
      this.lastHttpFailure = `HTTP ${response.status}${excerpt ? `: ${excerpt.replace(/\s+/g, ' ').trim()}` : ''}`;
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers });
    }
    if (!response.body) return response as unknown as Response;
    const limit = this.options.maxBytes;
    const counted = (response.body as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.received += chunk.byteLength;
          if (this.received > limit) {
            this.tooLarge = true;
            controller.error(new UpstreamError(`the response exceeded ${limit} bytes`, 'too_large'));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers });
  }

  /** Bytes received so far on this connection. */
  get bytes(): number {
    return this.received;
  }

  /** Resets the per-response byte count (calls have a per-response cap). */
  resetCount(): void {
    this.received = 0;
    this.lastHttpFailure = null;
  }

  /** Ends the MCP session (HTTP DELETE when the server issued an id) and the connection. */
  async close(): Promise<void> {
    try {
      if (this.transport.sessionId) await this.transport.terminateSession();
    } catch {
      // The server may already have forgotten the session.
    }
    await this.client.close().catch(() => undefined);
  }
}
