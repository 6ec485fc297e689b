// The Blueprint document's shape, declared once (zod). From it come: the accepted keys of
// every mapping (the section readers' "unknown field … expected one of" refusals), the
// value lists (vfs modes, access, transports, provider types), which placeholders each text
// field fills (placeholders.ts), the key tables of docs/blueprints.md and the published JSON
// Schema (`svc blueprint schema`, docs/blueprint.schema.json), both by `npm run generate`.
// The section readers walk the YAML tree with it and keep line and column in every
// diagnostic; the meaning (names declared, hosts, URLs) stays in the stage-3 checks.
import { z } from 'zod';
import { ActionSchema, RuleSchema } from '../policy/rule-schema';
import type { TypecheckMode } from '../../sandbox';

/** The `typecheck` values (the checker in sandbox/typecheck owns what each means). */
export const TYPECHECK_MODES = ['strict', 'on', 'off'] as const satisfies readonly TypecheckMode[];

/** The placeholders a text field fills; any other `${…}` in it is refused. */
export type Placeholder = 'vars' | 'secrets';

/** What the docs and the placeholder check read beside the JSON Schema keywords. */
export interface FieldMeta {
  description?: string;
  /** The type as the docs write it. */
  'x-doc-type'?: string;
  /** The default as the docs write it. */
  'x-doc-default'?: string;
  'x-placeholders'?: readonly Placeholder[];
}

const meta = <T extends z.ZodType>(schema: T, fields: FieldMeta): T => schema.meta(fields as Record<string, unknown>);
/** A text field that fills `${secrets.NAME}` (outside the program, at use). */
const secretsText = (description: string) => meta(z.string(), { description, 'x-placeholders': ['secrets'] });
/** A text field that fills `${vars.NAME}` (with the session's variables). */
const varsText = (description: string) => meta(z.string(), { description, 'x-placeholders': ['vars'] });

export const DURATION_PATTERN = '^\\s*[0-9]+\\s*[smhSMH]\\s*$';
const Duration = z.string().regex(new RegExp(DURATION_PATTERN));
/** `approval_timeout` also takes days. */
const LongDuration = z.string().regex(/^\s*[0-9]+\s*[smhdSMHD]\s*$/);
const Size = z.union([z.number().int().min(1), z.string()]);

export const VFS_MODES = ['none', 'ephemeral', 'per_session', 'named'] as const;
export const VOLUME_ACCESS = ['read_only', 'read_write'] as const;
export const MCP_TRANSPORTS = ['streamable_http', 'sse'] as const;
export const PROVIDER_TYPES = ['anthropic', 'google', 'openai', 'openai-compatible'] as const;

export const VfsMountSchema = z.strictObject({
  mode: z.literal('named'),
  volume: z.string().min(1).meta({ description: 'A volume the server declares' }),
  subPath: varsText('A relative path inside the volume; ${vars.NAME} as a whole path component'),
  access: z.enum(VOLUME_ACCESS).optional(),
});

export const VfsMappingSchema = z.strictObject({
  mode: z.enum(VFS_MODES).optional(),
  size_limit: meta(Size, { description: 'Bytes, or a size such as 100MB or 2GiB (binary units)' }).optional(),
  volume: z.string().min(1).optional().meta({ description: 'mode named: the declared volume' }),
  subPath: varsText('mode named: a relative path inside the volume; ${vars.NAME} as a whole path component').optional(),
  access: z.enum(VOLUME_ACCESS).optional(),
  cwd: varsText('The absolute directory relative paths resolve against; ${vars.NAME} as a whole path component').optional(),
  mounts: z.record(z.string(), VfsMountSchema).optional().meta({ description: 'Absolute guest path to a named volume; at most 16, none inside another' }),
});

export const HarnessSecretSchema = z.strictObject({ required: z.boolean().optional() });
export const SecretSourceSchema = z.union([z.strictObject({ store: z.string().meta({ description: 'The secret store key' }) }), z.strictObject({ harness: HarnessSecretSchema })]);

export const VariableSchema = z.strictObject({ required: z.boolean().optional(), default: z.string().optional() });

export const BasicAuthSchema = z.strictObject({ username: z.string(), password: z.string().meta({ description: 'A declared secret\'s name' }) });
export const ProxyAuthSchema = z.union([z.strictObject({ bearer: z.string().meta({ description: 'A declared secret\'s name' }) }), z.strictObject({ basic: BasicAuthSchema })]);

export const AuthProxyRuleSchema = z.strictObject({
  host: meta(z.string(), { description: 'exact host name or IP (lower case, no scheme or port)' }),
  allow_insecure_http: meta(z.boolean().optional(), { description: 'also inject over `http://` (with the top-level opt-in)' }),
  auth: meta(ProxyAuthSchema.optional(), {
    description: '`bearer`: a declared secret\'s name (sends `Authorization: Bearer <value>`), or `basic`: `{username: <text>, password: <secret name>}` (`username` literal, `password` a declared secret\'s name)',
  }),
  headers: meta(z.record(z.string(), secretsText('A header value')).optional(), { description: 'map header → value; values may embed `${secrets.NAME}`' }),
  query: meta(z.record(z.string(), secretsText('A query parameter value')).optional(), { description: 'map parameter → value; values may embed `${secrets.NAME}`' }),
});

export const GitIdentitySchema = z.strictObject({ name: varsText('Commit author name; may embed ${vars.NAME}'), email: varsText('Commit author email; may embed ${vars.NAME}') });
export const GitSchema = z.strictObject({ identity: GitIdentitySchema, username: varsText('Sent with the secret GIT_TOKEN to HTTPS remotes; may embed ${vars.NAME}').optional() });

export const McpAuthSchema = z.strictObject({
  type: z.literal('oauth2'),
  client_id: secretsText('OAuth client id; may embed ${secrets.NAME}').optional(),
  authorization_endpoint: secretsText('may embed ${secrets.NAME}').optional(),
  token_endpoint: secretsText('may embed ${secrets.NAME}').optional(),
  scopes: z.array(secretsText('A scope; may embed ${secrets.NAME}')).optional(),
});

export const McpServerSchema = z.strictObject({
  transport: meta(z.enum(MCP_TRANSPORTS).optional(), { description: '`streamable_http` (default) or its alias `sse`' }),
  url: meta(z.string(), { description: 'required: `https://` (or `http://` with `allow_insecure_http`)' }),
  headers: meta(z.record(z.string(), secretsText('A header value')).optional(), { description: 'map header → value; values may embed `${secrets.NAME}`' }),
  auth: meta(McpAuthSchema.optional(), { description: 'OAuth: `type` (required, `oauth2`), optional `client_id`, `authorization_endpoint`, `token_endpoint`, `scopes` (list); log in with `svc mcp authenticate`' }),
});

export const LlmProviderSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPES),
  base_url: secretsText('Public https:// URL; ${secrets.NAME} only in the path and query').optional(),
  api_key: secretsText('Exactly one ${secrets.NAME} reference').optional(),
  supports_structured_outputs: z.boolean().optional(),
});
export const LlmModelSchema = z.strictObject({ provider: z.string(), context_window: z.number().int().min(1).optional(), output_reserve: z.number().int().min(1).optional(), description: z.string().optional() });
export const EmbeddingModelSchema = z.strictObject({
  provider: z.string(),
  dimensions: z.number().int().min(1),
  max_input_bytes: z.number().int().min(1).optional(),
  max_input_tokens: z.number().int().min(1).optional(),
  description: z.string().optional(),
});
export const LlmSchema = z.strictObject({
  providers: z.record(z.string(), LlmProviderSchema).optional(),
  models: z.record(z.string(), LlmModelSchema).optional(),
  embedding_models: z.record(z.string(), EmbeddingModelSchema).optional(),
});

/** The whole document; the order of its keys is the docs' and the refusals' order. */
export const BlueprintDocumentSchema = z
  .strictObject({
    kind: meta(z.literal('blueprint').optional(), { 'x-doc-type': '`blueprint`', 'x-doc-default': 'absent', description: 'Optional document marker; any other value is refused' }),
    name: meta(z.string().regex(/^[A-Za-z0-9_-]+$/), { 'x-doc-type': '`[A-Za-z0-9_-]+`', 'x-doc-default': 'required', description: 'The name clients send as `blueprint`' }),
    allow_insecure_http: meta(z.boolean().optional(), {
      'x-doc-type': 'boolean',
      'x-doc-default': '`false`',
      description: 'Also allow `http://` URLs (svc:http, fetch, MCP servers); an `auth_proxy` host additionally needs its rule\'s own `allow_insecure_http`',
    }),
    idle_timeout: meta(Duration.optional(), { 'x-doc-type': 'duration (`30s`, `10m`, `24h`)', 'x-doc-default': '`24h`', description: 'A session idle this long is closed and its state and files deleted' }),
    approval_timeout: meta(LongDuration.optional(), {
      'x-doc-type': 'duration (`90s`, `30m`, `24h`, `7d`)',
      'x-doc-default': '`24h`',
      description: 'How long an `ask-human` approval waits for an answer before it expires, which counts as a denial (at most `30d`)',
    }),
    vfs: meta(z.union([z.enum(['none', 'ephemeral', 'per_session']), VfsMappingSchema]).optional(), { 'x-doc-type': 'mode or mapping', 'x-doc-default': '`ephemeral`', description: 'The program\'s file system (below)' }),
    secrets: meta(z.record(z.string(), SecretSourceSchema).optional(), { 'x-doc-type': 'map name → source', 'x-doc-default': '`{}`', description: 'Secrets the run may use (below)' }),
    variables: meta(z.record(z.string(), VariableSchema.nullable()).optional(), { 'x-doc-type': 'map name → declaration', 'x-doc-default': '`{}`', description: 'Per-session string values (below)' }),
    packages: meta(z.array(z.string()).optional(), { 'x-doc-type': 'list of `@scope/name`', 'x-doc-default': '`[]`', description: 'Installed Packages the program may import' }),
    auth_proxy: meta(z.array(AuthProxyRuleSchema).optional(), { 'x-doc-type': 'list of rules', 'x-doc-default': '`[]`', description: 'Credentials injected into outbound requests (below)' }),
    git: meta(GitSchema.optional(), { 'x-doc-type': 'mapping', 'x-doc-default': 'absent', description: 'Commit identity; without it `svc:git` cannot be imported' }),
    default: meta(ActionSchema.optional(), { 'x-doc-type': '`allow`, `deny`, `ask-human`', 'x-doc-default': 'absent = `deny`', description: 'The action when no rule matches' }),
    permissions: meta(z.record(z.string(), z.array(RuleSchema)).optional(), { 'x-doc-type': 'map caller → list of rules', 'x-doc-default': '`{}`', description: 'The rules (below)' }),
    mcp: meta(z.record(z.string(), McpServerSchema).optional(), { 'x-doc-type': 'map server → declaration', 'x-doc-default': '`{}`', description: 'Remote MCP servers imported as `@mcp/<server>`' }),
    llm: meta(LlmSchema.optional(), { 'x-doc-type': '`{providers, models, embedding_models}`', 'x-doc-default': 'empty', description: 'Models for `svc:llm` and `svc:embedding`' }),
    typecheck: meta(z.enum(TYPECHECK_MODES).optional(), {
      'x-doc-type': '`strict`, `on`, `off`',
      'x-doc-default': '`on`',
      description: 'Whether programs are type-checked before they run: `on` catches wrong names, arguments, property names and imports; `strict` adds strict null checks and no implicit `any`; `off` only strips types',
    }),
  })
  .meta({ title: 'svc Blueprint', description: 'An operator Blueprint: the file system, Packages, secrets, variables and permission rules a run gets' });

export type BlueprintDocument = z.infer<typeof BlueprintDocumentSchema>;

/** A field's meta, read through its optional/nullable/default wrappers (the innermost declaration of each key wins). */
export function fieldMeta(schema: z.ZodType): FieldMeta {
  const chain: z.ZodType[] = [];
  for (let current: z.ZodType | undefined = schema; current; current = (current._zod.def as { innerType?: z.ZodType }).innerType) chain.push(current);
  return Object.assign({}, ...chain.map((s) => s.meta() ?? {})) as FieldMeta;
}

/** The keys a mapping accepts: an object's own, or every key of a union of objects. */
export function fieldNames(schema: z.ZodType): string[] {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; options?: z.ZodType[]; innerType?: z.ZodType };
  if (def.type === 'object') return Object.keys(def.shape!);
  if (def.type === 'union') return [...new Set(def.options!.flatMap(fieldNames))];
  if (def.innerType) return fieldNames(def.innerType);
  return [];
}

/** The published JSON Schema of a Blueprint document (what an editor's YAML support reads); the docs-only keys left out. */
export function blueprintJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(BlueprintDocumentSchema, {
    io: 'input',
    override: ({ jsonSchema }) => {
      delete (jsonSchema as Record<string, unknown>)['x-doc-type'];
      delete (jsonSchema as Record<string, unknown>)['x-doc-default'];
    },
  });
}

/** Every text field that fills placeholders, as `auth_proxy[].headers.*` → its kinds, in schema order. */
export function placeholderFields(schema: z.ZodType = BlueprintDocumentSchema, path = ''): Array<{ path: string; fills: readonly Placeholder[] }> {
  const declared = fieldMeta(schema)['x-placeholders'];
  if (declared) return [{ path, fills: declared }];
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; valueType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; innerType?: z.ZodType };
  if (def.innerType) return placeholderFields(def.innerType, path);
  if (def.type === 'object') return Object.entries(def.shape!).flatMap(([key, child]) => placeholderFields(child, path ? `${path}.${key}` : key));
  if (def.type === 'record') return placeholderFields(def.valueType!, `${path}.*`);
  if (def.type === 'array') return placeholderFields(def.element!, `${path}[]`);
  if (def.type === 'union') return def.options!.flatMap((option) => placeholderFields(option, path));
  return [];
}
