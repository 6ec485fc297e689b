// Host side of `svc:llm`: bounds and model checks before anything
// is sent, the `llm.call` check with {op, model, prompt_count} (never the prompt), token
// reservations against the run's and the server's budgets, provider requests with at most
// max_llm_concurrency prompts of a batch in flight, and the Completion envelope. Untyped
// calls return provider-side outcomes; typed calls throw them.
import { QuotaExceededError } from '../../policy';
import { gated, ungated, type HostCall, type HostOperation, type RunContext } from '../types';
import { estimateTokens, isShortfall, mapLimited, reserve, type Reservation } from './budget';
import { chatRequest, chatResult, credentialRejected, resolveProvider, type Provider } from './providers';
import { hostTask } from '../host-tasks';
import { hasObjectRoot, parseOutput, readSchema, wrapped, type JsonSchema } from './schema';
import { modelServices, type ModelServices } from './services';
import { isRetryable, NoAnswerError, NotSentError, postJson, REASON_MESSAGES, statusReason } from './transport';

export const MAX_BATCH_PROMPTS = 128;
export const MAX_PROMPT_BYTES = 262_144;
export const DEFAULT_OUTPUT_RESERVE = 64_000;
/** Milliseconds a worker may spend compiling a program's schema and checking outputs against it. */
const SCHEMA_TASK_BUDGET_MS = 10_000;
const CAPABILITY = 'llm.call';

export interface Completion {
  ok: boolean;
  text: string | null;
  reason: string | null;
  message: string | null;
  retryable: boolean;
  status: number | null;
  finishReason: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
}

interface Typed {
  /** The program's schema (validated locally). */
  schema: JsonSchema;
  /** What the provider receives natively, or null for the instruction fallback. */
  native: JsonSchema | null;
  wrapped: boolean;
}

interface Target {
  call: HostCall;
  models: ModelServices;
  fn: string;
  model: string;
  provider: Provider;
  outputReserve: number;
  /** The declared output_reserve, sent as the output-token limit; null when not declared. */
  outputLimit: number | null;
  context: Record<string, unknown>;
}

/** Declared models this caller may call (silent checks, denied ones omitted). */
function callableModels(call: HostCall, models: ModelServices): string[] {
  return Object.keys(models.llm.models ?? {}).filter((name) => call.probe(CAPABILITY, { op: 'models', model: name, prompt_count: 0 }));
}

function readPrompt(value: unknown, fn: string, index?: number): string {
  const where = index === undefined ? 'prompt' : `prompts[${index}]`;
  if (typeof value !== 'string') throw new TypeError(`${fn}: ${where} must be a string`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_PROMPT_BYTES) throw new RangeError(`${fn}: ${where} is ${bytes} UTF-8 bytes; the limit is ${MAX_PROMPT_BYTES}. Nothing was sent`);
  return value;
}

/**
 * Compiles `schema` and checks `values` in a host worker thread (compiling a program's
 * schema takes time that grows with it), within a budget; an unusable schema is a TypeError.
 */
async function schemaCheck(call: HostCall, fn: string, schema: JsonSchema, values: unknown[]): Promise<Array<string | null>> {
  const answer = await hostTask('json-schema', { schema, values }, {
    signal: call.signal,
    budgetMs: SCHEMA_TASK_BUDGET_MS,
    overBudget: `${fn}: checking against the schema took longer than ${SCHEMA_TASK_BUDGET_MS / 1000} s; simplify the schema`,
    what: fn,
    tenant: call.principal,
  });
  if ('schemaError' in answer) throw new TypeError(`${fn}: ${answer.schemaError}`);
  return answer.problems;
}

/** The typed call's schema, compiled once before anything is sent (an unusable one is refused then). */
async function readTyped(call: HostCall, value: unknown, provider: Provider, fn: string): Promise<Typed | null> {
  if (value === undefined || value === null) return null;
  const schema = readSchema(value, fn);
  await schemaCheck(call, fn, schema, []);
  if (!provider.structured) return { schema, native: null, wrapped: false };
  // Gemini takes any root; the others want an object at the root.
  const wrap = provider.type !== 'google' && !hasObjectRoot(schema);
  return { schema, native: wrap ? wrapped(schema) : schema, wrapped: wrap };
}

/** The prompt as sent: in fallback mode the schema travels in the instructions. */
function promptText(prompt: string, typed: Typed | null): string {
  if (!typed || typed.native) return prompt;
  return `${prompt}\n\nAnswer with only one JSON value (no prose, no code fences) that conforms to this JSON Schema:\n${JSON.stringify(typed.schema)}`;
}

/** What `call` and `batch` check before their gate: prompts, the model, the schema. */
interface Params {
  fn: string;
  op: 'call' | 'batch';
  model: string;
  /** Null when the model is not declared: run() refuses it, listing the usable ones. */
  declared: NonNullable<ModelServices['llm']['models']>[string] | null;
  prompts: string[];
  schemaArg: unknown;
}

function parseParams(run: RunContext, fn: string, op: 'call' | 'batch', args: unknown[]): Params {
  const models = modelServices(run.services, 'svc:llm');
  if (typeof args[0] !== 'string') throw new TypeError(`${fn}: model must be a string`);
  let prompts: string[];
  if (op === 'call') prompts = [readPrompt(args[1], fn)];
  else {
    if (!Array.isArray(args[1])) throw new TypeError(`${fn}: prompts must be an array of strings`);
    const list = args[1] as unknown[];
    if (list.length > MAX_BATCH_PROMPTS) throw new RangeError(`${fn}: ${list.length} prompts; at most ${MAX_BATCH_PROMPTS} per batch. Nothing was sent`);
    prompts = list.map((p, i) => readPrompt(p, fn, i));
  }
  if (args[2] !== undefined && args[2] !== null) readSchema(args[2], fn);
  return { fn, op, model: args[0], declared: models.llm.models?.[args[0]] ?? null, prompts, schemaArg: args[2] };
}

const contextOf = (params: Params) => ({ op: params.op, model: params.model, prompt_count: params.prompts.length });

/** The gate of call and batch (an undeclared model is checked too; run() then refuses it, sending nothing). */
const gateOf = (params: Params) => ({ capability: CAPABILITY, context: contextOf(params) });

function target(call: HostCall, params: Params): Target {
  const models = modelServices(call.services, 'svc:llm');
  if (!params.declared) {
    const usable = callableModels(call, models);
    throw new Error(`${params.fn}: unknown model '${params.model}'; models this program may use: ${usable.length ? usable.join(', ') : 'none'}. Nothing was sent`);
  }
  const provider = resolveProvider(models.llm, params.declared.provider, models.secretValue, params.fn);
  return { call, models, fn: params.fn, model: params.model, provider, outputReserve: params.declared.output_reserve ?? DEFAULT_OUTPUT_RESERVE, outputLimit: params.declared.output_reserve ?? null, context: contextOf(params) };
}

/** Reserves every prompt's estimate plus the output reserve, all or none. */
function reserveAll(t: Target, prompts: string[]): Reservation[] {
  const sizes = prompts.map((p) => estimateTokens(p) + t.outputReserve);
  const total = sizes.reduce((a, b) => a + b, 0);
  const probe = reserve(t.models.llmTokens, total);
  if (isShortfall(probe)) {
    const which = probe.scope === 'run' ? 'max_execution_llm_tokens (this run)' : probe.scope === 'token' ? 'max_llm_tokens_per_token (this token)' : 'max_llm_tokens (the server)';
    throw t.call.refuse(
      CAPABILITY,
      t.context,
      'quota',
      new QuotaExceededError(`${t.fn}: the model-token budget ${which} has ${probe.available} of ${probe.limit} tokens left; this call reserves ${probe.needed} (prompt estimate plus ${t.outputReserve} output tokens per prompt). Nothing was sent`),
    );
  }
  // Split the one reservation into per-prompt shares, each settled by its own answer.
  probe.settle(0);
  return sizes.map((size) => reserve(t.models.llmTokens, size) as Reservation);
}

const failure = (reason: string, status: number | null, extra: Partial<Completion> = {}): Completion => ({
  ok: false,
  text: null,
  reason,
  message: REASON_MESSAGES[reason] ?? null,
  retryable: isRetryable(reason),
  status,
  finishReason: null,
  inputTokens: null,
  outputTokens: null,
  ...extra,
});

/** One prompt to the provider. Throws only for configuration and never-sent requests of a single call. */
async function complete(t: Target, prompt: string, typed: Typed | null, reservation: Reservation, inBatch: boolean): Promise<Completion> {
  const { provider, call } = t;
  const request = chatRequest(provider, { model: t.model, prompt: promptText(prompt, typed), schema: typed?.native ?? null, maxOutputTokens: t.outputLimit });
  let answer;
  try {
    answer = await postJson({ dispatcher: t.models.dispatcher, url: request.url, headers: request.headers, body: request.body, signal: call.signal });
  } catch (error) {
    if (error instanceof NotSentError) {
      reservation.settle(0);
      if (error.blocked) throw call.refuse(CAPABILITY, t.context, 'egress_guard', new Error(`${t.fn}: ${error.blocked.message}; no tokens were billed`));
      if (inBatch) return { ...failure('transport', null), message: 'the request could not be sent; no tokens were billed', inputTokens: 0, outputTokens: 0 };
      throw new Error(`${t.fn}: provider '${provider.name}' could not be reached (${error.detail}); the request was not sent and no tokens were billed`);
    }
    if (error instanceof NoAnswerError) {
      // Cancelled or cut off: the provider reported nothing, so nothing is billed.
      reservation.settle(0);
      return failure(error.reason, null);
    }
    throw error;
  }
  if (credentialRejected(provider, answer)) {
    reservation.settle(0);
    const secret = provider.keySecret ? `the secret '${provider.keySecret}' named by its api_key` : 'its api_key (none is configured)';
    throw new Error(`${t.fn}: provider '${provider.name}' rejected the credential (HTTP ${answer.status}); the operator should check ${secret}. No tokens were billed`);
  }
  if (answer.status < 200 || answer.status > 299) {
    // The provider answered that it did no work: nothing is billed.
    reservation.settle(0);
    return failure(statusReason(answer.status), answer.status);
  }
  const result = chatResult(provider, answer);
  const reported = result.inputTokens !== null && result.outputTokens !== null ? result.inputTokens + result.outputTokens : null;
  reservation.settle(reported);
  const reason = result.reason;
  return {
    ok: reason === null,
    text: result.text,
    reason,
    message: reason === null ? null : REASON_MESSAGES[reason],
    retryable: isRetryable(reason),
    status: answer.status,
    finishReason: result.finishReason,
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
  };
}

/** A typed result's parsed value (unwrapped), or the error the program sees. */
function outputValue(t: Target, completion: Completion, typed: Typed, index?: number): unknown {
  const where = index === undefined ? '' : ` (prompt ${index})`;
  if (!completion.ok) {
    const error = new Error(`${t.fn}: ${completion.reason}${where}: ${completion.message}`);
    (error as Error & { code?: string }).code = completion.reason ?? undefined;
    throw error;
  }
  const parsed = completion.text === null ? { ok: false as const } : parseOutput(completion.text);
  if (!parsed.ok) throw new TypeError(`${t.fn}: the model output${where} is not JSON; expected a value conforming to the schema`);
  let value = parsed.value;
  if (typed.wrapped) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !('value' in value)) throw new TypeError(`${t.fn}: the model output${where} at $: expected an object with the property "value"`);
    value = (value as { value: unknown }).value;
  }
  return value;
}

/** The typed results in prompt order: each output parsed and checked; the first fault (in order) is thrown. */
async function typedValues(t: Target, completions: Completion[], typed: Typed, batch: boolean): Promise<unknown[]> {
  const read = completions.map((completion, i) => {
    try {
      return { ok: true as const, value: outputValue(t, completion, typed, batch ? i : undefined) };
    } catch (error) {
      return { ok: false as const, error };
    }
  });
  const problems = await schemaCheck(t.call, t.fn, typed.schema, read.flatMap((r) => (r.ok ? [r.value] : [])));
  let checked = 0;
  return read.map((r, i) => {
    if (!r.ok) throw r.error;
    const problem = problems[checked++];
    if (problem) throw new TypeError(`${t.fn}: the model output${batch ? ` (prompt ${i})` : ''} does not conform to the schema ${problem}`);
    return r.value;
  });
}

async function callOperation(call: HostCall, params: Params): Promise<unknown> {
  const t = target(call, params);
  const typed = await readTyped(call, params.schemaArg, t.provider, t.fn);
  const [prompt] = params.prompts;
  const [reservation] = reserveAll(t, [promptText(prompt, typed)]);
  const completion = await complete(t, prompt, typed, reservation, false);
  call.charge(Buffer.byteLength(completion.text ?? '', 'utf8') / 4);
  return typed ? (await typedValues(t, [completion], typed, false))[0] : completion;
}

async function batchOperation(call: HostCall, params: Params): Promise<unknown> {
  const t = target(call, params);
  const typed = await readTyped(call, params.schemaArg, t.provider, t.fn);
  const prompts = params.prompts;
  if (prompts.length === 0) return [];
  const reservations = reserveAll(t, prompts.map((p) => promptText(p, typed)));
  let configurationError: unknown = null;
  const completions = await mapLimited(prompts, t.models.limits.max_llm_concurrency, async (prompt, i) => {
    // After a configuration error every other prompt would fail alike: send no more.
    if (configurationError !== null) {
      reservations[i].settle(0);
      return failure('cancelled', null);
    }
    try {
      return await complete(t, prompt, typed, reservations[i], true);
    } catch (error) {
      configurationError ??= error;
      return failure('cancelled', null);
    }
  });
  if (configurationError !== null) throw configurationError;
  call.charge(completions.reduce((n, c) => n + Buffer.byteLength(c.text ?? '', 'utf8'), 0) / 4);
  return typed ? typedValues(t, completions, typed, true) : completions;
}

function modelsOperation(call: HostCall): unknown {
  const models = modelServices(call.services, 'svc:llm');
  const declared = models.llm.models ?? {};
  return callableModels(call, models).map((name) => ({ name, description: declared[name].description ?? null, contextWindow: declared[name].context_window ?? null }));
}

export const llmOperations: Record<string, HostOperation> = {
  call: gated<Params>({
    parse: (args, run) => parseParams(run, 'llm.call', 'call', args),
    gate: gateOf,
    run: (call, params) => callOperation(call, params),
  }),
  batch: gated<Params>({
    parse: (args, run) => parseParams(run, 'llm.batch', 'batch', args),
    gate: gateOf,
    run: (call, params) => batchOperation(call, params),
  }),
  models: ungated('a filtered listing: it checks llm.call {op: "models", model, prompt_count: 0} silently for each declared model and omits the denied ones', {
    run: (call) => modelsOperation(call),
  }),
};
