// Bounds on client connections, so that connections cannot exhaust the server's file
// descriptors: in all (`max_connections`), per client address
// (`max_connections_per_address`) and not yet authenticated
// (`max_unauthenticated_connections`: connections none of whose requests has shown a valid
// token). An unauthenticated connection is the cheapest to open and the first to go: a new
// connection past a bound closes the oldest unauthenticated one (of that address, for the
// per-address bound) and is refused only when none is left, with a plain-text 503 naming
// the bound on plain HTTP. A connection that sends no request within `header_timeout` is
// closed (Node's own headersTimeout covers a request's headers once they start).
import type { Socket } from 'node:net';
import { metrics } from '../metrics';

export interface ConnectionBounds {
  /** `max_connections`. */
  total: number;
  /** `max_connections_per_address`. */
  perAddress: number;
  /** `max_unauthenticated_connections`. */
  unauthenticated: number;
  /** `header_timeout`, ms: until a connection's first request has its headers. */
  headerTimeoutMs: number;
}

type Bound = 'max_connections' | 'max_connections_per_address' | 'max_unauthenticated_connections';

/** The book each tracked socket belongs to (one per listener). */
const books = new WeakMap<Socket, ConnectionBook>();

/** A request on this socket authenticated: it no longer counts as unauthenticated. */
export function connectionAuthenticated(socket: Socket | undefined | null): void {
  if (socket) books.get(socket)?.authenticated(socket);
}

export class ConnectionBook {
  /** Every tracked connection and its client address. */
  private readonly open = new Map<Socket, string>();
  private readonly perAddress = new Map<string, number>();
  /** Connections without an authenticated request yet, oldest first. */
  private readonly unauthenticatedSockets = new Set<Socket>();

  constructor(
    private readonly bounds: ConnectionBounds,
    /** Whether a refused connection may be answered in plain HTTP (not before a TLS handshake). */
    private readonly plainHttp: boolean,
  ) {}

  counts(): { authenticated: number; unauthenticated: number } {
    return { authenticated: this.open.size - this.unauthenticatedSockets.size, unauthenticated: this.unauthenticatedSockets.size };
  }

  /** A new connection: tracked, or refused when a bound leaves no room. */
  accept(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    if (this.open.size >= this.bounds.total && !this.closeOldestUnauthenticated(null, 'max_connections')) {
      return this.refuse(socket, 'max_connections', `the server holds ${this.open.size} connections, the most max_connections (${this.bounds.total}) allows`);
    }
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (fromAddress >= this.bounds.perAddress && !this.closeOldestUnauthenticated(address, 'max_connections_per_address')) {
      return this.refuse(socket, 'max_connections_per_address', `this address holds ${fromAddress} connections, the most max_connections_per_address (${this.bounds.perAddress}) allows`);
    }
    if (this.unauthenticatedSockets.size >= this.bounds.unauthenticated) this.closeOldestUnauthenticated(null, 'max_unauthenticated_connections');
    this.open.set(socket, address);
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    this.unauthenticatedSockets.add(socket);
    books.set(socket, this);
    // Until its first request: Node's socket timeout handler closes an idle connection.
    socket.setTimeout(this.bounds.headerTimeoutMs);
    socket.once('close', () => this.release(socket));
  }

  /** A request arrived: the idle-before-request timeout no longer applies. */
  requestArrived(socket: Socket): void {
    if (this.open.has(socket)) socket.setTimeout(0);
  }

  authenticated(socket: Socket): void {
    this.unauthenticatedSockets.delete(socket);
  }

  private release(socket: Socket): void {
    const address = this.open.get(socket);
    if (address === undefined) return;
    this.open.delete(socket);
    this.unauthenticatedSockets.delete(socket);
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
  }

  /** Closes the oldest unauthenticated connection (of `address`, when given); false when there is none. */
  private closeOldestUnauthenticated(address: string | null, bound: Bound): boolean {
    for (const socket of this.unauthenticatedSockets) {
      if (address !== null && this.open.get(socket) !== address) continue;
      this.release(socket);
      socket.destroy();
      metrics.connectionsRefused.inc({ reason: bound });
      return true;
    }
    return false;
  }

  private refuse(socket: Socket, bound: Bound, why: string): void {
    metrics.connectionsRefused.inc({ reason: bound });
    if (!this.plainHttp) {
      socket.destroy();
      return;
    }
    const text = `${why}; retry later, or ask the operator to raise ${bound}\n`;
    socket.end(`HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`, () => socket.destroy());
  }
}
