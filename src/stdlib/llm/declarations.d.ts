declare module "svc:llm" {
  /** A JSON Schema object (draft 2020-12 vocabulary). */
  export type JsonSchema = { [keyword: string]: unknown };

  /** Untyped call: returns the Completion envelope; provider-side failures are ok: false, never thrown. */
  export function call(model: string, prompt: string, schema?: null): Completion;
  /** Typed call: when programs are type-checked, the JSON Schema is derived from `T` at compile time (without checking, this is the untyped call). */
  export function call<T>(model: string, prompt: string): T;
  /** Structured call: the model is asked for JSON matching `schema`; returns the parsed value (TypeError naming the JSON path when it does not conform, Error naming the reason when the provider call failed). An explicit schema wins over `T`. */
  export function call<T = unknown>(model: string, prompt: string, schema: JsonSchema | string): T;
  /** One result per prompt, in order (at most 128 prompts; max_llm_concurrency in flight). */
  export function batch(model: string, prompts: string[], schema?: null): Completion[];
  /** Typed batch: when programs are type-checked, the schema of one element is derived from `T`. */
  export function batch<T>(model: string, prompts: string[]): T[];
  /** Structured batch: `schema` describes one element; throws if any element fails. */
  export function batch<T = unknown>(model: string, prompts: string[], schema: JsonSchema | string): T[];
  /** Models of this Blueprint that this caller may call. */
  export function models(): Model[];

  export interface Completion {
    readonly ok: boolean;                 // the model stopped naturally
    readonly text: string | null;         // null only when nothing was produced
    readonly reason: "truncated" | "content-filtered" | "invalid-output" | "rate-limited"
      | "request-rejected" | "provider-unavailable" | "transport" | "cancelled" | "incomplete" | null;
    readonly message: string | null;      // fixed classification text; never prompt or output
    readonly retryable: boolean;
    readonly status: number | null;       // provider HTTP status, if any
    readonly finishReason: string | null; // raw provider stop reason
    readonly inputTokens: number | null;  // null = unknown, not free
    readonly outputTokens: number | null;
  }
  export interface Model {
    readonly name: string;
    readonly description: string | null;
    readonly contextWindow: number | null;
  }
}
