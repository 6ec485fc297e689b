// The server's side of the network thread (./worker.ts): an undici Dispatcher whose requests
// are sent by that thread, and `exchange`, a request the thread carries out for
// src/stdlib/http (its limit, body cap and redirect answers kept there). The server keeps one small relay per request and hands undici's
// request handler the head, the body pieces (ArrayBuffers moved across, never copied) and the
// end; cancelling a request closes its connection in the network thread. The thread's heap is
// bounded (resourceLimits); when it runs out of memory or stops, every request in flight fails
// with an error saying so, and the next request starts a new thread.
import { Worker } from 'node:worker_threads';
import { Dispatcher, errors } from 'undici';
import { EgressBlockedError } from '../egress-guard';
import type { BlockedKind } from '../address-policy';
import type { ExchangeRequest, FromNetwork, NetworkThreadData, ToNetwork, WireError } from './protocol';

/** Messages from the thread handled per turn of the event loop, and body bytes (pieces are up to 512 KiB, ./worker.ts). */
const INBOX_SLICE = 16;
const INBOX_SLICE_BYTES = 4 * 1024 * 1024;

/** The thread's name as `worker.threadId`'s listings (heap metrics, inspectors) show it. */
export const NETWORK_THREAD_NAME = 'svc-network';

export interface NetworkThreadOptions extends NetworkThreadData {
  /** The built worker entry (dist/network-worker.js). */
  file: URL;
  /** Old-generation heap of the thread, MB. */
  heapMb: number;
  onBlocked: (host: string, kinds: BlockedKind[]) => void;
  /** Counts connections by outcome, as the egress guard of the server's thread would. */
  countConnection: (outcome: 'allowed' | 'blocked', count: number) => void;
  /** The thread stopped with requests in flight (or idle); `reason` says why. */
  onStopped: (reason: string, requestsLost: number) => void;
}

/** A request lost because the network thread stopped (out of memory, or it failed). */
export class NetworkThreadLostError extends Error {
  readonly code = 'network_thread_lost';
  constructor(reason: string, replaced: boolean) {
    super(replaced ? `the server's network thread ${reason} and was replaced; this request was abandoned (it may have reached the far end)` : `the server's network thread ${reason}; this request was abandoned`);
    this.name = 'Error';
  }
}

/** undici's request handler as `Dispatcher.request` gives it (the legacy callbacks). */
interface RequestHandler {
  onConnect(abort: (reason?: Error) => void): void;
  onHeaders(status: number, raw: string[], resume: () => void, statusText: string): boolean;
  onData(chunk: Buffer): boolean;
  onComplete(trailers: string[]): void;
  onError(error: Error): void;
}

/** What the server's thread keeps per request in flight in the thread (a relay, or an exchange's own record). */
export interface ExchangeSink {
  /** The head, a body piece, the end or the failure (after an end, a failure or a redirect head, nothing more). */
  receive(message: FromNetwork): void;
  /** The thread stopped, or the dispatcher is closed: the request is over with `error`. */
  lost(error: Error): void;
}

function rebuild(error: WireError): Error {
  if (error.kind === 'blocked') return new EgressBlockedError(error.host ?? '', error.kinds ?? []);
  if (error.kind === 'headers_timeout') return new errors.HeadersTimeoutError(error.message);
  if (error.kind === 'body_timeout') return new errors.BodyTimeoutError(error.message);
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

/** One dispatched request's state on the server: its handler and the body bytes not yet acknowledged. */
class Relay implements ExchangeSink {
  /** Bytes handed to the handler while it asked to pause; acknowledged when it resumes. */
  private held = 0;
  done = false;

  constructor(
    private readonly owner: NetworkThread,
    readonly id: number,
    readonly handler: RequestHandler,
  ) {}

  readonly abort = (reason?: Error): void => {
    if (this.done) return;
    this.owner.forget(this, true);
    const error = reason ?? new errors.RequestAbortedError();
    queueMicrotask(() => this.handler.onError(error));
  };

  readonly resume = (): void => {
    if (this.held === 0 || this.done) return;
    this.owner.send({ t: 'ack', id: this.id, bytes: this.held });
    this.held = 0;
  };

  receive(message: FromNetwork): void {
    if (message.t === 'head') {
      this.handler.onHeaders(message.status, message.raw, this.resume, message.statusText);
    } else if (message.t === 'data') {
      const bytes = message.bytes.byteLength;
      if (this.handler.onData(Buffer.from(message.bytes))) this.owner.send({ t: 'ack', id: this.id, bytes });
      else this.held += bytes;
    } else if (message.t === 'end') {
      this.owner.forget(this, false);
      this.handler.onComplete(message.raw);
    } else if (message.t === 'fail') {
      this.owner.forget(this, false);
      this.handler.onError(rebuild(message.error));
    }
  }

  lost(error: Error): void {
    this.done = true;
    this.handler.onError(error);
  }
}

export class NetworkThread extends Dispatcher {
  private worker: Worker | null = null;
  private readonly relays = new Map<number, ExchangeSink>();
  private readonly inbox: FromNetwork[] = [];
  private nextId = 0;
  private closed = false;
  private stopReason = '';

  constructor(private readonly options: NetworkThreadOptions) {
    super();
  }

  /** Requests in flight in the thread (tests and metrics). */
  get inFlight(): number {
    return this.relays.size;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const relay = new Relay(this, ++this.nextId, handler as unknown as RequestHandler);
    try {
      if (this.closed) throw new errors.ClientDestroyedError();
      const body = options.body ?? null;
      if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) throw new errors.InvalidArgumentError('the network thread sends string and byte bodies only');
      const bytes = body instanceof Uint8Array ? new Uint8Array(body) : body;
      this.relays.set(relay.id, relay);
      relay.handler.onConnect(relay.abort);
      // Aborted while connecting (its signal had fired): nothing is sent.
      if (relay.done) return true;
      this.send({
        t: 'request',
        id: relay.id,
        origin: String(options.origin),
        path: options.path,
        method: options.method,
        headers: (options.headers as Record<string, string> | string[] | undefined) ?? null,
        // A copy of just its bytes, moved across: a Buffer's view may sit in a shared pool
        // slab, which cloning the view would copy whole.
        body: bytes,
        headersTimeout: options.headersTimeout ?? null,
        bodyTimeout: options.bodyTimeout ?? null,
      }, bytes instanceof Uint8Array ? [bytes.buffer] : undefined);
    } catch (error) {
      if (relay.done) return true;
      this.forget(relay, false);
      queueMicrotask(() => relay.handler.onError(error as Error));
    }
    return true;
  }

  /**
   * Sends one exchange (a hop of src/stdlib/http's request path) that the thread owns: its
   * limit timer, body cap and redirect answers live there; the sink gets the head, the body
   * pieces (acknowledge each once consumed) and the end or failure. Returns its id (for
   * `acknowledge` and `cancel`); a closed dispatcher fails it at once.
   */
  exchange(request: ExchangeRequest, sink: ExchangeSink, body: Uint8Array | null): number {
    const id = ++this.nextId;
    if (this.closed) {
      queueMicrotask(() => sink.lost(new errors.ClientDestroyedError()));
      return id;
    }
    // A copy of just its bytes, moved across (see dispatch).
    const bytes = body === null ? null : new Uint8Array(body);
    this.relays.set(id, sink);
    this.send({ t: 'request', id, body: bytes, headersTimeout: request.exchange.limitMs, bodyTimeout: request.exchange.limitMs, ...request }, bytes ? [bytes.buffer as ArrayBuffer] : undefined);
    return id;
  }

  /** Body bytes of an exchange consumed: the thread may read that many more. */
  acknowledge(id: number, bytes: number): void {
    if (this.relays.has(id)) this.send({ t: 'ack', id, bytes });
  }

  /** Gives up on an exchange: the thread aborts it and closes its connection; nothing more arrives. */
  cancel(id: number): void {
    if (this.relays.delete(id) && this.worker) this.send({ t: 'abort', id });
  }

  /** An exchange that ended (its end or failure arrived) is no longer routed. */
  private settled(message: FromNetwork): void {
    if (message.t === 'end' || message.t === 'fail' || (message.t === 'head' && message.redirect)) this.relays.delete(message.id);
  }

  /** Ends the thread; requests in flight fail. */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const closing = this.stop('was closed');
    if (!callback) return closing;
    void closing.then(callback);
  }

  override destroy(): Promise<void>;
  override destroy(error: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(error: Error | null, callback: () => void): void;
  override destroy(...args: unknown[]): Promise<void> | void {
    const callback = args.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    return callback ? this.close(callback) : this.close();
  }

  /** Drops a relay (done); `cancel` tells the thread to abort the request and close its connection. */
  forget(relay: Relay, cancel: boolean): void {
    if (relay.done) return;
    relay.done = true;
    this.relays.delete(relay.id);
    if (cancel && this.worker) this.send({ t: 'abort', id: relay.id });
  }

  send(message: ToNetwork, transfer?: ArrayBuffer[]): void {
    this.thread().postMessage(message, transfer);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { file, heapMb, grants, hosts } = this.options;
    const data: NetworkThreadData = { grants, hosts };
    const worker = new Worker(file, { name: NETWORK_THREAD_NAME, workerData: data, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    // Requests in flight keep the server busy anyway; an idle thread never keeps it alive.
    worker.unref();
    this.stopReason = '';
    worker.on('message', (message: FromNetwork) => this.enqueue(message));
    worker.on('error', (error: Error & { code?: string }) => {
      this.stopReason = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of memory (network_thread_memory: ${heapMb} MB)` : `failed (${error.message})`;
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.lost(this.stopReason || `stopped (exit code ${code})`);
    });
    this.worker = worker;
    return worker;
  }

  /**
   * Node delivers every message waiting on the port in one turn of the event loop (hundreds of
   * body pieces when many bodies arrive at once, each then written to a runner's channel): they
   * are handled in slices of INBOX_SLICE (or INBOX_SLICE_BYTES of body), a turn each, so no turn holds the loop for all of them.
   */
  private enqueue(message: FromNetwork): void {
    this.inbox.push(message);
    if (this.inbox.length === 1) setImmediate(this.drainSlice);
  }

  private readonly drainSlice = (): void => {
    let taken = 0;
    let bytes = 0;
    while (taken < this.inbox.length && taken < INBOX_SLICE && bytes < INBOX_SLICE_BYTES) {
      const message = this.inbox[taken++];
      if (message.t === 'data') bytes += message.bytes.byteLength;
    }
    for (const message of this.inbox.splice(0, taken)) this.receive(message);
    if (this.inbox.length > 0) setImmediate(this.drainSlice);
  };

  private receive(message: FromNetwork): void {
    if (message.t === 'blocked') {
      this.options.countConnection('blocked', 1);
      this.options.onBlocked(message.host, message.kinds);
      return;
    }
    if ((message.t === 'head' || message.t === 'fail') && message.allowed > 0) this.options.countConnection('allowed', message.allowed);
    const receiver = this.relays.get(message.id);
    if (!receiver) return;
    if (!(receiver instanceof Relay)) {
      this.settled(message);
      receiver.receive(message);
      return;
    }
    try {
      receiver.receive(message);
    } catch (error) {
      receiver.abort(error as Error);
    }
  }

  /** The thread is gone: every request in flight fails, and the next one starts a new thread. */
  private lost(reason: string): void {
    this.worker = null;
    // What the thread sent before it stopped is handled first (a body that ended, ends).
    for (const message of this.inbox.splice(0)) this.receive(message);
    const relays = [...this.relays.values()];
    this.relays.clear();
    const error = new NetworkThreadLostError(reason, !this.closed);
    for (const relay of relays) relay.lost(error);
    if (!this.closed) this.options.onStopped(reason, relays.length);
  }

  private async stop(reason: string): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    this.stopReason = reason;
    await worker.terminate();
  }
}
