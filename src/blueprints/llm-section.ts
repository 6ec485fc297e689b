// The `llm` section: providers, chat models and embedding models. Shapes and YAML types
// are the schema's (parse_error), and so are provider types and limits below 1 (invalid_llm,
// reported here in the order these checks always had); names, URLs, key references,
// descriptions and model filters are checked here (invalid_llm).
import ipaddr from 'ipaddr.js';
import type { Filter, PermissionPolicy } from '../policy';
import type { LlmDeclaration, SecretDeclaration } from './model';
import { fail, type Path } from './readers';
import { secretReferenceProblem } from './references';

type Provider = NonNullable<LlmDeclaration['providers']>[string];
type Model = NonNullable<LlmDeclaration['models']>[string];
type EmbeddingModel = NonNullable<LlmDeclaration['embedding_models']>[string];

const EMBEDDING_PROVIDER_TYPES = ['google', 'openai', 'openai-compatible'];
/** Address ranges a model endpoint may not point into (ipaddr.js range names). */
const BLOCKED_RANGES = new Set(['loopback', 'unspecified', 'private', 'linkLocal', 'broadcast', 'carrierGradeNat', 'uniqueLocal']);
const DESCRIPTION_LIMIT = 512;

// --- stage 3: meaning ---------------------------------------------------------------------

function refuse(leaf: string, path: Path): never {
  return fail('invalid_llm', leaf, path, null);
}

/** Reports the schema's fault of meaning at `path`, if it found one (a provider type, a limit below 1). */
export type SchemaFaultAt = (path: Path) => void;

/** `schemaFault` reports the schema's own findings in the turn these checks always gave them. */
export function checkLlm(llm: LlmDeclaration, secrets: ReadonlyMap<string, SecretDeclaration>, policy: PermissionPolicy, schemaFault: SchemaFaultAt = () => {}): void {
  for (const [name, provider] of Object.entries(llm.providers ?? {})) checkProvider(name, provider, secrets, schemaFault);
  for (const [name, model] of Object.entries(llm.models ?? {})) checkModel(name, model, llm, schemaFault);
  for (const [name, model] of Object.entries(llm.embedding_models ?? {})) checkEmbeddingModel(name, model, llm, schemaFault);
  checkModelFilters(policy, 'llm.call', new Set(Object.keys(llm.models ?? {})), 'models');
  checkModelFilters(policy, 'embedding.embed', new Set(Object.keys(llm.embedding_models ?? {})), 'embedding_models');
}

/** Provider and model names: 1–128 characters, no control characters, no surrounding whitespace. */
function checkEntryName(what: string, name: string, path: Path): void {
  if ([...name].length < 1 || [...name].length > 128) refuse(`${what} name '${name}' must be 1 to 128 characters`, path);
  if (/\p{Cc}/u.test(name)) refuse(`${what} name '${name}' contains a control character`, path);
  if (name.trim() !== name) refuse(`${what} name '${name}' has leading or trailing whitespace`, path);
}

function checkProvider(name: string, provider: Provider, secrets: ReadonlyMap<string, SecretDeclaration>, schemaFault: SchemaFaultAt): void {
  const path = ['llm', 'providers', name];
  checkEntryName('provider', name, path);
  schemaFault([...path, 'type']);
  if (provider.type === 'openai-compatible' && provider.base_url === undefined) refuse(`provider '${name}': \`base_url\` is required for type openai-compatible`, path);
  if (provider.base_url !== undefined) {
    const problem = baseUrlProblem(provider.base_url, secrets);
    if (problem) refuse(`provider '${name}': base_url ${problem}`, [...path, 'base_url']);
  }
  if (provider.api_key !== undefined) {
    const match = /^\$\{secrets\.([^{}]+)\}$/.exec(provider.api_key);
    if (!match) refuse(`provider '${name}': api_key must be exactly one \${secrets.NAME} reference to a declared secret, so keys never sit in Blueprint text`, [...path, 'api_key']);
    if (!secrets.has(match[1])) refuse(`provider '${name}': api_key references undeclared secret '${match[1]}'`, [...path, 'api_key']);
  }
}

/** Why a provider base URL is refused, or null. `${secrets.NAME}` may appear only after the host. */
export function baseUrlProblem(value: string, secrets: ReadonlyMap<string, SecretDeclaration>): string | null {
  if (!/^https:\/\//i.test(value)) return `'${value}' must be an absolute https:// URL`;
  const authorityEnd = value.slice(8).search(/[/?#]/);
  const authority = authorityEnd === -1 ? value.slice(8) : value.slice(8, 8 + authorityEnd);
  if (authority.includes('${')) return 'may use ${secrets.NAME} only in the path and query, after the host';
  const rest = authorityEnd === -1 ? '' : value.slice(8 + authorityEnd);
  const referenceProblem = secretReferenceProblem(rest, secrets);
  if (referenceProblem) return referenceProblem;
  let url: URL;
  try {
    url = new URL(value.slice(0, 8) + authority + rest.replace(/\$\{secrets\.[^}]*\}/g, 'x'));
  } catch {
    return `'${value}' is not a valid URL`;
  }
  return hostProblem(url.hostname);
}

function hostProblem(hostname: string): string | null {
  const host = hostname.replace(/\.$/, '').replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '127.0.0.1' || host === '::1') return `must not point at this machine ('${hostname}')`;
  if (!ipaddr.isValid(host)) return null;
  let address = ipaddr.parse(host);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  const range = address.range();
  return BLOCKED_RANGES.has(range) ? `must not point at a ${range} address ('${hostname}')` : null;
}

function checkDescription(owner: string, description: string | undefined, path: Path): void {
  if (description === undefined) return;
  if ([...description].length > DESCRIPTION_LIMIT) refuse(`${owner}: description is longer than ${DESCRIPTION_LIMIT} characters`, path);
  if (/[\p{Cc}\p{Cf}]/u.test(description)) refuse(`${owner}: description must be one line without control or invisible formatting characters`, path);
}

function checkModel(name: string, model: Model, llm: LlmDeclaration, schemaFault: SchemaFaultAt): void {
  const path = ['llm', 'models', name];
  const owner = `model '${name}'`;
  checkEntryName('model', name, path);
  if (!llm.providers?.[model.provider]) refuse(`${owner}: provider '${model.provider}' is not declared under llm.providers`, [...path, 'provider']);
  for (const field of ['context_window', 'output_reserve']) schemaFault([...path, field]);
  checkDescription(owner, model.description, [...path, 'description']);
}

function checkEmbeddingModel(name: string, model: EmbeddingModel, llm: LlmDeclaration, schemaFault: SchemaFaultAt): void {
  const path = ['llm', 'embedding_models', name];
  const owner = `embedding model '${name}'`;
  checkEntryName('embedding model', name, path);
  const provider = llm.providers?.[model.provider];
  if (!provider) refuse(`${owner}: provider '${model.provider}' is not declared under llm.providers`, [...path, 'provider']);
  if (!EMBEDDING_PROVIDER_TYPES.includes(provider.type)) refuse(`${owner}: provider '${model.provider}' is of type ${provider.type}, which serves no embeddings; use an openai, google or openai-compatible provider`, [...path, 'provider']);
  for (const field of ['dimensions', 'max_input_bytes', 'max_input_tokens']) schemaFault([...path, field]);
  checkDescription(owner, model.description, [...path, 'description']);
}

/** Every `model == "<literal>"` in a filter of `capability` must name a model declared under `section`. */
function checkModelFilters(policy: PermissionPolicy, capability: string, declared: ReadonlySet<string>, section: string): void {
  for (const [caller, rules] of policy.callers) {
    rules.forEach((rule, index) => {
      if (rule.capability !== capability || !rule.filter) return;
      for (const model of comparedModels(rule.filter)) {
        if (!declared.has(model)) refuse(`permissions for '${caller}': the ${capability} rule tests model == "${model}", which is not declared under llm.${section}`, ['permissions', caller, index, 'filter']);
      }
    });
  }
}

function comparedModels(filter: Filter): string[] {
  switch (filter.kind) {
    case 'not':
      return comparedModels(filter.operand);
    case 'and':
    case 'or':
      return [...comparedModels(filter.left), ...comparedModels(filter.right)];
    case 'compare':
      return filter.path.length === 1 && filter.path[0] === 'model' && filter.op === '==' && filter.operand.kind === 'string' ? [filter.operand.value] : [];
  }
}
