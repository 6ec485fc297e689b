// Host side of `svc:embedding`: all-or-nothing embedding of up to
// 128 texts. Bounds, the model and `embedding.embed` {model, input_count} are checked
// before anything is sent; the run's request ceiling and both token budgets are reserved
// up front; the texts go out in chunks with at most max_embedding_concurrency requests in
// flight; vectors come back scaled to unit length.
import { QuotaExceededError } from '../../policy';
import { estimateTokens, isShortfall, mapLimited, reserve, type Reservation } from '../llm/budget';
import { credentialRejected, resolveProvider } from '../llm/providers';
import { modelServices, type ModelServices } from '../llm/services';
import { NoAnswerError, NotSentError, postJson, REASON_MESSAGES, statusReason } from '../llm/transport';
import { gated, ungated, type HostCall, type HostOperation, type RunContext } from '../types';
import { embeddingRequest, embeddingResult, type Purpose } from './providers';

export const MAX_TEXTS = 128;
export const MAX_TOTAL_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_INPUT_BYTES = 32_768;
/** Texts per provider request (Gemini's batch limit is 100; OpenAI's is higher). */
export const TEXTS_PER_REQUEST = 32;
const CAPABILITY = 'embedding.embed';
const FN = 'embedding.embed';

type EmbeddingDeclaration = NonNullable<ModelServices['llm']['embedding_models']>[string];

function callableModels(call: HostCall, models: ModelServices): string[] {
  return Object.keys(models.llm.embedding_models ?? {}).filter((name) => call.probe(CAPABILITY, { model: name, input_count: 0 }));
}

function providerType(models: ModelServices, declared: EmbeddingDeclaration): string {
  return models.llm.providers?.[declared.provider]?.type ?? 'unknown';
}

function failed(reason: string, detail: string): Error {
  const error = new Error(`${FN}: ${reason}: ${detail}`);
  (error as Error & { code?: string }).code = reason;
  return error;
}

function readTexts(value: unknown, maxInputBytes: number | null): string[] {
  if (!Array.isArray(value)) throw new TypeError(`${FN}: texts must be an array of strings`);
  if (value.length === 0) throw new RangeError(`${FN}: texts is empty; give 1 to ${MAX_TEXTS} texts`);
  if (value.length > MAX_TEXTS) throw new RangeError(`${FN}: ${value.length} texts; at most ${MAX_TEXTS} per call. Nothing was sent`);
  let total = 0;
  value.forEach((text, i) => {
    if (typeof text !== 'string') throw new TypeError(`${FN}: texts[${i}] must be a string`);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (maxInputBytes !== null && bytes > maxInputBytes) throw new RangeError(`${FN}: texts[${i}] is ${bytes} UTF-8 bytes; this model takes at most ${maxInputBytes}. Nothing was sent`);
    total += bytes;
    if (total > MAX_TOTAL_BYTES) throw new RangeError(`${FN}: the texts pass ${MAX_TOTAL_BYTES} UTF-8 bytes in total at texts[${i}]. Nothing was sent`);
  });
  return value as string[];
}

function float32Bytes(vector: number[]): Uint8Array {
  const out = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => out.writeFloatLE(x, i * 4));
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

function unit(vector: number[]): number[] | null {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  return vector.map((x) => x / norm);
}

interface Params {
  model: string;
  declared: EmbeddingDeclaration | null;
  texts: string[];
  purpose: Purpose;
}

function parseParams(run: RunContext, args: unknown[]): Params {
  const models = modelServices(run.services, 'svc:embedding');
  const [modelArg, textsArg, purposeArg] = args;
  if (typeof modelArg !== 'string') throw new TypeError(`${FN}: model must be a string`);
  if (purposeArg !== 'query' && purposeArg !== 'document') throw new TypeError(`${FN}: purpose must be "query" or "document"`);
  const declared = models.llm.embedding_models?.[modelArg] ?? null;
  // An undeclared model still gets the count and total bounds; run() then refuses it.
  const texts = readTexts(textsArg, declared ? (declared.max_input_bytes ?? DEFAULT_MAX_INPUT_BYTES) : null);
  return { model: modelArg, declared, texts, purpose: purposeArg };
}

async function embed(call: HostCall, params: Params): Promise<unknown> {
  const models = modelServices(call.services, 'svc:embedding');
  const { model: modelArg, declared, texts, purpose: purposeArg } = params;
  if (!declared) {
    const usable = callableModels(call, models);
    throw new Error(`${FN}: unknown embedding model '${modelArg}'; models this program may use: ${usable.length ? usable.join(', ') : 'none'}. Nothing was sent`);
  }
  const context = { model: modelArg, input_count: texts.length };
  const provider = resolveProvider(models.llm, declared.provider, models.secretValue, FN);
  if (provider.type === 'anthropic') throw new Error(`${FN}: provider '${provider.name}' is of type anthropic, which serves no embedding models; the operator should use an openai, google or openai-compatible provider`);

  const chunks: Array<{ start: number; texts: string[] }> = [];
  for (let start = 0; start < texts.length; start += TEXTS_PER_REQUEST) chunks.push({ start, texts: texts.slice(start, start + TEXTS_PER_REQUEST) });
  const ceiling = models.limits.max_execution_embedding_requests;
  if (models.embeddingRequests + chunks.length > ceiling) {
    throw call.refuse(CAPABILITY, context, 'quota', new QuotaExceededError(`${FN}: this call needs ${chunks.length} provider request(s) and the run has ${Math.max(0, ceiling - models.embeddingRequests)} of max_execution_embedding_requests (${ceiling}) left. Nothing was sent`));
  }
  const sizes = chunks.map((c) => c.texts.reduce((n, t) => n + estimateTokens(t), 0));
  const whole = reserve(models.embeddingTokens, sizes.reduce((a, b) => a + b, 0));
  if (isShortfall(whole)) {
    const which = whole.scope === 'run' ? 'max_execution_embedding_tokens (this run)' : whole.scope === 'token' ? 'max_embedding_tokens_per_token (this token)' : 'max_embedding_tokens (the server)';
    throw call.refuse(CAPABILITY, context, 'quota', new QuotaExceededError(`${FN}: the embedding-token budget ${which} has ${whole.available} of ${whole.limit} tokens left; this call reserves ${whole.needed}. Nothing was sent`));
  }
  whole.settle(0);
  const reservations = sizes.map((size) => reserve(models.embeddingTokens, size) as Reservation);
  models.embeddingRequests += chunks.length;

  let failure: Error | null = null;
  const results = await mapLimited(chunks, models.limits.max_embedding_concurrency, async (chunk, i) => {
    if (failure) {
      reservations[i].settle(0);
      return null;
    }
    try {
      return await embedChunk(call, models, provider, modelArg, declared.dimensions, chunk.texts, purposeArg, reservations[i]);
    } catch (error) {
      failure ??= error as Error;
      return null;
    }
  });
  if (failure) throw failure;
  const vectors = results.flatMap((r) => r!.vectors);
  const reported = results.every((r) => r!.tokens !== null) ? results.reduce((n, r) => n + r!.tokens!, 0) : null;
  call.charge(vectors.length * declared.dimensions);
  return {
    model: modelArg,
    identity: `${providerType(models, declared)}/${modelArg}/${declared.dimensions}`,
    count: vectors.length,
    dimensions: declared.dimensions,
    inputTokens: reported,
    vectors,
    // bytes(i): little-endian float32, made here so the guest needs no DataView methods.
    bytes: vectors.map(float32Bytes),
  };
}

async function embedChunk(call: HostCall, models: ModelServices, provider: ReturnType<typeof resolveProvider>, model: string, dimensions: number, texts: string[], purpose: Purpose, reservation: Reservation) {
  const request = embeddingRequest(provider, model, texts, purpose, dimensions);
  let answer;
  try {
    answer = await postJson({ dispatcher: models.dispatcher, url: request.url, headers: request.headers, body: request.body, signal: call.signal });
  } catch (error) {
    if (error instanceof NotSentError) {
      reservation.settle(0);
      if (error.blocked) throw call.refuse(CAPABILITY, { model, input_count: texts.length }, 'egress_guard', new Error(`${FN}: ${error.blocked.message}; no tokens were billed`));
      throw failed('transport', `provider '${provider.name}' could not be reached (${error.detail}); the request was not sent and no tokens were billed`);
    }
    if (error instanceof NoAnswerError) {
      // Cancelled or cut off: the provider reported nothing, so nothing is billed.
      reservation.settle(0);
      throw failed(error.reason, REASON_MESSAGES[error.reason]);
    }
    throw error;
  }
  if (credentialRejected(provider, answer)) {
    reservation.settle(0);
    const secret = provider.keySecret ? `the secret '${provider.keySecret}' named by its api_key` : 'its api_key (none is configured)';
    throw new Error(`${FN}: provider '${provider.name}' rejected the credential (HTTP ${answer.status}); the operator should check ${secret}. No tokens were billed`);
  }
  if (answer.status < 200 || answer.status > 299) {
    reservation.settle(0);
    const reason = statusReason(answer.status);
    throw failed(reason, `${REASON_MESSAGES[reason]} (HTTP ${answer.status})`);
  }
  const result = embeddingResult(provider, answer, texts.length);
  reservation.settle(result?.tokens ?? null);
  const vectors = result?.vectors.map((v) => (v.length === dimensions ? unit(v) : null));
  if (!result || !vectors || vectors.some((v) => v === null)) {
    throw new TypeError(`${FN}: provider '${provider.name}' answered with unusable embeddings (expected ${texts.length} vectors of ${dimensions} finite numbers, not all zero)`);
  }
  return { vectors: vectors as number[][], tokens: result.tokens };
}

function modelsOperation(call: HostCall): unknown {
  const models = modelServices(call.services, 'svc:embedding');
  const declared = models.llm.embedding_models ?? {};
  return callableModels(call, models).map((name) => {
    const d = declared[name];
    return {
      name,
      description: d.description ?? null,
      dimensions: d.dimensions,
      maxInputTokens: d.max_input_tokens ?? null,
      maxInputBytes: d.max_input_bytes ?? DEFAULT_MAX_INPUT_BYTES,
      identity: `${providerType(models, d)}/${name}/${d.dimensions}`,
    };
  });
}

export const embeddingOperations: Record<string, HostOperation> = {
  embed: gated<Params>({
    parse: (args, run) => parseParams(run, args),
    // An undeclared model is checked too; run() then refuses it before anything is sent.
    gate: (params) => ({ capability: CAPABILITY, context: { model: params.model, input_count: params.texts.length } }),
    run: (call, params) => embed(call, params),
  }),
  models: ungated('a filtered listing: it checks embedding.embed {model, input_count: 0} silently for each declared model and omits the denied ones', {
    run: (call) => modelsOperation(call),
  }),
};
