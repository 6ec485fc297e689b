// What svc:llm and svc:embedding need per run: the Blueprint's llm block, secret values for
// keys, the egress-guarded dispatcher, the server's token pools and this run's pools. The
// server owns one ModelBudgets; each run gets `forRun(...)`.
import type { Dispatcher } from 'undici';
import type { LlmDeclaration } from '../../blueprints';
import type { Limits } from '../../config';
import { TokenPool } from './budget';

declare module '../types' {
  interface RunServices {
    models?: ModelServices;
  }
}

export interface ModelServices {
  llm: LlmDeclaration;
  secretValue: (name: string) => string | undefined;
  dispatcher: Dispatcher;
  limits: Pick<Limits, 'max_llm_concurrency' | 'max_embedding_concurrency' | 'max_execution_embedding_requests'>;
  llmTokens: { run: TokenPool; server: TokenPool };
  embeddingTokens: { run: TokenPool; server: TokenPool };
  /** Provider requests made for embedding calls in this run. */
  embeddingRequests: number;
}

export class ModelBudgets {
  readonly llm: TokenPool;
  readonly embedding: TokenPool;

  constructor(
    private readonly limits: Limits,
    private readonly dispatcher: Dispatcher,
  ) {
    this.llm = new TokenPool(limits.max_llm_tokens);
    this.embedding = new TokenPool(limits.max_embedding_tokens);
  }

  forRun(llm: LlmDeclaration, secretValue: (name: string) => string | undefined): ModelServices {
    const { limits } = this;
    return {
      llm,
      secretValue,
      dispatcher: this.dispatcher,
      limits,
      llmTokens: { run: new TokenPool(limits.max_execution_llm_tokens), server: this.llm },
      embeddingTokens: { run: new TokenPool(limits.max_execution_embedding_tokens), server: this.embedding },
      embeddingRequests: 0,
    };
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
