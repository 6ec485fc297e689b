// Provider clients for chat models, each speaking its provider's own HTTP API:
//   anthropic          POST {base}/v1/messages                      (Messages API, x-api-key)
//   openai             POST {base}/chat/completions                 (Chat Completions, Bearer)
//   openai-compatible  POST {base_url}/chat/completions             (same shape, base_url required)
//   google             POST {base}/models/{model}:generateContent   (Gemini API, x-goog-api-key)
// Plain fetch through the egress-guarded dispatcher rather than vendor SDKs: each call is
// one JSON POST, and the SDKs bring their own HTTP stacks, retries and timeouts that would
// have to be disabled to keep the guard, the 10-minute limit and our reason vocabulary.
import type { LlmDeclaration } from '../../blueprints';
import type { JsonSchema } from './schema';
import type { ProviderAnswer } from './transport';

export type ProviderType = 'anthropic' | 'openai' | 'openai-compatible' | 'google';

/** A provider of this run's Blueprint with its key and base URL filled in (never shown). */
export interface Provider {
  name: string;
  type: ProviderType;
  baseUrl: string;
  key: string | undefined;
  /** The secret named by api_key (for messages to the operator), if any. */
  keySecret: string | undefined;
  structured: boolean;
}

const DEFAULT_BASE: Record<ProviderType, string> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com/v1',
  'openai-compatible': '',
  google: 'https://generativelanguage.googleapis.com/v1beta',
};
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * The named provider, usable for a request, or an Error telling the operator what to
 * configure (the program cannot fix it). `module` prefixes messages (`svc:llm`).
 */
export function resolveProvider(llm: LlmDeclaration, name: string, secretValue: (name: string) => string | undefined, module: string): Provider {
  const declared = llm.providers?.[name];
  if (!declared) throw new Error(`${module}: provider '${name}' is not declared in this Blueprint's llm.providers; the operator should declare it`);
  const type = declared.type as ProviderType;
  const secret = (secretName: string, field: string) => {
    const value = secretValue(secretName);
    if (value === undefined || value === '') throw new Error(`${module}: provider '${name}' cannot be used: the secret '${secretName}' named by its ${field} has no value; the operator should store it (POST /v1/secrets) or bind it as a harness secret. Nothing was sent and no tokens were billed`);
    return value;
  };
  const keySecret = declared.api_key ? /^\$\{secrets\.([^}]+)\}$/.exec(declared.api_key)?.[1] : undefined;
  const key = keySecret ? secret(keySecret, 'api_key') : undefined;
  const base = (declared.base_url ?? DEFAULT_BASE[type]).replace(/\$\{secrets\.([^}]+)\}/g, (_m, secretName: string) => encodeURIComponent(secret(secretName, 'base_url')));
  if (base === '') throw new Error(`${module}: provider '${name}' has no base_url; the operator should set one`);
  return { name, type, baseUrl: base, key, keySecret, structured: declared.supports_structured_outputs !== false };
}

/** `{base}` + `path`, keeping the base's path and query (a query may hold a key). */
export function endpoint(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url;
}

export function authHeaders(provider: Provider): Record<string, string> {
  if (provider.key === undefined) return provider.type === 'anthropic' ? { 'anthropic-version': ANTHROPIC_VERSION } : {};
  switch (provider.type) {
    case 'anthropic':
      return { 'x-api-key': provider.key, 'anthropic-version': ANTHROPIC_VERSION };
    case 'google':
      return { 'x-goog-api-key': provider.key };
    default:
      return { authorization: `Bearer ${provider.key}` };
  }
}

export interface ChatRequest {
  model: string;
  prompt: string;
  /** Native structured output: the schema to send (already wrapped when needed). */
  schema: JsonSchema | null;
  maxOutputTokens: number;
}

export interface ChatResult {
  text: string | null;
  finishReason: string | null;
  /** null: the model stopped naturally. */
  reason: 'truncated' | 'content-filtered' | 'incomplete' | 'invalid-output' | null;
  inputTokens: number | null;
  outputTokens: number | null;
}

export function chatRequest(provider: Provider, req: ChatRequest): { url: URL; headers: Record<string, string>; body: unknown } {
  const headers = authHeaders(provider);
  switch (provider.type) {
    case 'anthropic':
      return {
        url: endpoint(provider.baseUrl, '/v1/messages'),
        headers,
        body: {
          model: req.model,
          max_tokens: req.maxOutputTokens,
          messages: [{ role: 'user', content: req.prompt }],
          ...(req.schema ? { output_config: { format: { type: 'json_schema', schema: req.schema } } } : {}),
        },
      };
    case 'google':
      return {
        url: endpoint(provider.baseUrl, `/models/${encodeURIComponent(req.model)}:generateContent`),
        headers,
        body: {
          contents: [{ role: 'user', parts: [{ text: req.prompt }] }],
          generationConfig: { maxOutputTokens: req.maxOutputTokens, ...(req.schema ? { responseMimeType: 'application/json', responseJsonSchema: req.schema } : {}) },
        },
      };
    default:
      return {
        url: endpoint(provider.baseUrl, '/chat/completions'),
        headers,
        body: {
          model: req.model,
          messages: [{ role: 'user', content: req.prompt }],
          // OpenAI's current name; compatible servers widely know only the older one.
          ...(provider.type === 'openai' ? { max_completion_tokens: req.maxOutputTokens } : { max_tokens: req.maxOutputTokens }),
          ...(req.schema ? { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: req.schema, strict: false } } } : {}),
        },
      };
  }
}

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);
const sum = (...values: unknown[]): number | null => {
  const present = values.filter((v) => v !== undefined && v !== null);
  if (present.length === 0) return null;
  const numbers = present.map(count);
  return numbers.every((n) => n !== null) ? (numbers as number[]).reduce((a, b) => a + b, 0) : null;
};
const invalid = (finishReason: string | null = null): ChatResult => ({ text: null, finishReason, reason: 'invalid-output', inputTokens: null, outputTokens: null });

/** Reads a 2xx answer in the provider's documented shape. */
export function chatResult(provider: Provider, answer: ProviderAnswer): ChatResult {
  const body = answer.json as any;
  if (body === null || typeof body !== 'object') return invalid();
  switch (provider.type) {
    case 'anthropic': {
      if (!Array.isArray(body.content)) return invalid();
      const texts = body.content.filter((b: any) => b && b.type === 'text' && typeof b.text === 'string').map((b: any) => b.text as string);
      const stop = typeof body.stop_reason === 'string' ? body.stop_reason : null;
      const reason = stop === 'end_turn' || stop === 'stop_sequence' ? null : stop === 'max_tokens' || stop === 'model_context_window_exceeded' ? 'truncated' : stop === 'refusal' ? 'content-filtered' : 'incomplete';
      const usage = body.usage ?? {};
      return {
        text: texts.length ? texts.join('') : null,
        finishReason: stop,
        reason,
        inputTokens: sum(usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens),
        outputTokens: count(usage.output_tokens),
      };
    }
    case 'google': {
      const usage = body.usageMetadata ?? {};
      const inputTokens = count(usage.promptTokenCount);
      const outputTokens = usage.candidatesTokenCount === undefined && usage.thoughtsTokenCount === undefined ? (inputTokens !== null ? 0 : null) : sum(usage.candidatesTokenCount, usage.thoughtsTokenCount);
      const candidate = Array.isArray(body.candidates) ? body.candidates[0] : undefined;
      if (!candidate) {
        const blocked = body.promptFeedback?.blockReason;
        return blocked ? { text: null, finishReason: String(blocked), reason: 'content-filtered', inputTokens, outputTokens } : invalid();
      }
      const parts = Array.isArray(candidate.content?.parts) ? candidate.content.parts : [];
      const texts = parts.filter((p: any) => p && typeof p.text === 'string' && p.thought !== true).map((p: any) => p.text as string);
      const finish = typeof candidate.finishReason === 'string' ? candidate.finishReason : null;
      const filtered = ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE'];
      const reason = finish === 'STOP' ? null : finish === 'MAX_TOKENS' ? 'truncated' : finish !== null && filtered.includes(finish) ? 'content-filtered' : 'incomplete';
      return { text: texts.length ? texts.join('') : null, finishReason: finish, reason, inputTokens, outputTokens };
    }
    default: {
      const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
      if (!choice || typeof choice !== 'object') return invalid();
      const message = choice.message ?? {};
      const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
      const usage = body.usage ?? {};
      const refused = typeof message.refusal === 'string' && message.refusal !== '';
      const reason = refused || finish === 'content_filter' ? 'content-filtered' : finish === 'stop' ? null : finish === 'length' ? 'truncated' : 'incomplete';
      return {
        text: typeof message.content === 'string' ? message.content : null,
        finishReason: finish,
        reason,
        inputTokens: count(usage.prompt_tokens),
        outputTokens: count(usage.completion_tokens),
      };
    }
  }
}
