// Host calls in flight, server-wide (`max_server_host_calls_in_flight`) and per token
// (`max_host_calls_in_flight_per_token`): a fan-out bound on top of the per-run one the
// runner enforces. A call past a bound waits (its run is parked on it anyway) and never
// fails for it; waiting calls are served by token, the token with the fewest calls in
// flight first, so one token's calls to a far end that never answers cannot make another
// token's calls wait: a token below its fair share of the server-wide bound (the bound
// divided among the tokens with calls in flight or waiting) starts past a full server, up
// to twice the bound.
import type { HostCall, HostHandler, HostReply } from '../../sandbox';

export interface HostCallBounds {
  total: number;
  perToken: number;
}

interface Waiter {
  token: string;
  grant: () => void;
}

/** A token below its fair share goes past the server-wide bound up to this many times it. */
const OVER_COMMIT_FACTOR = 2;

export class HostCallSlots {
  private inFlight = 0;
  private readonly byToken = new Map<string, number>();
  /** Waiting calls per token, oldest first. */
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(private readonly bounds: HostCallBounds) {}

  /**
   * `handle` with each call holding a slot while it is answered, except while it waits for a
   * person (`call.waiting`): a token's calls parked on approvals hold none of its slots.
   */
  wrap(token: string, handle: HostHandler): HostHandler {
    // A promise chain and one record per call, not an async function: a fan-out keeps
    // thousands of calls waiting on the far end, and each suspended frame (its generator,
    // context and awaited promise) was more for the collector to mark.
    return (call: HostCall) => {
      const hold = new SlotHold(this, token, call);
      if (this.tryTake(token)) return hold.answer(handle);
      return this.acquire(token, call.signal).then(() => hold.answer(handle));
    };
  }

  /** Calls in flight and waiting per token (token names). */
  perToken(): Map<string, { inFlight: number; waiting: number }> {
    const out = new Map<string, { inFlight: number; waiting: number }>();
    for (const [token, count] of this.byToken) out.set(token, { inFlight: count, waiting: 0 });
    for (const [token, queue] of this.waiting) out.set(token, { inFlight: this.byToken.get(token) ?? 0, waiting: queue.length });
    return out;
  }

  /** Takes a slot now if no call of the token waits and the bounds allow. */
  private tryTake(token: string): boolean {
    if (this.waiting.has(token) || !this.mayStart(token)) return false;
    this.take(token);
    return true;
  }

  /** Takes a slot for `token` once the bounds allow (the call's abort gives up the wait); SlotHold's too. */
  acquire(token: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.tryTake(token)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        token,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const queue = this.waiting.get(token);
        const index = queue?.indexOf(waiter) ?? -1;
        if (!queue || index === -1) return;
        queue.splice(index, 1);
        if (queue.length === 0) this.waiting.delete(token);
        reject(signal?.reason ?? new Error('the call was abandoned while waiting for a host-call slot'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.waiting.get(token);
      if (queue) queue.push(waiter);
      else this.waiting.set(token, [waiter]);
    });
  }

  private mayStart(token: string): boolean {
    const mine = this.byToken.get(token) ?? 0;
    if (mine >= this.bounds.perToken) return false;
    if (this.inFlight < this.bounds.total) return true;
    let tokens = this.byToken.size;
    for (const waiting of this.waiting.keys()) if (!this.byToken.has(waiting)) tokens++;
    if (!this.byToken.has(token) && !this.waiting.has(token)) tokens++;
    return mine < Math.ceil(this.bounds.total / Math.max(1, tokens)) && this.inFlight < this.bounds.total * OVER_COMMIT_FACTOR;
  }

  private take(token: string): void {
    this.inFlight++;
    this.byToken.set(token, (this.byToken.get(token) ?? 0) + 1);
  }

  /** Gives back one slot of `token`; SlotHold's too. */
  release(token: string): void {
    this.inFlight--;
    const left = (this.byToken.get(token) ?? 1) - 1;
    if (left > 0) this.byToken.set(token, left);
    else this.byToken.delete(token);
    this.pump();
  }

  /** Grants waiting calls while the bounds allow: the token with the fewest calls in flight first. */
  private pump(): void {
    for (;;) {
      const tokens = [...this.waiting.keys()].sort((a, b) => (this.byToken.get(a) ?? 0) - (this.byToken.get(b) ?? 0));
      const next = tokens.find((token) => this.mayStart(token));
      if (next === undefined) return;
      const queue = this.waiting.get(next)!;
      const waiter = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(next);
      this.take(next);
      waiter.grant();
    }
  }
}

/** One call's slot: given back while the call waits for a person, taken again after, and given back when the call ends. */
class SlotHold {
  private held = true;

  constructor(
    private readonly slots: HostCallSlots,
    private readonly token: string,
    private readonly call: HostCall,
  ) {}

  /** The handler asked with the slot held; the slot is given back however it ends. */
  answer(handle: HostHandler): Promise<HostReply> {
    let reply: Promise<HostReply>;
    try {
      reply = handle({ ...this.call, waiting: this.waiting });
    } catch (error) {
      this.end();
      return Promise.reject(error);
    }
    return reply.then(this.ended, this.failed);
  }

  private readonly waiting = <T,>(work: Promise<T>): Promise<T> => {
    this.end();
    const settled = this.call.waiting ? this.call.waiting(work) : work;
    return settled.finally(() =>
      this.slots.acquire(this.token, this.call.signal).then(() => {
        this.held = true;
      }),
    );
  };

  private readonly ended = (reply: HostReply): HostReply => {
    this.end();
    return reply;
  };

  private readonly failed = (error: unknown): never => {
    this.end();
    throw error;
  };

  private end(): void {
    if (!this.held) return;
    this.held = false;
    this.slots.release(this.token);
  }
}
