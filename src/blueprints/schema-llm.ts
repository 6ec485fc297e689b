// The `llm` part of the Blueprint schema: providers, chat models and embedding models, each
// a map of names; a missing field is named after its entry, and a provider type outside the
// list or a limit below 1 is a fault of meaning (invalid_llm, reported in the llm section's turn).
import { z } from 'zod';
import { described, missing, nameAt, secretsText, whereOf, type Issue } from './schema-kit';

export const PROVIDER_TYPES = ['anthropic', 'google', 'openai', 'openai-compatible'] as const;

const ENTRY_LABELS: Record<string, string> = { providers: 'llm provider', models: 'llm model', embedding_models: 'embedding model' };
/** An llm entry's refusals: a missing field named after the entry, a limit below 1 (a fault of meaning, invalid_llm). */
const entryLabel = (issue: Issue) => `${ENTRY_LABELS[nameAt(issue, 1)]} '${nameAt(issue, 2)}'`;
function llmEntry<T extends z.core.$ZodLooseShape>(shape: T, required: string) {
  return z.strictObject(shape, { error: (issue) => (issue.code === 'invalid_type' && issue.input === null ? `${entryLabel(issue)}: missing field \`${required}\`` : undefined) });
}
/** A field an llm entry needs: missing, it is named after the entry. */
const entryNeeds = (issue: Issue) => (missing(issue) ? `${entryLabel(issue)}: missing field \`${nameAt(issue, 3)}\`` : undefined);
/** A whole number of at least 1; below 1 is a fault of meaning. */
function atLeastOne(error?: (issue: Issue) => string | undefined) {
  return z.number({ error }).int().min(1, {
    error: (issue) => {
      const owner = `${nameAt(issue, 1) === 'models' ? 'model' : 'embedding model'} '${nameAt(issue, 2)}'`;
      return described(issue, `${owner}: ${nameAt(issue, 3)} must be at least 1, not ${String(issue.input)}`, { code: 'invalid_llm', semantic: true });
    },
  });
}

export const LlmProviderSchema = llmEntry(
  {
    type: z.enum(PROVIDER_TYPES, {
      error: (issue) =>
        missing(issue)
          ? entryNeeds(issue)
          : typeof issue.input !== 'string'
            ? `${whereOf(issue)}: expected a string`
            : described(issue, `provider '${nameAt(issue, 2)}': unknown type '${issue.input}'; expected one of ${PROVIDER_TYPES.join(', ')}`, { code: 'invalid_llm', semantic: true }),
    }),
    base_url: secretsText('Public https:// URL; ${secrets.NAME} only in the path and query').optional(),
    api_key: secretsText('Exactly one ${secrets.NAME} reference').optional(),
    supports_structured_outputs: z.boolean().optional(),
  },
  'type',
);
export const LlmModelSchema = llmEntry({ provider: z.string({ error: entryNeeds }), context_window: atLeastOne().optional(), output_reserve: atLeastOne().optional(), description: z.string().optional() }, 'provider');
export const EmbeddingModelSchema = llmEntry(
  { provider: z.string({ error: entryNeeds }), dimensions: atLeastOne(entryNeeds), max_input_bytes: atLeastOne().optional(), max_input_tokens: atLeastOne().optional(), description: z.string().optional() },
  'provider',
);
export const LlmSchema = z.strictObject({
  providers: z.record(z.string(), LlmProviderSchema).optional(),
  models: z.record(z.string(), LlmModelSchema).optional(),
  embedding_models: z.record(z.string(), EmbeddingModelSchema).optional(),
});
