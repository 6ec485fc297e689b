// The benches' load generator for POST /v1/execute: HTTP/1.1 over kept-alive loopback
// sockets, each request written as one prepared buffer and each answer read by its
// Content-Length (or chunks). undici's request cost this process 0.2-0.5 ms of CPU per run,
// about a tenth of what a run costs the 2-core machine it shares with the server; this client
// costs about a third of that (bench/PROFILE.md, round 64).
// It speaks only what the benches send and the server answers: no TLS, no redirects.
import net from 'node:net';
import { Agent, request } from 'undici';

export interface LeanAnswer {
  status: number;
  body: string;
}

interface Waiting {
  resolve(answer: LeanAnswer): void;
  reject(error: Error): void;
}

/** One kept-alive connection, one request at a time. */
class Connection {
  readonly socket: net.Socket;
  /** When it last became idle (performance.now()). */
  idleSince = 0;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: Waiting | null = null;

  constructor(host: string, port: number, private readonly onIdle: (connection: Connection) => void, private readonly onClose: (connection: Connection) => void) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.received(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => {
      this.fail(new Error('the server closed the connection'));
      this.onClose(this);
    });
  }

  send(request: Buffer, waiting: Waiting): void {
    this.waiting = waiting;
    this.socket.write(request);
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const answer = parseAnswer(this.buffered);
    if (!answer) return;
    this.buffered = this.buffered.subarray(answer.consumed);
    const waiting = this.waiting;
    this.waiting = null;
    if (answer.close) this.socket.destroy();
    else this.onIdle(this);
    waiting?.resolve({ status: answer.status, body: answer.body });
  }

  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }
}

/** A complete answer at the start of `bytes`, or null while it is still arriving. */
function parseAnswer(bytes: Buffer): { status: number; body: string; consumed: number; close: boolean } | null {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return null;
  const head = bytes.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  const close = /\r\nconnection:\s*close/i.test(head);
  const bodyStart = headEnd + 4;
  if (length) {
    const end = bodyStart + Number(length[1]);
    if (bytes.length < end) return null;
    return { status, body: bytes.toString('utf8', bodyStart, end), consumed: end, close };
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`an answer without a length: ${head.split('\r\n')[0]}`);
  const pieces: Buffer[] = [];
  for (let at = bodyStart; ; ) {
    const sizeEnd = bytes.indexOf('\r\n', at);
    if (sizeEnd === -1) return null;
    const size = parseInt(bytes.toString('latin1', at, sizeEnd), 16);
    if (bytes.length < sizeEnd + 2 + size + 2) return null;
    if (size === 0) return { status, body: Buffer.concat(pieces).toString('utf8'), consumed: sizeEnd + 4, close };
    pieces.push(bytes.subarray(sizeEnd + 2, sizeEnd + 2 + size));
    at = sizeEnd + 2 + size + 2;
  }
}

/**
 * An idle connection older than this is closed, not sent to: the server closes a kept-alive
 * connection idle for 5 s (src/http/listener.ts), and a request written as it does so fails
 * (side-by-side leaves one server's connections idle while it measures the other).
 */
const STALE_AFTER_MS = 4_000;

/** Up to `connections` kept-alive connections to one server; requests beyond them wait for one. */
export class LeanClient {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queued: Array<{ request: Buffer; waiting: Waiting }> = [];
  private readonly host: string;
  private readonly port: number;

  constructor(url: string, private readonly connections: number) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:') throw new Error('the lean client speaks plain HTTP only');
    this.host = parsed.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(parsed.port);
  }

  /** A POST's bytes, made once and sent as often as wanted (the benches send the same request many times). */
  static postRequest(path: string, headers: Record<string, string>, body: string): Buffer {
    const bytes = Buffer.from(body, 'utf8');
    const lines = [`POST ${path} HTTP/1.1`, 'host: bench', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `content-length: ${bytes.length}`];
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
  }

  send(request: Buffer): Promise<LeanAnswer> {
    return new Promise((resolve, reject) => {
      const waiting = { resolve, reject };
      const connection = this.takeIdle() ?? (this.all.size < this.connections ? this.open() : null);
      if (connection) connection.send(request, waiting);
      else this.queued.push({ request, waiting });
    });
  }

  close(): void {
    for (const connection of this.all) connection.socket.destroy();
  }

  /** The most recently idle connection the server has not begun to close (a stale one is closed: its close forgets it). */
  private takeIdle(): Connection | undefined {
    for (let connection = this.idle.pop(); connection; connection = this.idle.pop()) {
      if (performance.now() - connection.idleSince < STALE_AFTER_MS) return connection;
      connection.socket.destroy();
    }
    return undefined;
  }

  private open(): Connection {
    const connection = new Connection(this.host, this.port, (idle) => this.reuse(idle), (closed) => this.forget(closed));
    this.all.add(connection);
    return connection;
  }

  private reuse(connection: Connection): void {
    const next = this.queued.shift();
    if (next) connection.send(next.request, next.waiting);
    else {
      connection.idleSince = performance.now();
      this.idle.push(connection);
    }
  }

  private forget(connection: Connection): void {
    this.all.delete(connection);
    const index = this.idle.indexOf(connection);
    if (index !== -1) this.idle.splice(index, 1);
    const next = this.queued.shift();
    if (next) this.open().send(next.request, next.waiting);
  }
}

/** POST /v1/execute as the benches send it: `run(body)` resolves to the parsed answer. */
export interface ExecuteClient {
  run(body: string): Promise<{ result?: unknown }>;
  close(): Promise<void>;
}

/**
 * The benches' execute client: this lean one, or undici's (`BENCH_CLIENT=undici`, what they
 * used until bench/PROFILE.md's round 64) to compare what the client itself costs. A body sent
 * again is not encoded again.
 */
export function executeClient(url: string, token: string, connections: number): ExecuteClient {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (process.env.BENCH_CLIENT === 'undici') return undiciClient(url, headers, connections);
  const client = new LeanClient(url, connections);
  let last: { body: string; request: Buffer } | null = null;
  return {
    async run(body) {
      if (last?.body !== body) last = { body, request: LeanClient.postRequest('/v1/execute', headers, body) };
      const answer = await client.send(last.request);
      if (answer.status !== 200) throw new Error(`POST /v1/execute answered ${answer.status}: ${answer.body}`);
      return JSON.parse(answer.body) as { result?: unknown };
    },
    async close() {
      client.close();
    },
  };
}

function undiciClient(url: string, headers: Record<string, string>, connections: number): ExecuteClient {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections });
  return {
    async run(body) {
      const response = await request(`${url}/v1/execute`, { method: 'POST', body, headers, dispatcher });
      return (await response.body.json()) as { result?: unknown };
    },
    close: () => dispatcher.close(),
  };
}
