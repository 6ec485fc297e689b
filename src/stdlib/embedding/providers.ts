// Embedding requests in each provider's own API:
//   openai / openai-compatible  POST {base}/embeddings  {model, input: [...], encoding_format: "float", dimensions (openai)}
//   google                      POST {base}/models/{model}:batchEmbedContents
//                               {requests: [{model, content: {parts: [{text}]}, taskType, outputDimensionality}]}
// Google distinguishes query and document inputs (taskType); OpenAI's API does not.
import { authHeaders, endpoint, type Provider } from '../llm/providers';
import type { ProviderAnswer } from '../llm/transport';

export type Purpose = 'query' | 'document';

export function embeddingRequest(provider: Provider, model: string, texts: string[], purpose: Purpose, dimensions: number): { url: URL; headers: Record<string, string>; body: unknown } {
  const headers = authHeaders(provider);
  if (provider.type === 'google') {
    return {
      url: endpoint(provider.baseUrl, `/models/${encodeURIComponent(model)}:batchEmbedContents`),
      headers,
      body: {
        requests: texts.map((text) => ({
          model: `models/${model}`,
          content: { parts: [{ text }] },
          taskType: purpose === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT',
          outputDimensionality: dimensions,
        })),
      },
    };
  }
  return {
    url: endpoint(provider.baseUrl, '/embeddings'),
    headers,
    body: { model, input: texts, encoding_format: 'float', ...(provider.type === 'openai' ? { dimensions } : {}) },
  };
}

/** The vectors in input order and the reported tokens, or null when the answer is unusable. */
export function embeddingResult(provider: Provider, answer: ProviderAnswer, expected: number): { vectors: number[][]; tokens: number | null } | null {
  const body = answer.json as any;
  if (body === null || typeof body !== 'object') return null;
  let vectors: unknown[];
  let tokens: number | null = null;
  if (provider.type === 'google') {
    if (!Array.isArray(body.embeddings)) return null;
    vectors = body.embeddings.map((e: any) => e?.values);
  } else {
    if (!Array.isArray(body.data)) return null;
    const ordered = new Array<unknown>(body.data.length);
    for (const [i, item] of body.data.entries()) {
      const index = typeof item?.index === 'number' ? item.index : i;
      if (index < 0 || index >= ordered.length || ordered[index] !== undefined) return null;
      ordered[index] = item?.embedding;
    }
    vectors = ordered;
    const t = body.usage?.prompt_tokens ?? body.usage?.total_tokens;
    tokens = typeof t === 'number' && Number.isFinite(t) && t >= 0 ? t : null;
  }
  if (vectors.length !== expected) return null;
  if (!vectors.every((v) => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x)))) return null;
  return { vectors: vectors as number[][], tokens };
}
