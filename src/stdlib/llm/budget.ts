// Token budgets of model and embedding calls (max_llm_tokens and friends): a reservation is
// taken against the run's pool and the server's pool in one synchronous step (host calls
// of every run share this process's event loop, so check-and-take is atomic across runs),
// then settled with what the provider reported. A call the provider answered without
// reporting usage is billed its full reservation; a call that got no answer (cancelled by
// the program or its run, or cut off in transport) is billed only what was reported: nothing
// (per-token budgets, `max_llm_tokens_per_token`, keep a token that sends and cancels within
// its own pool).

/** One ceiling: what is spent plus what is reserved never passes `limit` at reservation time. */
export class TokenPool {
  spent = 0;
  reserved = 0;
  constructor(readonly limit: number) {}

  get available(): number {
    return Math.max(0, this.limit - this.spent - this.reserved);
  }
}

export interface Reservation {
  readonly tokens: number;
  /** Replaces the reservation by `actual` tokens (null: unknown, so the full reservation). Idempotent. */
  settle(actual: number | null): number;
}

/** The pools one reservation is taken from: the run's, its token's and the server's. */
export interface Pools {
  run: TokenPool;
  token?: TokenPool;
  server: TokenPool;
}

/** Why a reservation did not fit: which pool, for the QuotaExceededError message. */
export interface Shortfall {
  scope: 'run' | 'token' | 'server';
  needed: number;
  available: number;
  limit: number;
}

/** Reserves `tokens` in every pool or in none; returns the shortfall when one does not fit. */
export function reserve(pools: Pools, tokens: number): Reservation | Shortfall {
  // The server's pool before the token's: with the per-token budget at its default (the
  // server's), a lone token's refusal names the server-wide budget, as before it existed.
  for (const scope of ['run', 'server', 'token'] as const) {
    const pool = pools[scope];
    if (pool && tokens > pool.available) return { scope, needed: tokens, available: pool.available, limit: pool.limit };
  }
  const taken = [pools.run, pools.token, pools.server].filter((pool): pool is TokenPool => pool !== undefined);
  for (const pool of taken) pool.reserved += tokens;
  let settled = false;
  return {
    tokens,
    settle(actual) {
      if (settled) return 0;
      settled = true;
      const billed = actual ?? tokens;
      for (const pool of taken) {
        pool.reserved -= tokens;
        pool.spent += billed;
      }
      return billed;
    },
  };
}

export function isShortfall(value: Reservation | Shortfall): value is Shortfall {
  return 'scope' in value;
}

/** Estimated tokens of a text before sending: UTF-8 bytes ÷ 3, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
