// Messages between the server's thread (./dispatcher.ts) and the network thread (./worker.ts):
// one request per id, its response head, its body in transferred pieces, its end or failure.
// Bodies never travel as copies: each piece is an ArrayBuffer moved across.
import type { AddressGrants, BlockedKind } from '../address-policy';

/** What the network thread is started with (plain data). */
export interface NetworkThreadData {
  grants: AddressGrants;
  hosts: Readonly<Record<string, string>>;
}

export interface RequestMessage {
  t: 'request';
  id: number;
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string> | string[] | null;
  body: Uint8Array | string | null;
  headersTimeout: number | null;
  bodyTimeout: number | null;
  /**
   * An exchange the thread owns (src/stdlib/http's request path), absent for a plain
   * dispatch: the hop's limit (the thread's timer, from sending to the body's end), the body
   * cap, and whether a redirect answer is the server's to decide (its body is read away here
   * and only its head crosses, with `redirect`).
   */
  exchange?: { limitMs: number; maxBytes: number; redirects: boolean };
}

/** An exchange as src/stdlib/http's request path describes one hop (its body goes beside). */
export type ExchangeRequest = Pick<RequestMessage, 'origin' | 'path' | 'method' | 'headers'> & { exchange: NonNullable<RequestMessage['exchange']> };

/** Server → network thread: a request, its cancellation, or body bytes the server consumed (flow control). */
export type ToNetwork = RequestMessage | { t: 'abort'; id: number } | { t: 'ack'; id: number; bytes: number };

/** A failure as it crosses threads: enough to rebuild the error the HTTP client tells apart. */
export interface WireError {
  /** `limit`: the exchange's own limit (its thread timer); `too_large`: over the exchange's body cap. */
  kind: 'headers_timeout' | 'body_timeout' | 'limit' | 'too_large' | 'blocked' | 'other';
  message: string;
  code?: string;
  host?: string;
  kinds?: BlockedKind[];
}

/**
 * Network thread → server. `allowed` carries the connections the egress guard allowed since
 * the last message (the server's metrics live in its thread; one message per connection
 * would cost the server more than the count).
 */
export type FromNetwork =
  | { t: 'head'; id: number; status: number; statusText: string; raw: string[]; allowed: number; redirect?: true }
  | { t: 'data'; id: number; bytes: ArrayBuffer }
  | { t: 'end'; id: number; raw: string[] }
  | { t: 'fail'; id: number; error: WireError; allowed: number }
  | { t: 'blocked'; host: string; kinds: BlockedKind[] };
