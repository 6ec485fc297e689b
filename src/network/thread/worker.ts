// The network thread (built as dist/network-worker.js): sends the server's outbound HTTP
// requests for programs through its own egress guard, so undici's clients, parsers, sockets
// and read buffers live, and are collected, in this thread's heap instead of the server's.
// Each response comes back as a head, body pieces of up to PIECE_BYTES (fresh ArrayBuffers,
// transferred), and an end or a failure; at most WINDOW_BYTES per body wait for the server.
import { parentPort, workerData } from 'node:worker_threads';
import { errors, type Dispatcher } from 'undici';
import { reportThreadHeap } from '../../../sandbox/thread-heap';
import { EgressBlockedError, EgressGuard } from '../egress-guard';
import type { FromNetwork, NetworkThreadData, RequestMessage, ToNetwork, WireError } from './protocol';

/**
 * A streamed body reaches a runner as its pieces, each its own message through the server's
 * thread (and its runner's channel): 512 KiB pieces cost that thread half the messages,
 * serializations and write callbacks of 256 KiB ones. Two pieces per body in flight (one
 * written to the runner while the next is read), the same bytes as four smaller ones.
 */
const PIECE_BYTES = 512 * 1024;
const WINDOW_BYTES = 2 * PIECE_BYTES;
/** A redirect answer's body read away (so its connection can be reused) before it is closed instead. */
const REDIRECT_DUMP_BYTES = 128 * 1024;

const port = parentPort!;
reportThreadHeap('network');
const { grants, hosts } = workerData as NetworkThreadData;
let allowed = 0;
const post = (message: FromNetwork, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);
const guard = new EgressGuard({
  grants,
  hosts,
  onBlocked: (host, kinds) => post({ t: 'blocked', host, kinds }),
  countConnection: (outcome) => {
    if (outcome === 'allowed') allowed++;
  },
});
const dispatcher = guard.dispatcher();
const calls = new Map<number, Call>();

/** Connections allowed since the last message that carried the count. */
function takeAllowed(): number {
  const count = allowed;
  allowed = 0;
  return count;
}

/** Names in latin1 and values in UTF-8, as undici decodes them. */
function rawStrings(raw: Buffer[] | string[] | null | undefined): string[] {
  if (!raw) return [];
  return raw.map((item, i) => (typeof item === 'string' ? item : item.toString(i % 2 === 0 ? 'latin1' : 'utf8')));
}

function wireError(error: unknown): WireError {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  const blocked = error instanceof EgressBlockedError ? error : cause instanceof EgressBlockedError ? cause : null;
  if (blocked) return { kind: 'blocked', message: blocked.message, host: blocked.host, kinds: blocked.kinds };
  if (error instanceof errors.HeadersTimeoutError) return { kind: 'headers_timeout', message: error.message };
  if (error instanceof errors.BodyTimeoutError) return { kind: 'body_timeout', message: error.message };
  if (error instanceof ExchangeLimitError) return { kind: error.kind, message: error.message };
  const code = (cause as { code?: unknown })?.code;
  return { kind: 'other', message: (cause as Error)?.message ?? String(cause), ...(typeof code === 'string' ? { code } : {}) };
}

/** An exchange stopped by its own limit or its body cap (crosses as its kind). */
class ExchangeLimitError extends Error {
  constructor(readonly kind: 'limit' | 'too_large') {
    super(kind === 'limit' ? 'the exchange ran out of time' : 'the body is over its cap');
  }
}

/** The one value of a header in undici's raw pairs, or null when it is absent or repeated. */
function single(raw: Buffer[], name: string): string | null {
  let found: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length !== name.length || raw[i].toString('latin1').toLowerCase() !== name) continue;
    if (found !== null) return null;
    found = raw[i + 1].toString('utf8');
  }
  return found;
}

/**
 * One request in flight: undici's (legacy) handler, relaying what arrives to the server. An
 * exchange (RequestMessage.exchange) also has its limit timer here, its body cap, and its
 * redirect answers read away with only their head sent.
 */
class Call {
  private timer: NodeJS.Timeout | null = null;
  private received = 0;
  /** A redirect answer whose head went to the server: its body is read and dropped. */
  private dumping = false;
  private abortUndici: ((reason?: Error) => void) | null = null;
  private resumeUndici: (() => void) | null = null;
  private staged: Buffer[] = [];
  private stagedBytes = 0;
  private flushing = false;
  private unacked = 0;
  private paused = false;
  /** The server gave up on it: nothing more is posted. */
  private cancelled = false;

  constructor(
    readonly id: number,
    private readonly exchange: RequestMessage['exchange'] | undefined,
  ) {
    if (exchange) this.timer = setTimeout(() => this.stop(new ExchangeLimitError('limit')), exchange.limitMs);
  }

  cancel(): void {
    this.cancelled = true;
    this.settle();
    this.abortUndici?.(new errors.RequestAbortedError());
  }

  /** Ends the request with `error` (reported to the server unless it is no longer listening). */
  private stop(error: Error): void {
    if (this.dumping) return this.cancel();
    if (this.abortUndici) return this.abortUndici(error);
    // Not connected yet: reported now, and undici's request aborted when it connects.
    this.onError(error);
    this.cancelled = true;
  }

  /** No longer in flight: forgotten, its timer cleared. */
  private settle(): void {
    calls.delete(this.id);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  acknowledge(bytes: number): void {
    this.unacked -= bytes;
    if (this.paused && this.unacked + this.stagedBytes < WINDOW_BYTES) {
      this.paused = false;
      this.resumeUndici?.();
    }
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.cancelled) abort(new errors.RequestAbortedError());
    else this.abortUndici = abort;
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void, statusText: string): boolean {
    // 1xx answers are informational; the server's client ignores them.
    if (status < 200 || this.cancelled) return true;
    this.resumeUndici = resume;
    const exchange = this.exchange;
    if (exchange?.redirects && status >= 300 && status < 400 && status !== 304 && single(raw, 'location') !== null) {
      // The server decides the next hop (its policy, its audit line); this answer is over.
      this.dumping = true;
      calls.delete(this.id);
      post({ t: 'head', id: this.id, status, statusText: statusText ?? '', raw: rawStrings(raw), allowed: takeAllowed(), redirect: true });
      return true;
    }
    if (exchange) {
      const length = single(raw, 'content-length');
      if (length !== null && /^\d+$/.test(length) && Number(length) > exchange.maxBytes) {
        this.stop(new ExchangeLimitError('too_large'));
        return false;
      }
    }
    post({ t: 'head', id: this.id, status, statusText: statusText ?? '', raw: rawStrings(raw), allowed: takeAllowed() });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.cancelled) return false;
    if (this.exchange) {
      this.received += chunk.length;
      if (this.dumping) {
        if (this.received > REDIRECT_DUMP_BYTES) this.cancel();
        return !this.cancelled;
      }
      if (this.received > this.exchange.maxBytes) {
        this.stop(new ExchangeLimitError('too_large'));
        return false;
      }
    }
    this.staged.push(chunk);
    this.stagedBytes += chunk.length;
    if (this.stagedBytes >= PIECE_BYTES) this.flush();
    else if (!this.flushing) {
      // Chunks that arrive in one turn travel together.
      this.flushing = true;
      setImmediate(() => this.flush());
    }
    this.paused = this.unacked + this.stagedBytes >= WINDOW_BYTES;
    return !this.paused;
  }

  onComplete(trailers: Buffer[] | string[] | null): void {
    if (this.cancelled) return;
    this.settle();
    if (this.dumping) return;
    this.flush();
    post({ t: 'end', id: this.id, raw: rawStrings(trailers) });
  }

  onError(error: Error): void {
    if (this.cancelled) return;
    this.settle();
    if (this.dumping) return;
    this.staged = [];
    post({ t: 'fail', id: this.id, error: wireError(error), allowed: takeAllowed() });
  }

  /** The staged chunks as one fresh ArrayBuffer, moved (not copied) to the server's thread. */
  private flush(): void {
    this.flushing = false;
    if (this.stagedBytes === 0 || this.cancelled) return;
    const piece = new Uint8Array(this.stagedBytes);
    let at = 0;
    for (const chunk of this.staged) {
      piece.set(chunk, at);
      at += chunk.length;
    }
    this.unacked += this.stagedBytes;
    this.staged = [];
    this.stagedBytes = 0;
    post({ t: 'data', id: this.id, bytes: piece.buffer }, [piece.buffer]);
  }
}

function start(message: RequestMessage): void {
  const call = new Call(message.id, message.exchange);
  calls.set(message.id, call);
  try {
    dispatcher.dispatch(
      {
        origin: message.origin,
        path: message.path,
        method: message.method as Dispatcher.HttpMethod,
        headers: message.headers ?? undefined,
        body: message.body ?? undefined,
        ...(message.headersTimeout === null ? {} : { headersTimeout: message.headersTimeout }),
        ...(message.bodyTimeout === null ? {} : { bodyTimeout: message.bodyTimeout }),
      },
      call as unknown as Dispatcher.DispatchHandler,
    );
  } catch (error) {
    call.onError(error as Error);
  }
}

port.on('message', (message: ToNetwork) => {
  if (message.t === 'request') start(message);
  else if (message.t === 'abort') calls.get(message.id)?.cancel();
  else calls.get(message.id)?.acknowledge(message.bytes);
});
