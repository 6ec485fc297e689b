// The network listener: plain HTTP or HTTPS around the hono app, with the TLS handshake
// limits (128 pending, 10 s each), the connection bounds and header timeout
// (connections.ts), tracking of in-flight requests for the shutdown drain, and closing of
// idle keep-alive connections when the drain starts.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AppEnv } from './types';
import { ConnectionBook, type ConnectionBounds } from './connections';

const MAX_PENDING_HANDSHAKES = 128;
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** An answered request's unread body is read and dropped up to this size, then the socket closes. */
const MAX_DISCARD_BYTES = 64 * 1024 * 1024;
/** ...or when the client sends nothing for this long. */
const DISCARD_IDLE_MS = 10_000;

export interface ListenerOptions {
  bind: string;
  port: number;
  tls: { cert: Buffer; key: Buffer } | null;
  /** Connection bounds and the header timeout (default: none beyond Node's own). */
  connections?: ConnectionBounds;
  /** Called before any response's head is written (the audit writes the records it holds). */
  beforeAnswer?: () => void;
}

/** Node's response with a call before its head is written (an implicit head goes through writeHead too). */
function responseClass(beforeAnswer: () => void): typeof http.ServerResponse {
  const writeHead = http.ServerResponse.prototype.writeHead as (this: http.ServerResponse, ...args: unknown[]) => http.ServerResponse;
  class AnsweringResponse extends http.ServerResponse {}
  AnsweringResponse.prototype.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    beforeAnswer();
    return writeHead.apply(this, args);
  } as http.ServerResponse['writeHead'];
  return AnsweringResponse as typeof http.ServerResponse;
}

export interface Listener {
  /** `ip:port` (`[v6]:port`) of the bound socket. */
  address: string;
  protocol: 'http' | 'https';
  /** Requests whose handlers have not finished. */
  inFlight(): number;
  /** Resolves when no handler is in flight. */
  idle(): Promise<void>;
  /** Stop accepting connections and close idle keep-alive connections. */
  stopAccepting(): void;
  /** Drop every remaining connection. */
  dropAll(): void;
  /** Open client connections, by whether one of their requests has authenticated. */
  connections(): { authenticated: number; unauthenticated: number };
}

function formatAddress(info: AddressInfo): string {
  return info.family === 'IPv6' || info.address.includes(':') ? `[${info.address}]:${info.port}` : `${info.address}:${info.port}`;
}

export async function startListener(app: Hono<AppEnv>, options: ListenerOptions): Promise<Listener> {
  // The adapter's own clean-up closes the socket 500 ms after the response while a slow
  // client is still sending (it then sees EPIPE, not the 413); discardUnreadBody does it.
  const handle = getRequestListener(app.fetch as Parameters<typeof getRequestListener>[0], { autoCleanupIncoming: false });
  let inFlight = 0;
  let idleWaiters: Array<() => void> = [];

  const book = options.connections ? new ConnectionBook(options.connections, !options.tls) : null;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    book?.requestArrived(req.socket);
    inFlight++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight--;
      if (inFlight === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const wake of waiters) wake();
      }
    };
    res.once('finish', finish);
    res.once('close', finish);
    res.once('finish', () => discardUnreadBody(req));
    void handle(req, res);
  };

  const classes = options.beforeAnswer ? { ServerResponse: responseClass(options.beforeAnswer) } : {};
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key, handshakeTimeout: HANDSHAKE_TIMEOUT_MS, ...classes }, onRequest)
    : http.createServer(classes, onRequest);
  server.keepAliveTimeout = 5_000;
  if (options.connections) {
    server.headersTimeout = options.connections.headerTimeoutMs;
    // Plain connections are counted as they open; TLS ones once their handshake is done
    // (until then the handshake limits hold them).
    if (options.tls) server.on('secureConnection', (socket: Socket) => book!.accept(socket));
    else server.on('connection', (socket: Socket) => book!.accept(socket));
  }

  if (options.tls) limitPendingHandshakes(server as https.Server);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.bind, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    address: formatAddress(server.address() as AddressInfo),
    protocol: options.tls ? 'https' : 'http',
    inFlight: () => inFlight,
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    stopAccepting() {
      server.close();
      server.closeIdleConnections();
    },
    dropAll() {
      server.closeAllConnections();
    },
    connections: () => book?.counts() ?? { authenticated: 0, unauthenticated: 0 },
  };
}

/**
 * A response sent before the body was read (413, 401, 415...) leaves the client writing:
 * keep reading and dropping its bytes so it finishes and reads the answer, and the
 * connection stays usable. Bounded in bytes and idle time; past that the socket closes.
 */
function discardUnreadBody(req: http.IncomingMessage): void {
  if (req.readableEnded || req.destroyed) return;
  // Readers of the request (the adapter's body buffer) must not keep what is dropped.
  req.removeAllListeners('data');
  let bytes = 0;
  const close = () => {
    cleanup();
    req.socket.destroy();
  };
  const timer = setTimeout(close, DISCARD_IDLE_MS);
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_DISCARD_BYTES) return close();
    timer.refresh();
  };
  const cleanup = () => {
    clearTimeout(timer);
    req.off('data', onData);
  };
  req.on('data', onData);
  req.once('end', cleanup);
  req.once('close', cleanup);
  req.resume();
}

/**
 * At most 128 connections may be mid-handshake; further ones are dropped at once. A
 * handshake ends in 'secureConnection' or 'tlsClientError' (which also covers the 10 s
 * handshake timeout and clients that hang up mid-handshake).
 */
function limitPendingHandshakes(server: https.Server): void {
  let pending = 0;
  server.on('connection', (socket: Socket) => {
    if (pending >= MAX_PENDING_HANDSHAKES) {
      socket.destroy();
      return;
    }
    pending++;
  });
  server.on('secureConnection', () => {
    pending = Math.max(0, pending - 1);
  });
  server.on('tlsClientError', () => {
    pending = Math.max(0, pending - 1);
  });
}
