// A request of `svc:http` or `fetch` answered by the network thread (src/network/thread): this
// thread decides the first hop's policy, injects credentials and describes the hop once; the
// network thread owns the hop's time limit, its body cap, and reads a redirect answer away.
// A redirect comes back as its head only, and the next hop is decided here (checked, gated:
// an audit line per hop, as the in-thread client does) and sent as a new exchange.
// While a call waits on the far end this thread keeps one ThreadExchange (the thread's table
// entry points at it): no hop timer or AbortController of its own, no suspended async frames, no undici
// handler or stream.
import { errors as undiciErrors } from 'undici';
import type { FromNetwork, NetworkThread, WireError } from '../../network';
import { StreamedBytes } from '../../../sandbox';
import type { HostCall } from '../types';
import { hopFailure, inject, MAX_RESPONSE_BYTES, nextHop, redirectTarget, tooLarge, firstHop, type HopStart, type HopState, type HttpServices, type Prepared } from './client';

/** What an exchange answers: the final response's status, headers (lower-case, repeats joined) and body. */
export interface ExchangeReply {
  status: number;
  headers: Record<string, string>;
  content: Buffer | StreamedBytes;
  url: string;
  redirected: boolean;
}

/** The first buffer for a body of unknown length read whole; it doubles as the body grows. */
const FIRST_BODY_BUFFER = 64 * 1024;

function headersOf(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const value = raw[i + 1];
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

function declared(headers: Record<string, string>): number {
  const length = headers['content-length'];
  return typeof length === 'string' && /^\d+$/.test(length) && Number(length) <= MAX_RESPONSE_BYTES ? Number(length) : -1;
}

/** One call's exchange: its hop state, its reply's promise, the body as it arrives. */
export class ThreadExchange {
  /** Where the redirect chain stands: the hop to send next. */
  private readonly state: HopState;
  /** The hop in flight: its id in the thread, its number, and its request as sent (error messages). */
  private id = 0;
  private hop = 0;
  private prepared: Prepared | null = null;
  private status = 0;
  private responseHeaders: Record<string, string> | null = null;
  private size = 0;
  /** The body read whole: a call that cannot stream, or whose run keeps a journal the body may fit (HostCall.streamBytesPast). */
  private buffer: Buffer | null = null;
  /** Pieces go to the runner as they arrive (HostCall.streamBytes). */
  private streaming = false;
  /** Pieces handed to the runner's channel and not yet written; the end waits for them. */
  private writing = 0;
  private ended = false;
  private done = false;
  private resolve: ((reply: ExchangeReply) => void) | null = null;
  private reject: ((error: unknown) => void) | null = null;

  constructor(
    private readonly call: HostCall,
    private readonly http: HttpServices,
    private readonly thread: NetworkThread,
    fn: string,
    start: HopStart,
    private readonly limitMs: number,
  ) {
    this.state = firstHop(fn, start);
  }

  /** Sends the first hop; settles with the final answer or what the program sees. */
  start(): Promise<ExchangeReply> {
    const reply = new Promise<ExchangeReply>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const signal = this.call.signal;
    if (signal.aborted) this.fail(signal.reason);
    else {
      // The exchange itself listens (handleEvent): no closure per call.
      signal.addEventListener('abort', this, { once: true });
      this.send();
    }
    return reply;
  }

  /** The call's signal fired (the program gave up on it, or its run ended): the thread closes the connection. */
  handleEvent(): void {
    this.thread.cancel(this.id);
    this.fail(this.call.signal.reason);
  }

  private send(): void {
    const prepared: Prepared = { url: this.state.url, headers: this.state.headers, body: this.state.body };
    try {
      this.state.injected = inject(this.call, this.http, prepared) || this.state.injected;
    } catch (error) {
      return this.fail(error);
    }
    this.prepared = prepared;
    const { url } = prepared;
    this.id = this.thread.exchange(
      {
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: this.state.verb,
        headers: prepared.headers,
        exchange: { limitMs: this.limitMs, maxBytes: MAX_RESPONSE_BYTES, redirects: this.state.redirect !== 'manual' },
      },
      this,
      prepared.body,
    );
  }

  receive(message: FromNetwork): void {
    if (this.done) return;
    try {
      if (message.t === 'head') this.head(message.status, message.raw, message.redirect === true);
      else if (message.t === 'data') this.piece(message.bytes);
      else if (message.t === 'end') {
        this.ended = true;
        this.finishWhenWritten();
      } else if (message.t === 'fail') this.fail(this.failure(message.error));
    } catch (error) {
      this.thread.cancel(this.id);
      this.fail(error);
    }
  }

  lost(error: Error): void {
    this.fail(this.responseHeaders ? error : this.hopError('other', error.message));
  }

  private head(status: number, raw: string[], redirect: boolean): void {
    const headers = headersOf(raw);
    if (redirect) {
      // Read away in the thread; the next hop is checked and gated here.
      nextHop(this.call, this.http, this.state, status, redirectTarget(status, headers.location) ?? '', this.hop++);
      return this.send();
    }
    this.status = status;
    this.responseHeaders = headers;
    const length = declared(headers);
    this.streaming = this.streams(length);
    if (!this.streaming) this.buffer = Buffer.allocUnsafe(Math.max(0, length) || FIRST_BODY_BUFFER);
  }

  /**
   * Whether a body goes to the runner as it arrives: the call can stream, and its run keeps no
   * journal or the body's declared length is more than the journal could hold. A body of
   * unknown length in a journalled run is gathered whole: streamed bytes count against the
   * run's memory before the 50 MiB cap is known to be passed, and the verbs must answer a
   * body past the cap with their RangeError, not a memory limit.
   */
  private streams(declaredLength: number): boolean {
    const past = this.call.streamBytesPast;
    return this.call.streamBytes !== undefined && (past === undefined || declaredLength > past);
  }

  private piece(bytes: ArrayBuffer): void {
    const size = bytes.byteLength;
    this.size += size;
    if (this.streaming) return this.stream(new Uint8Array(bytes));
    let buffer = this.buffer!;
    const at = this.size - size;
    if (this.size > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(MAX_RESPONSE_BYTES, Math.max(this.size, buffer.length * 2)));
      buffer.copy(grown, 0, 0, at);
      this.buffer = buffer = grown;
    }
    buffer.set(new Uint8Array(bytes), at);
    this.thread.acknowledge(this.id, size);
  }

  /** Hands bytes to the runner's channel; the thread may read as many again once they are written. */
  private stream(bytes: Uint8Array): void {
    this.writing++;
    // Acknowledged once written to the runner's channel: the thread reads ahead at most its window.
    void this.call.streamBytes!(bytes).then((written) => this.written(written, bytes.byteLength));
  }

  private written(written: boolean, size: number): void {
    this.writing--;
    if (this.done) return;
    if (!written) {
      this.thread.cancel(this.id);
      return this.fail(this.call.signal.aborted ? this.call.signal.reason : new Error('http: the call ended while its body was arriving'));
    }
    this.thread.acknowledge(this.id, size);
    this.finishWhenWritten();
  }

  private finishWhenWritten(): void {
    if (!this.ended || this.writing > 0 || this.done) return;
    const content = this.buffer ? this.buffer.subarray(0, this.size) : new StreamedBytes(this.size);
    this.settle();
    this.resolve!({ status: this.status, headers: this.responseHeaders!, content, url: this.state.url.href, redirected: this.hop > 0 });
  }

  private fail(error: unknown): void {
    if (this.done) return;
    this.settle();
    this.reject!(error);
  }

  private settle(): void {
    this.done = true;
    this.buffer = null;
    this.call.signal.removeEventListener('abort', this);
  }

  /** A failure from the thread as the in-thread client reports it (before the head: the hop's error; after: the body's). */
  private failure(error: WireError): unknown {
    if (this.call.signal.aborted) return this.call.signal.reason;
    if (error.kind === 'too_large') return tooLarge(this.state.url);
    if (!this.responseHeaders) return this.hopError(error.kind === 'blocked' ? 'blocked' : error.kind === 'other' ? 'other' : 'timeout', error.message);
    if (error.kind === 'limit') return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    if (error.kind === 'body_timeout') return new undiciErrors.BodyTimeoutError(error.message);
    return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
  }

  private hopError(kind: 'blocked' | 'timeout' | 'other', message: string): Error {
    return hopFailure(this.call, this.state.verb, this.prepared ?? { url: this.state.url, headers: this.state.headers, body: this.state.body }, this.state.capability, this.state.context, this.limitMs, kind, message);
  }
}
