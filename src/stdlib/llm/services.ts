// What svc:llm and svc:embedding need per run: the Blueprint's llm block, secret values for
// keys, the egress-guarded dispatcher, the server's token pools and this run's pools. The
// server owns one ModelBudgets; each run gets `forRun(...)`.
import type { Dispatcher } from 'undici';
import type { LlmDeclaration } from '../../blueprints';
import type { Limits } from '../../config';
import { TokenPool, type Pools } from './budget';

export interface ModelServices {
  llm: LlmDeclaration;
  secretValue: (name: string) => string | undefined;
  dispatcher: Dispatcher;
  limits: Pick<Limits, 'max_llm_concurrency' | 'max_embedding_concurrency' | 'max_execution_embedding_requests'>;
  llmTokens: Pools;
  embeddingTokens: Pools;
  /** Provider requests made for embedding calls in this run. */
  embeddingRequests: number;
}

export class ModelBudgets {
  readonly llm: TokenPool;
  readonly embedding: TokenPool;
  /** Each token's pools (`max_llm_tokens_per_token`, `max_embedding_tokens_per_token`), by token name, for the server's life. */
  private readonly byToken = new Map<string, { llm: TokenPool; embedding: TokenPool }>();

  constructor(
    private readonly limits: Limits,
    private readonly dispatcher: Dispatcher,
  ) {
    this.llm = new TokenPool(limits.max_llm_tokens);
    this.embedding = new TokenPool(limits.max_embedding_tokens);
  }

  /** A run's model services; its calls count against `token`'s pools too (the token's name). */
  forRun(llm: LlmDeclaration, secretValue: (name: string) => string | undefined, token?: string): ModelServices {
    const { limits } = this;
    const mine = token === undefined ? undefined : this.poolsOf(token);
    return {
      llm,
      secretValue,
      dispatcher: this.dispatcher,
      limits,
      llmTokens: { run: new TokenPool(limits.max_execution_llm_tokens), ...(mine ? { token: mine.llm } : {}), server: this.llm },
      embeddingTokens: { run: new TokenPool(limits.max_execution_embedding_tokens), ...(mine ? { token: mine.embedding } : {}), server: this.embedding },
      embeddingRequests: 0,
    };
  }

  private poolsOf(token: string): { llm: TokenPool; embedding: TokenPool } {
    let pools = this.byToken.get(token);
    if (!pools) {
      pools = { llm: new TokenPool(this.limits.max_llm_tokens_per_token), embedding: new TokenPool(this.limits.max_embedding_tokens_per_token) };
      this.byToken.set(token, pools);
    }
    return pools;
  }

  /** Spent plus reserved model and embedding tokens per token (for the per-token metrics). */
  perToken(): Array<{ token: string; model: number; embedding: number }> {
    return [...this.byToken].map(([token, pools]) => ({ token, model: pools.llm.spent + pools.llm.reserved, embedding: pools.embedding.spent + pools.embedding.reserved }));
  }

  /** Spent and reserved tokens against the server budgets (for /v1/status). */
  status() {
    const of = (pool: TokenPool) => ({ spent: pool.spent, reserved: pool.reserved, budget: pool.limit });
    return { model_tokens: of(this.llm), embedding_tokens: of(this.embedding) };
  }
}

/** Tokens a run spent (audit `model_tokens` / `embedding_tokens` of `execution finished`). */
export function runTokenUsage(models: ModelServices | undefined): { model_tokens: number; embedding_tokens: number } {
  return { model_tokens: models?.llmTokens.run.spent ?? 0, embedding_tokens: models?.embeddingTokens.run.spent ?? 0 };
}

export function modelServices(services: { models?: ModelServices }, module: string): ModelServices {
  if (!services.models) throw new Error(`${module}: model calls are not available for this run`);
  return services.models;
}
