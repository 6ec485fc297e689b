// One connection to an upstream MCP server with the official SDK client over Streamable
// HTTP: outbound bytes go through the egress guard's dispatcher, response bodies are
// counted against a cap, and servers that never issue a session id are accepted. Calls
// share the connection concurrently (the SDK matches replies to requests by JSON-RPC id);
// each call's response bytes and failures are counted apart in its own Exchange.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { EgressBlockedError } from '../../network';

export interface UpstreamOptions {
  url: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  version: string;
  /** Response bytes one call may receive (and the connection's own traffic in total). */
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

/** What one exchange (a call, or the connection's own traffic) received and what went wrong. */
export class Exchange {
  /** Response bytes received. */
  received = 0;
  /** The last HTTP failure seen (status and bounded excerpt), for error messages. */
  lastHttpFailure: string | null = null;
  blocked: EgressBlockedError | null = null;
  tooLarge = false;
}

/** The exchange an outbound request belongs to: the SDK sends a call's request in the caller's async context. */
const currentExchange = new AsyncLocalStorage<Exchange>();

export class Upstream {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** The connection's own traffic (initialize, server streams, cancellations, the DELETE): capped in total. */
  private readonly own = new Exchange();

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

  /** The connection's outbound request was refused by the egress guard (connect, listing). */
  get blocked(): EgressBlockedError | null {
    return this.own.blocked;
  }

  /** Runs one call with its own exchange: its requests' response bytes and failures are counted there. */
  within<T>(exchange: Exchange, work: () => Promise<T>): Promise<T> {
    return currentExchange.run(exchange, work);
  }

  /** Maps an SDK or fetch failure (of `exchange`, else the connection's own traffic) to an UpstreamError that says what went wrong. */
  explain(error: unknown, exchange: Exchange = this.own): Error {
    if (error instanceof UpstreamError) return error;
    if (exchange.blocked) return new UpstreamError(exchange.blocked.message, 'blocked');
    if (exchange.tooLarge) return new UpstreamError(`the response exceeded ${this.options.maxBytes} bytes`, 'too_large');
    if (exchange.lastHttpFailure) return new UpstreamError(exchange.lastHttpFailure, 'http');
    const root = cause(error) as Error | undefined;
    if (root instanceof EgressBlockedError) return new UpstreamError(root.message, 'blocked');
    const message = (error as Error)?.message ?? String(error);
    return new UpstreamError(`transport error: ${root && root !== error && root.message ? root.message : message}`, 'transport');
  }

  private async fetch(input: string | URL, init?: RequestInit): Promise<Response> {
    const exchange = currentExchange.getStore() ?? this.own;
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(input, { ...(init as object), dispatcher: this.options.dispatcher } as Parameters<typeof undiciFetch>[1]);
    } catch (error) {
      const root = cause(error);
      if (root instanceof EgressBlockedError) exchange.blocked = root;
      throw error;
    }
    if (!response.ok && response.status !== 202 && !(init?.method === 'DELETE' && response.status === 405)) {
      const body = await response.text().catch(() => '');
      const excerpt = body.length > EXCERPT ? `${body.slice(0, EXCERPT)}…` : body;
      exchange.lastHttpFailure = `HTTP ${response.status}${excerpt ? `: ${excerpt.replace(/\s+/g, ' ').trim()}` : ''}`;
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers });
    }
    if (!response.body) return response as unknown as Response;
    const limit = this.options.maxBytes;
    const counted = (response.body as ReadableStream<Uint8Array>).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          exchange.received += chunk.byteLength;
          if (exchange.received > limit) {
            exchange.tooLarge = true;
            controller.error(new UpstreamError(`the response exceeded ${limit} bytes`, 'too_large'));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers });
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
